//! The command line over the library: argument types ([`args`]) and one module per command.
//! Every rule the CLI applies that the harness applies too lives in the library.

pub(crate) mod args;
mod backend_spec;
mod bench;
mod check;
mod coverage_table;
mod diff;
mod failure_groups;
mod findings;
mod fuzz;
mod fuzz_json;
mod fuzz_merge;
mod fuzz_out;
mod history;
mod listing;
mod matrix;
mod matrix_report;
mod matrix_table;
mod merge;
mod merge_profile;
mod output;
mod promote;
mod promote_corpus;
mod promote_finding;
mod rules;
mod run_diff;
mod scoreboard;
mod second_oracle;
pub(crate) mod signals;
#[cfg(test)]
mod verdict_wording;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::backend::Backend;
use crate::case::{Patterns, TestCase, discover_until};
use crate::cli::backend_spec::{backend_from_spec, worker_timeout};
use crate::cli::scoreboard::Rerun;
use crate::data::DataRoot;
use crate::data::basis::Gating;
use crate::judge::check::{CheckOptions, Outcome};
use crate::judge::profile::Profile;
use crate::judge::tolerance::Tolerance;
use crate::report::RunReport;
use crate::run::runner::{Job, Retries, default_threads, jobs, run_jobs_retrying};
use crate::run::selection::select;

use args::{Checking, Cli, Command, Selection};

/// The `pad-conformance` command: parses arguments, calls the library, maps the outcome to
/// an exit code (0 success, 1 a check failed, 2 a usage or infrastructure error).
pub(crate) fn main() -> ExitCode {
    use clap::Parser;
    let args = match args::Cli::try_parse() {
        Ok(args) => args,
        Err(error) => return usage_error(error),
    };
    signals::install();
    adopt_detached(&args);
    let result = dispatch(&args);
    // However the command ended (a signal's unwinding included), what its commands detached
    // ends with it.
    crate::backend::end_detached(crate::backend::After::RunEnded);
    // A command that unwound from a signal (to remove its scratch) ends as the signal says.
    if let Some(code) = signals::interrupted() {
        // Its error follows from the signal (a worker the signal killed), not the other way.
        if result.is_err() {
            eprintln!("pad-conformance: interrupted; no report written");
        }
        return code;
    }
    match result {
        Ok(code) => code,
        Err(Fatal(message)) => {
            // Errors quote paths and values from the data: shown, never executed.
            eprintln!("pad-conformance: {}", crate::text::escape_text(&message));
            ExitCode::from(2)
        }
    }
}

/// Makes the binary the subreaper of what it starts (Linux), so that it can end what a command
/// started in a session of its own (backend/detached.rs), unless `--keep-detached` says such
/// processes are meant to outlive their command: then nothing is adopted, and they are left to
/// the system as they would be without the runner.
fn adopt_detached(cli: &Cli) {
    let keep = match &cli.command {
        None => cli.run.checking.keep_detached,
        Some(Command::Matrix(args)) => args.checking.keep_detached,
        Some(Command::Fuzz(args)) => args.checking.keep_detached,
        Some(_) => false,
    };
    if keep {
        return;
    }
    if let Err(e) = crate::platform::adopt_orphans() {
        eprintln!(
            "pad-conformance: warning: cannot adopt what commands start (PR_SET_CHILD_SUBREAPER: {e}): \
             a process a command starts in a session of its own may outlive the run"
        );
    }
}

