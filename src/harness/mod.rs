//! The libtest-mimic glue shared by this crate's `tests/` and downstream crates: one trial
//! per case and data set, named by case id, run through `check_data_set` (the case's
//! model read once for all its data sets).
//!
//! ```no_run
//! // tests/conformance.rs of a backend crate, with `harness = false` in Cargo.toml:
//! use pad_conformance::RefBackend;
//! use pad_conformance::Harness;
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
mod reports;
mod summary;
mod trial_result;

use trial_result::TrialRef;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Conclusion, Trial};

pub(crate) use summary::HarnessSummary;

use crate::backend::Backend;
use crate::case::error::Error;
use crate::case::shared_model::SharedModel;
use crate::case::{CaseError, Patterns, TestCase, discover, discover_in};
use crate::data::basis::Gating;
use crate::data::digest::selection_digest;
use crate::data::output_paths::{OutputPathError, check_outputs};
use crate::data::{DataRoot, corpus_versions};
use crate::gate::baseline::{Baseline, BaselineError};
use crate::gate::config::{ConfigName, ConfigNameError};
use crate::gate::judging::Discovered;
use crate::gate::recording::Ran;
use crate::gate::refused_operator::{RefusedOperator, refused_operators};
use crate::judge::check::{CheckOptions, Outcome, Status, check_data_set_with};
use crate::judge::gate_result::GateResult;
use crate::judge::profile::Profile;
use crate::judge::retry::settle;
use crate::judge::survival::{self, Survival};
use crate::judge::tolerance::Tolerance;
use crate::model::Model;
use crate::report::{RunFacts, RunReport};
use reports::Reports;

/// Why the harness cannot build or finish its trials.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// The cases cannot be discovered.
    #[error(transparent)]
    Cases(#[from] Error),
    /// The baseline cannot be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// [`Harness::retries`] or `PAD_CONFORMANCE_RETRIES` asks for more retries than the bound, or
    /// the variable is not a number.
    #[error("{from} {value:?}: give a whole number of retries from 0 to {max}", max = crate::judge::retry::MAX_RETRIES)]
    Retries {
        /// Where it was asked: `Harness::retries`, or the variable's name.
        from: &'static str,
        /// What was asked.
        value: String,
    },
    /// Under [`Harness::strict_corpus`]: the baseline records no version of the corpus.
    #[error("{0} (strict_corpus)")]
    Unversioned(String),
    /// The configuration's name is not one.
    #[error("{from}: {source}")]
    Config {
        /// Where it was given: `Harness::config`, `PAD_CONFORMANCE_CONFIG`.
        from: &'static str,
        /// Why it is not a name.
        #[source]
        source: ConfigNameError,
    },
    /// A report cannot be written.
    #[error("writing {}: {source}", crate::text::shown_path(path))]
    Write {
        /// The report's file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A baseline or report is to be written at the end of a run whose trials each run in a
    /// process of their own (cargo-nextest): each would hold one trial.
    #[error(
        "cargo-nextest runs each trial in its own process, so the {what} written at the end of the run would hold one trial's result; write it from one process: cargo test --test <this gate>"
    )]
    ProcessPerTrial {
        /// What was to be written: `baseline`, `report`.
        what: &'static str,
    },
    /// The profile handed to [`Harness::profile`] leaves every data set unsupported.
    #[error(transparent)]
    Profile(#[from] crate::judge::profile::ProfileError),
}

impl From<crate::data::corpus_error::CorpusError> for HarnessError {
    fn from(error: crate::data::corpus_error::CorpusError) -> HarnessError {
        HarnessError::Cases(error.into())
    }
}

/// The environment variable that makes [`Harness::run`] record the run's failures as a
/// baseline, into the file it names.
pub const WRITE_BASELINE_ENV: &str = "PAD_CONFORMANCE_WRITE_BASELINE";

/// The environment variable that names the configuration [`Harness::run`] runs in (as
/// [`Harness::config`] does).
pub(crate) const CONFIG_ENV: &str = "PAD_CONFORMANCE_CONFIG";

