//! The libtest-mimic glue shared by this crate's `tests/` and downstream crates: one trial
//! per case and data set, named by case id, run through [`check_data_set_with`] (the case's model
//! read once for all its data sets).
//!
//! ```no_run
//! // tests/conformance.rs of a backend crate, with `harness = false` in Cargo.toml:
//! use pad_conformance::backend::RefBackend;
//! use pad_conformance::harness::Harness;
//!
//! fn main() {
//!     Harness::new(RefBackend).root("onnx-testdata").run();
//! }
//! ```
//!
//! examples/toy_backend.rs is a complete gate of a partial backend, with a baseline.

use std::path::PathBuf;
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Trial};

use crate::backend::Backend;
use crate::baseline::{Baseline, Discovered, Finding};
use crate::case::{Applicability, Patterns, TestCase, applicability, discover};
use crate::check::{CheckOptions, Status, check_data_set_with};
use crate::error::Error;

/// Builds and runs the trials of a backend over case roots.
pub struct Harness {
    backend: Arc<dyn Backend>,
    roots: Vec<PathBuf>,
    patterns: Vec<String>,
    options: CheckOptions,
    baseline: Option<PathBuf>,
}

impl Harness {
    /// A harness for `backend`, with no roots yet.
    pub fn new(backend: impl Backend + 'static) -> Harness {
        Harness {
            backend: Arc::new(backend),
            roots: Vec::new(),
            patterns: Vec::new(),
            options: CheckOptions::default(),
            baseline: None,
        }
    }

    /// Adds a directory to search for cases.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Harness {
        self.roots.push(root.into());
        self
    }

    /// Replaces the default case-directory patterns.
    pub fn pattern(mut self, pattern: impl Into<String>) -> Harness {
        self.patterns.push(pattern.into());
        self
    }

    /// Sets the comparison and decoding options.
    pub fn options(mut self, options: CheckOptions) -> Harness {
        self.options = options;
        self
    }

    /// Known failures (a file `--write-baseline` wrote): their trials pass while they fail
    /// with the listed status, and fail once they pass or their status changes; entries that
    /// name no data set fail a trial of their own. So the list cannot go stale.
    pub fn baseline(mut self, path: impl Into<PathBuf>) -> Harness {
        self.baseline = Some(path.into());
        self
    }

    /// One trial per case and data set. Not-applicable cases are ignored trials; a case whose
    /// model cannot be read is a trial that fails with the reason.
    pub fn trials(&self) -> Result<Vec<Trial>, Error> {
        let patterns = Patterns::new(&self.patterns)?;
        let cases = discover(&self.roots, &patterns)?;
        let baseline = Arc::new(match &self.baseline {
            Some(path) => Baseline::read(path)?,
            None => Baseline::default(),
        });
        let mut trials = Vec::new();
        let discovered = Discovered::new(&cases, !self.patterns.is_empty());
        for case in cases {
            let case = Arc::new(case);
            let (kind, not_applicable) = self.describe(&case);
            let model = Arc::new(crate::shared_model::SharedModel::new(case.job_indices().len()));
            for index in case.job_indices() {
                let name = case.data_set_name(index);
                let (backend, case, options) = (Arc::clone(&self.backend), Arc::clone(&case), self.options);
                let ignored = not_applicable.is_some();
                let (baseline, model) = (Arc::clone(&baseline), Arc::clone(&model));
                let trial = Trial::ignorable_test(name.clone(), move || {
                    let model = model.get(&case, &case.decode_options(options.max_tensor_bytes));
                    let outcome = check_data_set_with(backend.as_ref(), &case, index, &model, &options);
                    if outcome.status == Status::Skipped {
                        return Ok(Completion::ignored_with(outcome.message));
                    }
                    match baseline.finding(&name, outcome.status) {
                        Finding::Agrees | Finding::ExpectedFailure => Ok(Completion::Completed),
                        Finding::Regression => Err(outcome.message.into()),
                        Finding::UnexpectedPass(known) => Err(format!(
                            "listed as a known failure ({}) but passed: remove it from the baseline",
                            known.reason
                        )
                        .into()),
                        Finding::ChangedStatus(known) => Err(format!(
                            "listed as {} ({}) but {} now: update the baseline\n{}",
                            known.status.name(),
                            known.reason,
                            outcome.status.name(),
                            outcome.message
                        )
                        .into()),
                    }
                });
                trials.push(trial.with_kind(kind.clone()).with_ignored_flag(ignored));
            }
        }
        // Entries naming no data set (renamed or removed since): one trial that lists them.
        let stale = baseline.stale(|name| discovered.contains(name));
        if !stale.is_empty() {
            trials.push(Trial::test("baseline: entries for no data set", move || {
                Err(format!("remove them from the baseline:\n  {}", stale.join("\n  ")).into())
            }));
        }
        Ok(trials)
    }

    /// The trial kind (`Pad-19`) and, for a case that does not apply, why.
    fn describe(&self, case: &TestCase) -> (String, Option<String>) {
        let Ok(model) = case.load_model(&case.decode_options(self.options.max_tensor_bytes)) else {
            return (String::new(), None);
        };
        let kind = model.pad_nodes().next().map(|(n, _)| n.label()).unwrap_or_default();
        match applicability(&model) {
            Applicability::Applicable => (kind, None),
            Applicability::NotApplicable(reason) => (kind, Some(reason)),
        }
    }

    /// Parses libtest's command line (filter, --exact, --skip, --list, --ignored,
    /// --test-threads, …), runs the trials and exits: 0 when nothing failed, 101 otherwise.
    pub fn run(self) -> ! {
        let args = Arguments::from_args();
        let trials = match self.trials() {
            Ok(trials) => trials,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(101);
            }
        };
        let conclusion = libtest_mimic::run(&args, trials);
        // `exit` runs no destructor: drop the backend first, so that an exec backend stops
        // its workers and removes its scratch directory.
        drop(self);
        conclusion.exit()
    }
}