/// clap's answer to arguments it cannot parse (or to `--help`, `--version`). clap quotes a bad
/// value as it was given; one holding a control character (a newline that would forge a line
/// of the output, an ESC) is shown escaped instead, as every error of this command shows values.
fn usage_error(error: clap::Error) -> ExitCode {
    let mut hostile: Vec<String> = Vec::new();
    for arg in std::env::args_os().skip(1) {
        let arg = arg.to_string_lossy().into_owned();
        // `--config=VALUE` is quoted by its value alone.
        let value = arg
            .starts_with("--")
            .then(|| arg.split_once('=').map(|(_, v)| v.to_owned()))
            .flatten();
        hostile.extend(
            [Some(arg), value]
                .into_iter()
                .flatten()
                .filter(|a| crate::text::escape_line(a) != **a),
        );
    }
    if !error.use_stderr() || hostile.is_empty() {
        error.exit()
    }
    // Longest first, so that `--config=VALUE` is escaped whole before VALUE alone is looked for.
    hostile.sort_by_key(|a| std::cmp::Reverse(a.len()));
    let mut text = error.render().to_string();
    for arg in &hostile {
        text = text.replace(arg.as_str(), &crate::text::escape_line(arg));
    }
    eprint!("{text}");
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

/// A failure to run at all: exit code 2.
#[derive(Debug)]
pub(crate) struct Fatal(pub String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Fatal {
        Fatal(e.to_string())
    }
}

/// Runs the command `cli` names.
pub(crate) fn dispatch(cli: &Cli) -> Result<ExitCode, Fatal> {
    match &cli.command {
        Some(Command::Bench(args)) => bench::command::bench(args),
        Some(Command::Matrix(args)) => matrix::matrix(args),
        Some(Command::Coverage(args)) => matrix::coverage(args),
        Some(Command::Fuzz(args)) => fuzz::fuzz(args),
        Some(Command::Diff(args)) => diff::diff(args),
        Some(Command::Rules(args)) => rules::rules(args),
        Some(Command::Merge(args)) => merge::merge(args),
        Some(Command::Promote(args)) => promote::promote(args),
        Some(Command::FuzzMerge(args)) => fuzz_merge::fuzz_merge(args),
        Some(Command::History(args)) => history::history(args),
        None => check::run(&cli.run),
    }
}

impl Selection {
    /// The roots, resolved as the harness resolves them (no paths: the default data).
    fn roots(&self) -> Result<Vec<DataRoot>, Fatal> {
        Ok(DataRoot::resolve(&self.paths)?)
    }

    /// Discovers the cases under `roots`; zero cases is an error. Where a copy of a bundled
    /// data set said otherwise than the bundled one, a warning says which file and field.
    fn cases(&self, roots: &[DataRoot]) -> Result<Vec<TestCase>, Fatal> {
        let cases = discover_until(roots, &Patterns::new(&self.patterns)?, &signals::cancel())?;
        for disagreement in cases.iter().flat_map(TestCase::disagreements) {
            eprintln!(
                "pad-conformance: warning: {}",
                crate::text::escape_line(&disagreement.to_string())
            );
        }
        Ok(cases)
    }

    /// The data sets of `cases` that pass the filter (none passing is an error), and of
    /// those the shard's part, which may be empty: a part of a small selection can be.
    fn jobs<'a>(&self, cases: &'a [TestCase]) -> Result<Vec<Job<'a>>, Fatal> {
        let selected = select(jobs(cases), self.filter.as_deref())?;
        let Some(shard) = self.shard else {
            return Ok(selected);
        };
        let total = selected.len();
        let part: Vec<Job<'a>> = selected.into_iter().filter(|job| shard.contains(&job.name())).collect();
        eprintln!(
            "pad-conformance: shard {shard}: {} of the {total} selected data sets",
            part.len()
        );
        Ok(part)
    }
}

impl Checking {
    /// What a run under `options` over `roots` records of itself, its selection being
    /// `whole` (every data set the filter passes, before any shard): decided once, for the
    /// report and for what a report read back is checked against.
    fn facts(
        &self,
        options: &CheckOptions,
        roots: &[DataRoot],
        whole: &[Job<'_>],
        config: Option<String>,
        complete: bool,
    ) -> crate::report::RunFacts {
        crate::report::RunFacts {
            complete,
            gating: options.gating.names(),
            tolerance: options.tolerance.to_string(),
            profile: options.profile.digest.0.clone(),
            inputs_as_constants: options.inputs_as_constants,
            strict_rules: options.strict_rules,
            corpora: crate::data::corpus_versions(roots),
            selection: crate::data::digest::selection_digest(whole.iter().map(Job::name)),
            config,
            retries: self.retries,
        }
    }

    fn options(&self, max_tensor_bytes: u64) -> Result<CheckOptions, Fatal> {
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

    fn backend(&self, spec: &str, max_tensor_bytes: u64) -> Result<Box<dyn Backend>, Fatal> {
        backend_from_spec(spec, worker_timeout(self.timeout)?, max_tensor_bytes)
    }

    /// Runs `jobs` on `backend` (`spec`), retrying a crash or timeout on a fresh backend of
    /// the same spec as `--retries` says.
    fn run_jobs(
        &self,
        (spec, backend): (&str, &dyn Backend),
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

    fn threads(&self) -> usize {
        self.jobs.unwrap_or_else(default_threads)
    }

    /// The command that reruns one data set of backend `spec` as this run checked it: the
    /// options that change a verdict, when they are not the defaults, and the paths.
    fn rerun(&self, spec: &str, selection: &Selection, profile: Option<&PathBuf>) -> Rerun {
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
        Rerun::new(spec, &options, &paths)
    }
}