/// The environment variable that makes [`Harness::run`] write a JSON report to the file it names.
pub(crate) const JSON_REPORT_ENV: &str = "PAD_CONFORMANCE_JSON_REPORT";

/// The environment variable that makes [`Harness::run`] write a JUnit XML report to the file it names.
pub(crate) const JUNIT_REPORT_ENV: &str = "PAD_CONFORMANCE_JUNIT_REPORT";

/// The environment variable that sets [`Harness::retries`] for [`Harness::run`].
pub(crate) const RETRIES_ENV: &str = "PAD_CONFORMANCE_RETRIES";

/// The per-trial time limit of [`Harness::isolate`] unless [`Harness::time_limit`] sets one.
pub(crate) const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Builds and runs the trials of a backend over case roots.
pub struct Harness {
    backend: Arc<dyn Backend>,
    roots: Vec<PathBuf>,
    patterns: Vec<String>,
    options: CheckOptions,
    baseline: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    isolation: Option<Duration>,
    /// Time limits of their own: a data set's name (`case/N`) or a case's id, and its limit.
    trial_limits: Vec<(String, Duration)>,
    /// Retries of a data set whose child crashed or timed out; a value over the bound is an
    /// error when the run starts.
    retries: Result<u32, HarnessError>,
    strict_corpus: bool,
    config: Option<String>,
    require_tracking: bool,
    reports: Reports,
}

/// What a run of the harness found.
pub struct HarnessRun {
    /// libtest's counts.
    pub conclusion: Conclusion,
    /// The harness's own: known failures, new ones, lossy passes.
    pub summary: HarnessSummary,
    /// Each trial that ran, with its verdict and gate result, in the order they finished.
    pub results: Vec<Outcome>,
    /// The operator versions whose must-refuse data sets passed only because the backend
    /// refuses the operator outright (each also a warning on standard error).
    pub refused_operators: Vec<RefusedOperator>,
}

