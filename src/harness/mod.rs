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
//!
//! One run writes libtest's log and every report asked for: [`Harness::json_report`],
//! [`Harness::junit_report`], [`Harness::markdown_report`] (or `PAD_CONFORMANCE_JSON_REPORT`,
//! `PAD_CONFORMANCE_JUNIT_REPORT`, `PAD_CONFORMANCE_MARKDOWN_REPORT`), each the command line's
//! report of that format: the harness prepares and finishes its run with the command line's
//! code (src/pipeline/), its trials run by libtest-mimic in between.

mod child;
mod error;
mod execute;
mod isolate;
mod quiet_panics;
mod reports;
mod summary;
mod trial_result;
mod trials;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use libtest_mimic::{Arguments, Conclusion};

pub use error::{BaselineError, CasesError, HarnessError};
pub(crate) use summary::HarnessSummary;

use crate::backend::{Backend, Driven, Gate};
use crate::data::basis::Gating;
use crate::judge::check::{CheckOptions, Outcome};
use crate::judge::profile::Profile;
use crate::judge::tolerance::Tolerance;
use reports::Reports;

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

/// The environment variable that makes [`Harness::run`] write a Markdown report to the file it names.
pub(crate) const MARKDOWN_REPORT_ENV: &str = "PAD_CONFORMANCE_MARKDOWN_REPORT";

/// The environment variable that sets [`Harness::retries`] for [`Harness::run`].
pub(crate) const RETRIES_ENV: &str = "PAD_CONFORMANCE_RETRIES";

/// The environment variable that turns [`Harness::require_verified`] on (`1`, `true`) or off
/// (`0`, `false`) for [`Harness::run`], whatever the builder said.
pub(crate) const REQUIRE_VERIFIED_ENV: &str = "PAD_CONFORMANCE_REQUIRE_VERIFIED";

/// The per-trial time limit of [`Harness::isolate`] unless [`Harness::time_limit`] sets one.
pub(crate) const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Builds and runs the trials of a backend over case roots.
pub struct Harness {
    backend: Arc<dyn Driven>,
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
    /// Whether a refusal its twin did not verify fails the run; `Err`: a value of
    /// [`REQUIRE_VERIFIED_ENV`] that says neither, an error when the run starts.
    require_verified: Result<bool, String>,
    reports: Reports,
}

/// What a run of the harness found.
pub struct HarnessRun {
    /// libtest's counts; under [`Harness::require_verified`], the refusals not verified
    /// moved from its passes to its failures.
    pub conclusion: Conclusion,
    /// The harness's own: known failures, new ones, lossy passes.
    pub summary: HarnessSummary,
    /// Each trial that ran, with its verdict, in the order of the trials' names (its gate
    /// result is counted in `summary` and written in the reports). A refusal is weighed by its
    /// twin once every trial has run: a trial that passed may be `not_verified` here.
    pub results: Vec<Outcome>,
}

impl Harness {
    /// A harness for `backend`, with no roots yet.
    pub fn new(backend: impl Backend + 'static) -> Harness {
        Harness {
            backend: Arc::new(Gate(backend)),
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
            require_verified: Ok(false),
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

    /// Fails the run when a data set that must be refused was refused but its valid twin did
    /// not pass in the same run (a refusal not verified: the backend may refuse what it lacks,
    /// not the rule), as the command line's `--require-verified` does; also set by
    /// `PAD_CONFORMANCE_REQUIRE_VERIFIED` (`1` or `true`; `0` or `false` turns it off), which
    /// wins. That is known only once every trial ran, so libtest shows each such trial `ok`:
    /// the harness's summary names them, its reports mark them failed, and the run exits 101
    /// with them counted among libtest's failures. A recording (`PAD_CONFORMANCE_WRITE_BASELINE`)
    /// fails on none: a baseline never lists them.
    pub fn require_verified(mut self) -> Harness {
        self.require_verified = Ok(true);
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
    /// every CI viewer. Feature `junit` (on by default; a gate with `default-features = false`
    /// turns it on with `features = ["junit"]`).
    #[cfg(feature = "junit")]
    pub fn junit_report(mut self, path: impl Into<PathBuf>) -> Harness {
        self.reports.junit = Some(path.into());
        self
    }

    /// Writes the run's Markdown report, as the command line's `--format markdown` does, to
    /// `path` (also set by `PAD_CONFORMANCE_MARKDOWN_REPORT`): a summary and a table of what
    /// did not pass, for a pull-request comment. One run writes every report asked for.
    pub fn markdown_report(mut self, path: impl Into<PathBuf>) -> Harness {
        self.reports.markdown = Some(path.into());
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
        if let Some(path) = from_env(MARKDOWN_REPORT_ENV) {
            self.reports.markdown = Some(path);
        }
        if let Some(value) = std::env::var_os(REQUIRE_VERIFIED_ENV).filter(|v| !v.is_empty()) {
            let value = value.to_string_lossy().into_owned();
            self.require_verified = match value.trim() {
                "1" | "true" => Ok(true),
                "0" | "false" => Ok(false),
                _ => Err(value),
            };
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
}
