//! How a command's [`Checking`] options run and judge data sets: the check options and the
//! tolerance, the backend and its retries, and the command that reruns one data set as it
//! was checked.

use std::path::PathBuf;

use crate::backend::{Driven, Language};
use crate::cli::args::{Checking, Selection};
use crate::cli::backend_spec::{backend_and_language, backend_from_spec, rerun_environment, worker_timeout};
use crate::cli::fatal::Fatal;
use crate::cli::scoreboard::Rerun;
use crate::cli::signals;
use crate::data::basis::Gating;
use crate::judge::check::{CheckOptions, Outcome};
use crate::judge::compare::Tolerance;
use crate::judge::profile::Profile;
use crate::report::RunReport;
use crate::run::runner::{Job, Retries, default_threads, run_jobs_retrying};

impl Checking {
    pub(super) fn options(&self, max_tensor_bytes: u64) -> Result<CheckOptions, Fatal> {
        Ok(CheckOptions {
            tolerance: self.tolerance(),
            max_tensor_bytes,
            gating: Gating::from_names(&self.basis)?,
            profile: Profile::everything(),
            inputs_as_constants: self.inputs_as_constants,
            strict_rules: self.strict_rules,
            digest_answers: false,
        })
    }

    /// The one tolerance model of the run; clap has refused two.
    fn tolerance(&self) -> Tolerance {
        match (self.rtol, self.atol, self.ulps) {
            (None, None, None) if self.exact => Tolerance::Bitwise,
            (None, None, None) => Tolerance::Exact,
            (None, None, Some(n)) => Tolerance::Ulps(n),
            (rtol, atol, _) => Tolerance::Approx {
                rtol: rtol.unwrap_or(0.0),
                atol: atol.unwrap_or(0.0),
            },
        }
    }

    pub(super) fn backend(&self, spec: &str, max_tensor_bytes: u64) -> Result<Box<dyn Driven>, Fatal> {
        backend_from_spec(spec, worker_timeout(self.timeout)?, max_tensor_bytes)
    }

    /// [`Checking::backend`], with how its author speaks, for the words of the recap's hint.
    pub(super) fn backend_and_language(
        &self,
        spec: &str,
        max_tensor_bytes: u64,
    ) -> Result<(Box<dyn Driven>, Language), Fatal> {
        backend_and_language(spec, worker_timeout(self.timeout)?, max_tensor_bytes)
    }

    /// Runs `jobs` on `backend` (`spec`), retrying a crash or timeout on a fresh backend of
    /// the same spec as `--retries` says.
    pub(super) fn run_jobs(
        &self,
        (spec, backend): (&str, &dyn Driven),
        jobs: &[Job<'_>],
        options: &CheckOptions,
        max_tensor_bytes: u64,
        finished: &mut dyn FnMut(&Outcome),
    ) -> RunReport {
        let fresh = || self.backend(spec, max_tensor_bytes).map_err(|e| e.0);
        let retries = (self.retries > 0).then_some(Retries {
            max: self.retries,
            fresh: &fresh,
        });
        run_jobs_retrying(
            backend,
            jobs,
            options,
            self.threads(),
            &signals::cancel(),
            retries,
            finished,
        )
    }

    pub(super) fn threads(&self) -> usize {
        self.jobs.unwrap_or_else(default_threads)
    }

    /// The command that reruns one data set of backend `spec` as this run checked it: the
    /// options that change a verdict, when they are not the defaults, and the paths; for a
    /// per-case command, the variables that keep its files and script ([`rerun_environment`]).
    pub(super) fn rerun(&self, spec: &str, selection: &Selection, profile: Option<&PathBuf>) -> Rerun {
        let mut options = Vec::new();
        if let Some(profile) = profile {
            options.extend(["--profile".to_owned(), profile.display().to_string()]);
        }
        let gating = Gating::from_names(&self.basis).map(|g| g.names()).unwrap_or_default();
        if gating != Gating::default().names() {
            options.extend(["--basis".to_owned(), gating]);
        }
        if self.inputs_as_constants {
            options.push("--inputs-as-constants".to_owned());
        }
        if self.strict_rules {
            options.push("--strict-rules".to_owned());
        }
        match self.tolerance() {
            Tolerance::Exact => {}
            Tolerance::Bitwise => options.push("--exact".to_owned()),
            // An option not given is 0; both 0 still name the model.
            Tolerance::Approx { rtol, atol } => {
                if rtol != 0.0 {
                    options.extend(["--rtol".to_owned(), rtol.to_string()]);
                }
                if atol != 0.0 || rtol == 0.0 {
                    options.extend(["--atol".to_owned(), atol.to_string()]);
                }
            }
            Tolerance::Ulps(n) => options.extend(["--ulps".to_owned(), n.to_string()]),
        }
        for pattern in &selection.patterns {
            options.extend(["--pattern".to_owned(), pattern.clone()]);
        }
        let paths: Vec<String> = selection.paths.iter().map(|p| p.display().to_string()).collect();
        let paths = if paths == ["onnx-testdata"] { Vec::new() } else { paths };
        Rerun::new(spec, &options, &paths).with_environment(rerun_environment(spec))
    }
}
