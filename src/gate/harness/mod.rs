//! The libtest-mimic glue shared by this crate's `tests/` and downstream crates: one trial
//! per case and data set, named by case id, run through [`check_data_set_with`] (the case's
//! model read once for all its data sets).
//!
//! ```no_run
//! // tests/conformance.rs of a backend crate, with `harness = false` in Cargo.toml:
//! use pad_conformance::backend::RefBackend;
//! use pad_conformance::gate::harness::Harness;
//!
//! fn main() {
//!     // The bundled cases, each data set in a child process, known failures listed.
//!     Harness::new(RefBackend).isolate().baseline("known-failures.json").run();
//! }
//! ```
//!
//! `PAD_CONFORMANCE_WRITE_BASELINE=known-failures.json cargo test --test conformance`
//! records the run's failures into the file (keeping the reasons already there, and the
//! entries of data sets a filter left out). examples/toy_backend.rs is a complete gate of a
//! partial backend, with a baseline.

mod isolate;
mod quiet_panics;
mod summary;
mod trial_result;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Conclusion, Trial};

pub use summary::HarnessSummary;
pub use trial_result::TrialResult;

use crate::backend::Backend;
use crate::case::error::Error;
use crate::case::shared_model::SharedModel;
use crate::case::{Applicability, CaseError, Patterns, TestCase, applicability, discover, discover_in};
use crate::data::DataRoot;
use crate::data::basis::Gating;
use crate::gate::baseline::{Baseline, BaselineError, Discovered, GateResult, Ran};
use crate::judge::check::{CheckOptions, Status, check_data_set_with};
use crate::judge::profile::Profile;
use crate::model::Model;

/// Why the harness cannot build or finish its trials.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The cases cannot be discovered.
    #[error(transparent)]
    Cases(#[from] Error),
    /// The baseline cannot be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
}

impl From<crate::data::corpus::CorpusError> for HarnessError {
    fn from(error: crate::data::corpus::CorpusError) -> HarnessError {
        HarnessError::Cases(error.into())
    }
}

/// The environment variable that makes [`Harness::run`] record the run's failures as a
/// baseline, into the file it names.
pub const WRITE_BASELINE_ENV: &str = "PAD_CONFORMANCE_WRITE_BASELINE";

/// The per-trial time limit of [`Harness::isolate`] unless [`Harness::time_limit`] sets one.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Builds and runs the trials of a backend over case roots.
pub struct Harness {
    backend: Arc<dyn Backend>,
    roots: Vec<PathBuf>,
    patterns: Vec<String>,
    options: CheckOptions,
    baseline: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    isolation: Option<Duration>,
}

/// What a run of the harness found.
pub struct HarnessRun {
    /// libtest's counts.
    pub conclusion: Conclusion,
    /// The harness's own: known failures, new ones, lossy passes.
    pub summary: HarnessSummary,
    /// Each trial that ran, with its verdict, in the order they finished.
    pub results: Vec<TrialResult>,
}