/// The trials, and what the run needs to judge and record them afterwards.
struct Built {
    trials: Vec<Trial>,
    results: Arc<Mutex<Vec<Outcome>>>,
    baseline: Arc<Baseline>,
    discovered: Discovered,
    roots: Vec<DataRoot>,
    /// The children of an isolated run, ended when its trials are done.
    pool: Option<Arc<isolate::Pool>>,
    /// The retries asked for, checked.
    retries: u32,
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
            trial_limits: Vec::new(),
            retries: Ok(0),
            strict_corpus: false,
            config: None,
            require_tracking: false,
            reports: Reports::default(),
        }
    }

    /// Adds a directory to search for cases. Without any, the harness runs the command
    /// line's default data (`default_root`): the bundled cases
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

    /// How outputs are compared (default [`Tolerance::Exact`]: values bit for bit, every NaN
    /// matching every NaN). Like every setter here, it changes only its own setting, so the
    /// builder's methods give the same harness in any order.
    pub fn tolerance(mut self, tolerance: Tolerance) -> Harness {
        self.options.tolerance = tolerance;
        self
    }

    /// Every bit, NaN payloads too: the command line's `--exact`.
    pub fn exact(self) -> Harness {
        self.tolerance(Tolerance::Bitwise)
    }

    /// Finite floating values pass when at most `n` values of their format apart: the
    /// command line's `--ulps`, for a backend that knowingly computes in a narrower type.
    pub fn ulps(self, n: u64) -> Harness {
        self.tolerance(Tolerance::Ulps(n))
    }

    /// The largest tensor a file may declare, in bytes (default
    /// [`DEFAULT_MAX_BYTES`](crate::tensor::DEFAULT_MAX_BYTES)).
    pub fn max_tensor_bytes(mut self, bytes: u64) -> Harness {
        self.options.max_tensor_bytes = bytes;
        self
    }

    /// A refusal that names another spec rule than the data set breaks fails its trial,
    /// instead of passing with a note (docs/semantics.md#refusal-rules).
    pub fn strict_rules(mut self) -> Harness {
        self.options.strict_rules = true;
        self
    }

    /// A verdict that changed with the corpus since the baseline was written fails its
    /// trial, and a baseline that records no corpus version is an error: the baseline must
    /// be re-recorded (the command line's `--strict-corpus`).
    pub fn strict_corpus(mut self) -> Harness {
        self.strict_corpus = true;
        self
    }

    /// The configuration this gate runs in (`linux-x64-cpu`, `debug`; also set by
    /// `PAD_CONFORMANCE_CONFIG`, which wins), as the command line's `--config`: the
    /// baseline's entries that list configurations apply only in those they list, matched
    /// exactly, and a recording touches only this configuration's entries. Without it the run
    /// is the unnamed configuration, where only entries for every configuration apply. A name
    /// is 1 to 64 letters, digits, `.`, `_` or `-`; another is an error when the run starts.
    ///
    /// ```no_run
    /// # use pad_conformance::{Harness, RefBackend};
    /// // One baseline for a debug and a release build: entries list where they apply.
    /// let config = if cfg!(debug_assertions) { "debug" } else { "release" };
    /// Harness::new(RefBackend).config(config).baseline("known-failures.json").run();
    /// ```
    pub fn config(mut self, name: impl Into<String>) -> Harness {
        self.config = Some(name.into());
        self
    }

    /// Fails the run when a known failure in force for this configuration has no
    /// `tracking` link (the command line's `--require-tracking`): one trial names them.
    pub fn require_tracking(mut self) -> Harness {
        self.require_tracking = true;
        self
    }

    /// Writes the run's report, as the command line's `--format json` does, to `path`
    /// (also set by `PAD_CONFORMANCE_JSON_REPORT`).
    pub fn json_report(mut self, path: impl Into<PathBuf>) -> Harness {
        self.reports.json = Some(path.into());
        self
    }

    /// Writes the run's JUnit XML report to `path` (also set by `PAD_CONFORMANCE_JUNIT_REPORT`): known
    /// failures are skipped test cases with the baseline's reason, so a green gate is green in
    /// every CI viewer.
    pub fn junit_report(mut self, path: impl Into<PathBuf>) -> Harness {
        self.reports.junit = Some(path.into());
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

    /// Runs the data sets in child processes — this test binary, re-executed — so that an
    /// abort, a segfault or a stack overflow in the backend errors that one trial, naming the
    /// signal, and the rest run. A child serves many trials and is replaced when it dies; its
    /// crash is the verdict of the trial it was running, also after serving others, and only
    /// [`retries`](Harness::retries) runs that trial again. Each trial gets 60 s unless
    /// [`time_limit`](Harness::time_limit) says otherwise. The children re-enter the binary's
    /// `main`, which must build the same harness and call [`run`](Harness::run); whatever
    /// `main` does before that (loading a runtime, say) is done again in each child, once.
    /// Under cargo-nextest, which runs each trial in a process of its own, trials run in it.
    pub fn isolate(mut self) -> Harness {
        self.isolation.get_or_insert(DEFAULT_TIME_LIMIT);
        self
    }

    /// Runs a data set whose child process crashed or timed out again, alone in a fresh
    /// child, up to `n` times (0 to 10; also set by `PAD_CONFORMANCE_RETRIES`); isolates
    /// the data sets (as [`isolate`](Harness::isolate)) when `n` is not 0. With 0, the
    /// default, a crash is the trial's verdict, also in a child that served others. One that
    /// then answers twice alike passes, counted in the harness's summary ("passed after a
    /// crash or timeout") and marked "passed after a crash" in every report (the JSON report's
    /// `retry`, the JUnit property `retry`): libtest's line for the trial is named before it
    /// runs. Two different answers (other bytes) fail it. A crash is never a refusal: a data
    /// set that must be refused passes after a crash only when refused twice after it. Under
    /// cargo-nextest, whose `--retries` reruns a failed process, trials run in its processes
    /// and are not retried here.
    pub fn retries(mut self, n: u32) -> Harness {
        self.retries = if n <= crate::judge::retry::MAX_RETRIES {
            Ok(n)
        } else {
            Err(HarnessError::Retries {
                from: "Harness::retries",
                value: n.to_string(),
            })
        };
        if n > 0 {
            self.isolation.get_or_insert(DEFAULT_TIME_LIMIT);
        }
        self
    }

    /// Isolates each data set (as [`isolate`](Harness::isolate)) and kills its child process
    /// after `limit`: the trial errors, saying it timed out. A child's start (the binary's
    /// `main`, the cases' discovery) has this limit too, before its trial's begins.
    pub fn time_limit(mut self, limit: Duration) -> Harness {
        self.isolation = Some(limit);
        self
    }

    /// Isolates each data set (as [`isolate`](Harness::isolate)) and gives the trials of
    /// `name` — a data set (`test_reflect_pad/0`) or a case id, every data set of it — a
    /// time limit of their own, the last given winning: a data set known to hang need not
    /// cost the whole limit every run, and one known to be slow may have more, while every
    /// other trial keeps the gate's generous one. A short limit is safe only where the trial
    /// cannot finish anyway: on a busy machine, a trial meant to finish takes several times
    /// as long as on an idle one.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use pad_conformance::{Harness, RefBackend};
    /// // Listed in the baseline as timing out: it is killed after 5 s, not 60.
    /// Harness::new(RefBackend)
    ///     .time_limit_for("test_reflect_pad/0", Duration::from_secs(5))
    ///     .baseline("known-failures.json")
    ///     .run();
    /// ```
    pub fn time_limit_for(mut self, name: impl Into<String>, limit: Duration) -> Harness {
        self.isolation.get_or_insert(DEFAULT_TIME_LIMIT);
        self.trial_limits.push((name.into(), limit));
        self
    }

    /// The time limit of data set `index` of `case`: its own, or else the gate's.
    fn limit_of(&self, case: &TestCase, index: usize, gate: Duration) -> Duration {
        let name = case.data_set_name(index);
        self.trial_limits
            .iter()
            .rev()
            .find(|(of, _)| *of == name || *of == case.id)
            .map_or(gate, |(_, limit)| *limit)
    }

    /// One trial per case and data set. Not-applicable cases are ignored trials; a case whose
    /// model cannot be read is a trial that fails with the reason.
    pub(crate) fn trials(&self) -> Result<Vec<Trial>, HarnessError> {
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

    /// The configuration's name, checked.
    fn config_name(&self) -> Result<Option<ConfigName>, HarnessError> {
        let from = match std::env::var_os(CONFIG_ENV) {
            Some(_) => CONFIG_ENV,
            None => "Harness::config",
        };
        self.config
            .as_deref()
            .map(ConfigName::new)
            .transpose()
            .map_err(|source| HarnessError::Config { from, source })
    }

    fn build(&self) -> Result<Built, HarnessError> {
        // The same resolver as the command line's: the same data gives the same corpus.
        let roots = DataRoot::resolve(&self.roots)?;
        let patterns = Patterns::new(&self.patterns)?;
        // Checked first: a bad name is the gate's own mistake, whatever the data.
        self.config_name()?;
        let cases = discover_in(&roots, &patterns)?;
        // The command line's warnings: a copy of a bundled data set that said otherwise.
        for disagreement in cases.iter().flat_map(TestCase::disagreements) {
            eprintln!(
                "pad-conformance: warning: {}",
                crate::text::escape_line(&disagreement.to_string())
            );
        }
        let baseline = Arc::new(self.read_baseline(&roots)?.for_config(self.config_name()?));
        let results = Arc::new(Mutex::new(Vec::new()));
        let retries = match &self.retries {
            Ok(n) => *n,
            Err(HarnessError::Retries { from, value }) => {
                return Err(HarnessError::Retries {
                    from,
                    value: value.clone(),
                });
            }
            Err(_) => 0,
        };
        // cargo-nextest runs each trial in a process of its own already.
        let pool = self
            .isolation
            .filter(|_| !reports::under_nextest())
            .map(|limit| Arc::new(isolate::Pool::new(limit)));
        let mut trials = Vec::new();
        let discovered = Discovered::new(&cases, !self.patterns.is_empty());
        for case in cases {
            let case = Arc::new(case);
            let operator = self.describe(&case);
            // The model, decoded once for all its data sets.
            let model = Arc::new(SharedModel::new(case.job_indices().len()));
            for index in case.job_indices() {
                let name = case.data_set_name(index);
                // Known before it runs: whether an answer gates. A crash gates on every basis
                // (docs/semantics.md#basis), which only the run can tell.
                let basis = case.basis_of(index).kind;
                let answers_gate = survival::gates(&self.options.gating, basis, Survival::Answered);
                // What is known of the trial before it runs, shown beside its name as known
                // failures are: the baseline lists it, its basis does not gate, or the corpus
                // changed its expected result since the baseline was written.
                let mut kind = operator.clone();
                let marks = [
                    (baseline.in_force(&name).is_some(), "known failure".to_owned()),
                    (!answers_gate, format!("answers not gating: {basis} basis")),
                    (
                        baseline.changed_with_corpus.contains_key(&name),
                        "changed with the corpus".to_owned(),
                    ),
                ];
                for (_, mark) in marks.into_iter().filter(|(applies, _)| *applies) {
                    if !kind.is_empty() {
                        kind.push_str(", ");
                    }
                    kind.push_str(&mark);
                }
                let run = self.runner(Arc::clone(&case), index, Arc::clone(&model), pool.clone(), retries);
                let (baseline, results) = (Arc::clone(&baseline), Arc::clone(&results));
                let strict_corpus = self.strict_corpus;
                let recording = self.write_baseline.is_some();
                let trial = Trial::ignorable_test(name, move || {
                    let mut outcome = run();
                    let gate = baseline.gate(&outcome);
                    let completion = match completion(&outcome, &gate, strict_corpus) {
                        // Recorded, not failed: the run's purpose is to list it.
                        Err(_) if recording => Ok(Completion::Completed),
                        judged => judged,
                    };
                    outcome.gate = Some(gate);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(outcome);
                    completion
                });
                trials.push(trial.with_kind(kind));
            }
        }
        // Entries naming no data set (renamed or removed since): one trial that lists them,
        // unless this run records the baseline, which drops them.
        let stale = baseline.stale(|name| discovered.contains(name));
        if !stale.is_empty() && self.write_baseline.is_none() {
            trials.push(Trial::test("baseline: entries for no data set", move || {
                Err(format!("remove them from the baseline:\n  {}", stale.join("\n  ")).into())
            }));
        }
        let untracked = baseline.untracked(|name| discovered.contains(name));
        if self.require_tracking && !untracked.is_empty() && self.write_baseline.is_none() {
            trials.push(Trial::test(
                "baseline: known failures without a tracking link",
                move || {
                    Err(format!(
                        "give each a \"tracking\" link to its bug (require_tracking):\n  {}",
                        untracked.join("\n  ")
                    )
                    .into())
                },
            ));
        }
        Ok(Built {
            trials,
            results,
            baseline,
            discovered,
            roots,
            pool,
            retries,
        })
    }

    /// What a trial runs: the check in this process, panics quiet, or in a child of `pool`,
    /// retried `retries` times after a crash or time-out.
    fn runner(
        &self,
        case: Arc<TestCase>,
        index: usize,
        model: Arc<SharedModel>,
        pool: Option<Arc<isolate::Pool>>,
        retries: u32,
    ) -> impl FnOnce() -> Outcome + Send + 'static {
        let (backend, options) = (Arc::clone(&self.backend), self.options.clone());
        let limit = pool.as_ref().map_or(DEFAULT_TIME_LIMIT, |pool| {
            self.limit_of(&case, index, pool.time_limit())
        });
        move || match pool {
            Some(pool) => {
                let trial = TrialRef {
                    case: &case,
                    index,
                    gating: &options.gating,
                    backend: backend.name(),
                };
                // A crash in a child that served others is this trial's first try all the
                // same: the retry rule alone may run it again, so no pass hides a crash.
                let first = pool.run(&trial, limit);
                settle(first, retries, (backend.name(), &options.gating), || {
                    pool.run_alone(&trial, limit)
                })
            }
            None => {
                let model = model.get(&case, &case.decode_options(options.max_tensor_bytes));
                check_quietly(backend.as_ref(), &case, index, &model, &options)
            }
        }
    }

    /// The trial kind: the operator the case checks (`Pad-19`), when its model reads.
    fn describe(&self, case: &TestCase) -> String {
        let Ok(model) = case.load_model(&case.decode_options(self.options.max_tensor_bytes)) else {
            return String::new();
        };
        model.pad_nodes().next().map(|(n, _)| n.label()).unwrap_or_default()
    }

    /// Runs the trials `args` selects, prints the harness's summary after libtest's, and
    /// records the baseline if asked to.
    pub(crate) fn execute(self, args: &Arguments) -> Result<HarnessRun, HarnessError> {
        if !args.list && reports::under_nextest() {
            for (asked, what) in [
                (self.write_baseline.is_some(), "baseline"),
                (self.reports.any(), "report"),
            ] {
                if asked {
                    return Err(HarnessError::ProcessPerTrial { what });
                }
            }
        }
        // Before the run, not after it: a report over the baseline, a report that is a
        // directory, a target that is no baseline, or cannot be written.
        self.check_outputs()?;
        self.options.profile.check_built()?;
        if let Some(path) = &self.write_baseline {
            Baseline::check_recordable(path, self.config_name()?.as_ref())?;
        }
        let built = self.build()?;
        if self.strict_corpus
            && let Some(path) = &self.baseline
            && let Some(warning) = built.baseline.unversioned_warning(path, &record_command(path))
        {
            return Err(HarnessError::Unversioned(warning));
        }
        let start = std::time::Instant::now();
        let conclusion = libtest_mimic::run(args, built.trials);
        // Every trial is done: the run ends its children before it reports.
        if let Some(pool) = &built.pool {
            pool.end();
        }
        let mut results = std::mem::take(&mut *built.results.lock().unwrap_or_else(|e| e.into_inner()));
        // In the order of the trials' names, not the order threads finished them.
        results.sort_by(|a, b| (&a.id, a.data_set).cmp(&(&b.id, b.data_set)));
        let report = RunReport {
            backend: self.backend.name().to_owned(),
            baseline: self
                .baseline
                .as_ref()
                .map(|_| built.baseline.judge(&results, |name| built.discovered.contains(name))),
            outcomes: results,
            duration: start.elapsed(),
            runtime: self.backend.runtime(),
            shard: None,
            run: None,
        };
        // What `merge` and `diff` check, as the command line records them: the harness runs
        // what libtest selected to its end (a process that dies writes no report).
        let run = RunFacts {
            complete: true,
            gating: self.options.gating.names(),
            tolerance: self.options.tolerance.to_string(),
            profile: self.options.profile.digest.0.clone(),
            inputs_as_constants: self.options.inputs_as_constants,
            strict_rules: self.options.strict_rules,
            corpora: corpus_versions(&built.roots),
            selection: selection_digest(report.outcomes.iter().map(Outcome::name)),
            config: built.baseline.config.as_ref().map(ToString::to_string),
            retries: built.retries,
        };
        let report = RunReport {
            run: Some(run),
            ..report
        };
        let summary = HarnessSummary::new(&report);
        // Not after a listing, and not into libtest's JSON, which a tool parses.
        if !args.list && args.format != Some(libtest_mimic::FormatSetting::Json) {
            println!("{summary}\n");
        }
        // The command line's warning, from the same decision.
        let refused_operators = refused_operators(&report.outcomes);
        for operator in &refused_operators {
            eprintln!("pad-conformance: {operator}");
        }
        if !args.list {
            self.reports.write(&report)?;
        }
        if let Some(path) = &self.write_baseline {
            // The command line's rules: only a baseline is replaced, merged under a lock.
            let names: Vec<String> = report.outcomes.iter().map(Outcome::name).collect();
            let config = built.baseline.config.as_ref();
            let recorded = Baseline::record_into(path, Some(&built.baseline), config, |previous| {
                let ran = report.outcomes.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
                Baseline::record(self.backend.name(), &built.roots, ran, previous, config, |name| {
                    built.discovered.contains(name)
                })
            })?;
            println!("pad-conformance: {}\n", recorded.describe(path));
        }
        Ok(HarnessRun {
            conclusion,
            summary,
            results: report.outcomes,
            refused_operators,
        })
    }

    /// Refuses reports that would replace the baseline (or each other), or that are
    /// directories; the baseline written in place of the one read stays allowed (atomic).
    fn check_outputs(&self) -> Result<(), HarnessError> {
        let outputs = [
            ("JSON report", self.reports.json.as_deref()),
            ("JUnit report", self.reports.junit.as_deref()),
            ("baseline to write", self.write_baseline.as_deref()),
        ];
        let inputs = [
            ("baseline", self.baseline.as_deref()),
            ("baseline to write", self.write_baseline.as_deref()),
        ];
        let in_place = [
            ("baseline to write", "baseline"),
            ("baseline to write", "baseline to write"),
        ];
        check_outputs(&outputs, &inputs, &in_place).map_err(|e| {
            let path = match &e {
                OutputPathError::OverInput { path, .. }
                | OutputPathError::TwoOutputs { path, .. }
                | OutputPathError::Directory { path, .. } => path.clone(),
            };
            HarnessError::Write {
                path,
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e),
            }
        })
    }

    /// Parses libtest's command line (filter, --exact, --skip, --list, --ignored,
    /// --test-threads, …), runs the trials and exits: 0 when nothing failed, 101 otherwise.
    /// [`WRITE_BASELINE_ENV`] set to a file records the baseline there (creating the file
    /// and its directory): the trials it records pass, the path and the entries per kind
    /// are printed, and the run exits 0 once the file is written. In a child process of [`isolate`](Harness::isolate), runs
    /// that child's one data set instead.
    pub fn run(mut self) -> ! {
        if isolate::is_child() {
            self.serve_child();
        }
        let from_env = |name: &str| std::env::var_os(name).filter(|p| !p.is_empty()).map(PathBuf::from);
        if let Some(path) = from_env(WRITE_BASELINE_ENV) {
            self.write_baseline = Some(path);
        }
        if let Some(name) = std::env::var_os(CONFIG_ENV) {
            self.config = Some(name.to_string_lossy().into_owned());
        }
        if let Some(path) = from_env(JSON_REPORT_ENV) {
            self.reports.json = Some(path);
        }
        if let Some(path) = from_env(JUNIT_REPORT_ENV) {
            self.reports.junit = Some(path);
        }
        if let Some(value) = std::env::var_os(RETRIES_ENV).filter(|v| !v.is_empty()) {
            let value = value.to_string_lossy().into_owned();
            self = match value.trim().parse::<u32>() {
                Ok(n) if n <= crate::judge::retry::MAX_RETRIES => self.retries(n),
                _ => Harness {
                    retries: Err(HarnessError::Retries {
                        from: RETRIES_ENV,
                        value,
                    }),
                    ..self
                },
            };
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

    /// The child side of [`isolate`](Harness::isolate): serves the parent's requests, each
    /// case listed alone and its model read once.
    fn serve_child(&self) -> ! {
        let cases = Mutex::new(isolate::ChildCases::new());
        // The run's cases, discovered once as the parent did (a case listed alone would pay
        // for reading its corpus each time), by directory.
        let discovered: std::sync::OnceLock<std::collections::HashMap<PathBuf, TestCase>> = std::sync::OnceLock::new();
        let discover_all = || {
            let found = DataRoot::resolve(&self.roots)
                .map_err(Error::from)
                .and_then(|roots| discover_in(&roots, &Patterns::new(&self.patterns)?));
            found
                .unwrap_or_default()
                .into_iter()
                .map(|c| (c.dir.clone(), c))
                .collect()
        };
        let prepare = || {
            discovered.get_or_init(discover_all);
        };
        isolate::serve(prepare, |request| {
            let listed = cases
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&request.case_dir, || {
                    let all = discovered.get_or_init(discover_all);
                    let case = match all.get(&request.case_dir) {
                        Some(case) => case.clone(),
                        None => discover(std::slice::from_ref(&request.case_dir), &Patterns::new(&self.patterns)?)?
                            .into_iter()
                            .next()
                            .ok_or_else(|| Error::NoCases {
                                roots: vec![request.case_dir.clone()],
                            })?,
                    };
                    let model = case.runnable_model(&case.decode_options(self.options.max_tensor_bytes));
                    Ok::<_, Error>((case, model))
                });
            let (case, model) = match listed.as_deref() {
                Ok(listed) => listed,
                Err(e) => {
                    return isolate::Reply::NotFound(format!("the child process could not list the case: {e}"));
                }
            };
            if !case.job_indices().contains(&request.data_set) {
                return isolate::Reply::NotFound(format!(
                    "the child process found no data set {} in {}",
                    request.data_set,
                    request.case_dir.display()
                ));
            }
            let options = CheckOptions {
                digest_answers: request.digest,
                ..self.options.clone()
            };
            isolate::Reply::Outcome(Box::new(check_quietly(
                self.backend.as_ref(),
                case,
                request.data_set,
                model,
                &options,
            )))
        })
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
) -> Outcome {
    let (mut outcome, location) = quiet_panics::quietly(|| check_data_set_with(backend, case, index, model, options));
    if let Some(location) = location
        && outcome.status == Status::Errored
    {
        outcome.message.push_str(&format!("\n  at {location}"));
    }
    outcome
}

/// What libtest shows of a trial: a function of its gate result. Not applicable and
/// unsupported data sets the baseline does not list are ignored trials saying why; known failures, non-gating failures
/// and changes with the corpus pass (their kind says so); anything else the baseline does
/// not expect fails the trial.
fn completion(outcome: &Outcome, gate: &GateResult, strict_corpus: bool) -> Result<Completion, libtest_mimic::Failed> {
    match gate {
        GateResult::ChangedWithCorpus { why, .. } if strict_corpus => Err(format!(
            "changed with the corpus ({why}); the baseline must be re-recorded\n{}",
            outcome.message
        )
        .into()),
        _ if matches!(outcome.status, Status::Skipped | Status::Unsupported) => {
            Ok(Completion::ignored_with(outcome.message.clone()))
        }
        GateResult::Agrees
        | GateResult::NotGating
        | GateResult::KnownFailure { .. }
        | GateResult::ChangedWithCorpus { .. } => Ok(Completion::Completed),
        GateResult::NewFailure => Err(outcome.message.clone().into()),
        GateResult::Fixed { reason, .. } => Err(format!(
            "listed as a known failure ({reason}) but {}: remove it from the baseline",
            outcome.status.name()
        )
        .into()),
        GateResult::ChangedStatus { was, reason } => Err(format!(
            "listed as {} ({reason}) but {} now: update the baseline\n{}",
            was.name(),
            outcome.status.name(),
            outcome.message
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::RefBackend;

    #[test]
    fn a_trial_s_own_limit_is_its_data_set_s_or_its_case_s_the_last_given_winning() {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata/onnx-1.22.0/node"));
        let cases = discover(
            &[root],
            &Patterns::new(&["test_edge_pad", "test_reflect_pad", "test_wrap_pad"]).unwrap(),
        )
        .unwrap();
        let case = |id: &str| cases.iter().find(|c| c.id == id).unwrap();
        let secs = Duration::from_secs;
        let harness = Harness::new(RefBackend)
            .time_limit_for("test_edge_pad", secs(5))
            .time_limit_for("test_edge_pad/0", secs(7))
            .time_limit_for("test_wrap_pad/0", secs(9));
        let limits = |harness: &Harness| {
            ["test_edge_pad", "test_reflect_pad", "test_wrap_pad"].map(|id| harness.limit_of(case(id), 0, secs(60)))
        };
        assert_eq!(limits(&harness), [secs(7), secs(60), secs(9)]);
        // A data set of another number is not the case's data set 0.
        assert_eq!(harness.limit_of(case("test_wrap_pad"), 1, secs(60)), secs(60));
        let harness = harness.time_limit_for("test_edge_pad", secs(3));
        assert_eq!(limits(&harness), [secs(3), secs(60), secs(9)]);
        // Isolated, with the default limit for the rest.
        assert_eq!(harness.isolation, Some(DEFAULT_TIME_LIMIT));
    }
}
