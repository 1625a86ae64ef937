//! The command line over the library: argument types ([`args`]) and one module per command.
//! Every rule the CLI applies that the harness applies too lives in the library.

pub(crate) mod args;
mod backend_spec;
mod baseline;
mod bench;
mod checking;
mod color;
mod coverage;
mod diff;
mod exec_wrap;
mod failure_groups;
mod fatal;
mod fuzz;
mod group_line;
mod history;
mod html;
mod matrix;
mod merge;
mod output;
mod progress;
mod promote;
mod rules;
mod run;
mod run_report;
mod scoreboard;
mod selection;
mod shard_parts;
mod shares;
pub(crate) mod signals;
mod today;

use std::process::ExitCode;

use args::{Cli, Command};
use fatal::Fatal;

/// The `pad-conformance` command: parses arguments, calls the library, maps the outcome to
/// an exit code (0 success, 1 a check failed, 2 a usage or infrastructure error).
pub(crate) fn main() -> ExitCode {
    use clap::Parser;
    let args = match args::Cli::try_parse() {
        Ok(args) => args,
        Err(error) => return usage_error(error),
    };
    // A wrapper in front of a per-case command is no run: it installs no handlers and adopts
    // nothing, so that it ends as its command did.
    if let Some(Command::ExecWrap(wrap)) = &args.command {
        return exec_wrap::exec_wrap(wrap);
    }
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

/// Runs the command `cli` names.
pub(crate) fn dispatch(cli: &Cli) -> Result<ExitCode, Fatal> {
    match &cli.command {
        Some(Command::Bench(args)) => bench::command::bench(args),
        Some(Command::Matrix(args)) => matrix::matrix(args),
        Some(Command::Coverage(args)) => coverage::coverage(args),
        Some(Command::Fuzz(args)) => fuzz::fuzz(args),
        Some(Command::Diff(args)) => diff::diff(args),
        Some(Command::Rules(args)) => rules::rules(args),
        Some(Command::Merge(args)) => merge::merge(args),
        Some(Command::Promote(args)) => promote::promote(args),
        Some(Command::FuzzMerge(args)) => fuzz::merge::fuzz_merge(args),
        Some(Command::History(args)) => history::history(args),
        Some(Command::Baseline(args)) => baseline::baseline(args),
        Some(Command::ExecWrap(args)) => Ok(exec_wrap::exec_wrap(args)),
        None => run::run(&cli.run),
    }
}