/// The trials, and what the run needs to judge and record them afterwards.
struct Built {
    trials: Vec<Trial>,
    results: Arc<Mutex<Vec<TrialResult>>>,
    baseline: Arc<Baseline>,
    discovered: Discovered,
    roots: Vec<DataRoot>,
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
            write_baseline: None,
            isolation: None,
        }
    }

    /// Adds a directory to search for cases. Without any, the harness runs the command
    /// line's default data ([`default_root`](crate::data::default_root)): the bundled cases
    /// unless `$PAD_CONFORMANCE_DATA` or `./onnx-testdata` says otherwise.
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

    /// What the backend supports: data sets outside the profile are ignored trials, saying
    /// why, never failures.
    pub fn profile(mut self, profile: Profile) -> Harness {
        self.options.profile = profile;
        self
    }

    /// The bases whose failures fail a trial (default: spec and reference).
    pub fn gating(mut self, gating: Gating) -> Harness {
        self.options.gating = gating;
        self
    }

    /// Hands the backend models whose inputs after the data are constants.
    pub fn inputs_as_constants(mut self) -> Harness {
        self.options.inputs_as_constants = true;
        self
    }

    /// Known failures (a file `--write-baseline` or [`WRITE_BASELINE_ENV`] wrote): their
    /// trials pass while they fail with the listed status, marked `known failure` in the
    /// trial's kind, and fail once they pass or their status changes; entries that name no
    /// data set fail a trial of their own. So the list cannot go stale. A file that does not
    /// exist is an error saying how to record it.
    pub fn baseline(mut self, path: impl Into<PathBuf>) -> Harness {
        self.baseline = Some(path.into());
        self
    }

    /// After the run, record its failures into `path` (what [`WRITE_BASELINE_ENV`] does for
    /// [`run`](Harness::run)): reasons already in that file, or else in the
    /// [`baseline`](Harness::baseline), are kept, and so are entries for data sets the run
    /// did not reach (a filter left them out).
    pub fn write_baseline(mut self, path: impl Into<PathBuf>) -> Harness {
        self.write_baseline = Some(path.into());
        self
    }

    /// Runs each data set in a child process — this test binary, re-executed — so that an
    /// abort, a segfault or a stack overflow in the backend errors that one trial, naming the
    /// signal, and the rest run. Each trial gets [`DEFAULT_TIME_LIMIT`] unless
    /// [`time_limit`](Harness::time_limit) says otherwise. The children re-enter the binary's
    /// `main`, which must build the same harness and call [`run`](Harness::run); whatever
    /// `main` does before that (loading a runtime, say) is done again in each child.
    pub fn isolate(mut self) -> Harness {
        self.isolation.get_or_insert(DEFAULT_TIME_LIMIT);
        self
    }

    /// Isolates each data set (as [`isolate`](Harness::isolate)) and kills its child process
    /// after `limit`: the trial errors, saying it timed out.
    pub fn time_limit(mut self, limit: Duration) -> Harness {
        self.isolation = Some(limit);
        self
    }

    /// One trial per case and data set. Not-applicable cases are ignored trials; a case whose
    /// model cannot be read is a trial that fails with the reason.
    pub fn trials(&self) -> Result<Vec<Trial>, HarnessError> {
        Ok(self.build()?.trials)
    }

    fn read_baseline(&self, roots: &[DataRoot]) -> Result<Baseline, HarnessError> {
        let Some(path) = &self.baseline else {
            return Ok(Baseline::default());
        };
        if path.exists() {
            let baseline = Baseline::read(path)?.against(path, roots)?;
            if let Some(warning) = baseline.unversioned_warning(path, &record_command(path)) {
                eprintln!("{warning}");
            }
            return Ok(baseline);
        }
        // The file about to be recorded, however its path is spelled (a gate names its
        // baseline by an absolute path, the command that records it by a relative one, which
        // may climb through `..` or a link): the same file in the same resolved directory.
        let resolved = |p: &Path| {
            let absolute = std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
            match (absolute.parent(), absolute.file_name()) {
                (Some(dir), Some(name)) => dir.canonicalize().map_or(absolute.clone(), |dir| dir.join(name)),
                _ => absolute,
            }
        };
        if self
            .write_baseline
            .as_deref()
            .is_some_and(|w| resolved(w) == resolved(path))
        {
            return Ok(Baseline::default());
        }
        Err(BaselineError::Missing {
            path: path.clone(),
            command: record_command(path),
        }
        .into())
    }

    fn build(&self) -> Result<Built, HarnessError> {
        // The same resolver as the command line's: the same data gives the same corpus.
        let roots = DataRoot::resolve(&self.roots)?;
        let patterns = Patterns::new(&self.patterns)?;
        let cases = discover_in(&roots, &patterns)?;
        let baseline = Arc::new(self.read_baseline(&roots)?);
        let results = Arc::new(Mutex::new(Vec::new()));
        let mut trials = Vec::new();
        let discovered = Discovered::new(&cases, !self.patterns.is_empty());
        for case in cases {
            let case = Arc::new(case);
            let (kind, not_applicable) = self.describe(&case);
            // The case's model, decoded once for all its data sets.
            let model = Arc::new(SharedModel::new(case.job_indices().len()));
            for index in case.job_indices() {
                let name = case.data_set_name(index);
                let kind = match baseline.expected.get(&name) {
                    Some(_) if kind.is_empty() => "known failure".to_owned(),
                    Some(_) => format!("{kind}, known failure"),
                    None => kind.clone(),
                };
                let run = self.runner(Arc::clone(&case), index, Arc::clone(&model));
                let (baseline, results) = (Arc::clone(&baseline), Arc::clone(&results));
                let trial = Trial::ignorable_test(name, move || {
                    let result = run();
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(result.clone());
                    judge(&baseline, result)
                });
                trials.push(trial.with_kind(kind).with_ignored_flag(not_applicable.is_some()));
            }
        }
        // Entries naming no data set (renamed or removed since): one trial that lists them.
        let stale = baseline.stale(|name| discovered.contains(name));
        if !stale.is_empty() {
            trials.push(Trial::test("baseline: entries for no data set", move || {
                Err(format!("remove them from the baseline:\n  {}", stale.join("\n  ")).into())
            }));
        }
        Ok(Built {
            trials,
            results,
            baseline,
            discovered,
            roots,
        })
    }

    /// What a trial runs: the check in this process, panics quiet, or in a child.
    fn runner(
        &self,
        case: Arc<TestCase>,
        index: usize,
        model: Arc<SharedModel>,
    ) -> impl FnOnce() -> TrialResult + Send + 'static {
        let (backend, options, isolation) = (Arc::clone(&self.backend), self.options.clone(), self.isolation);
        move || match isolation {
            Some(limit) => isolate::run_in_child(&case.data_set_name(index), &case.dir, index, limit),
            None => {
                let model = model.get(&case, &case.decode_options(options.max_tensor_bytes));
                check_quietly(backend.as_ref(), &case, index, &model, &options)
            }
        }
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

    /// Runs the trials `args` selects, prints the harness's summary after libtest's, and
    /// records the baseline if asked to.
    pub fn execute(self, args: &Arguments) -> Result<HarnessRun, HarnessError> {
        // Before the run, not after it: a target that is no baseline, or cannot be written.
        if let Some(path) = &self.write_baseline {
            Baseline::check_recordable(path)?;
        }
        let built = self.build()?;
        let conclusion = libtest_mimic::run(args, built.trials);
        let results = std::mem::take(&mut *built.results.lock().unwrap_or_else(|e| e.into_inner()));
        let summary = HarnessSummary::new(self.backend.name(), &results, &built.baseline);
        // Not after a listing, and not into libtest's JSON, which a tool parses.
        if !args.list && args.format != Some(libtest_mimic::FormatSetting::Json) {
            println!("{summary}\n");
        }
        if let Some(path) = &self.write_baseline {
            // The command line's rules: only a baseline is replaced, merged under a lock.
            let recorded = Baseline::record_into(path, Some(&built.baseline), |previous| {
                let ran = results.iter().map(|r| Ran {
                    name: &r.name,
                    status: r.status,
                    message: &r.message,
                    gates: r.gates,
                });
                Baseline::record(self.backend.name(), &built.roots, ran, previous, |name| {
                    built.discovered.contains(name)
                })
            })?;
            println!(
                "pad-conformance: wrote {} known failures to {}\n",
                recorded.expected.len(),
                path.display()
            );
        }
        Ok(HarnessRun {
            conclusion,
            summary,
            results,
        })
    }

    /// Parses libtest's command line (filter, --exact, --skip, --list, --ignored,
    /// --test-threads, …), runs the trials and exits: 0 when nothing failed, 101 otherwise
    /// (a recording run too, when it records failures). [`WRITE_BASELINE_ENV`] set to a file
    /// records the baseline there. In a child process of [`isolate`](Harness::isolate), runs
    /// that child's one data set instead.
    pub fn run(mut self) -> ! {
        if let Some(request) = isolate::ChildRequest::from_env() {
            self.run_child(&request);
        }
        if let Some(path) = std::env::var_os(WRITE_BASELINE_ENV).filter(|p| !p.is_empty()) {
            self.write_baseline = Some(PathBuf::from(path));
        }
        let args = Arguments::from_args();
        match self.execute(&args) {
            Ok(run) => run.conclusion.exit(),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(101);
            }
        }
    }

    /// The child side of [`isolate`](Harness::isolate): lists the one case, runs the one
    /// data set, writes its result.
    fn run_child(&self, request: &isolate::ChildRequest) -> ! {
        let found = Patterns::new(&self.patterns)
            .and_then(|patterns| discover(std::slice::from_ref(&request.case_dir), &patterns));
        let mut result = match found.as_deref() {
            Ok([case, ..]) if case.job_indices().contains(&request.data_set) => {
                let model = case.runnable_model(&case.decode_options(self.options.max_tensor_bytes));
                check_quietly(self.backend.as_ref(), case, request.data_set, &model, &self.options)
            }
            Ok(_) => TrialResult::not_loadable(
                &request.name,
                format!(
                    "the child process found no data set {} in {}",
                    request.data_set,
                    request.case_dir.display()
                ),
            ),
            Err(e) => {
                TrialResult::not_loadable(&request.name, format!("the child process could not list the case: {e}"))
            }
        };
        // Listed alone, the case's id is its directory's name: the result keeps the trial's.
        result.name.clone_from(&request.name);
        if let Err(e) = isolate::write_result(&request.result, &result) {
            eprintln!("error: writing {}: {e}", request.result.display());
            std::process::exit(101);
        }
        std::process::exit(0)
    }
}

/// Checks a data set with the backend's panics kept off stderr (their message is the
/// trial's failure, with where it happened).
fn check_quietly(
    backend: &dyn Backend,
    case: &TestCase,
    index: usize,
    model: &Result<Model, CaseError>,
    options: &CheckOptions,
) -> TrialResult {
    let (outcome, location) = quiet_panics::quietly(|| check_data_set_with(backend, case, index, model, options));
    TrialResult::new(&outcome, location)
}

/// The trial's verdict against the baseline.
fn judge(baseline: &Baseline, result: TrialResult) -> Result<Completion, libtest_mimic::Failed> {
    if matches!(result.status, Status::Skipped | Status::Unsupported) {
        return Ok(Completion::ignored_with(result.message));
    }
    // A failure on a basis the run does not gate on (a project rule, an undefined corner)
    // is not the backend's regression.
    if result.is_non_gating_failure() {
        return Ok(Completion::Completed);
    }
    match baseline.finding(&result.name, result.status) {
        // A verdict that changed with the corpus is not the backend's doing either.
        GateResult::Agrees | GateResult::ExpectedFailure | GateResult::CorpusChange { .. } => Ok(Completion::Completed),
        GateResult::Regression => Err(result.message.into()),
        GateResult::UnexpectedPass(known) => Err(format!(
            "listed as a known failure ({}) but passed: remove it from the baseline",
            known.reason
        )
        .into()),
        GateResult::ChangedStatus(known) => Err(format!(
            "listed as {} ({}) but {} now: update the baseline\n{}",
            known.status.name(),
            known.reason,
            result.status.name(),
            result.message
        )
        .into()),
    }
}

/// The command that records a missing baseline for the running gate:
/// `PAD_CONFORMANCE_WRITE_BASELINE=known-failures.json cargo test --test my_gate`.
fn record_command(path: &Path) -> String {
    let exe = std::env::current_exe().ok();
    let target = exe.as_deref().and_then(|exe| {
        // cargo names test binaries NAME-HASH, in deps/ for tests and examples/ for examples.
        let stem = exe.file_stem()?.to_str()?;
        let name = stem.rsplit_once('-').map_or(stem, |(name, _)| name);
        let kind = match exe.parent()?.file_name()?.to_str()? {
            "examples" => "--example",
            _ => "--test",
        };
        Some(format!(" {kind} {name}"))
    });
    format!(
        "{WRITE_BASELINE_ENV}={} cargo test{}",
        path.display(),
        target.unwrap_or_default()
    )
}
