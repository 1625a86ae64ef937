//! `exec-wrap`: a per-case command's wrapper that keeps a crash a crash. A shell reports a
//! program a signal killed as exit 128 + N and a Python shim (a pip-installed console script
//! calling `sys.exit(subprocess.call(…))`) as 256 − N: the runner would read a failure.
//! `pad-conformance exec-wrap -- COMMAND…` runs COMMAND and dies of the same signal, which the
//! runner reads as the crash it was (docs/backend-protocol.md#crashes). On Windows a crash is
//! its NTSTATUS exit code, which is passed on as it is.

use std::process::{Command, ExitCode};

use super::args::ExecWrapArgs;

/// What a shell exits with when a command cannot be run.
const CANNOT_RUN: u8 = 127;

/// Runs the command `args` name, its standard input, output and error its own, and ends as it
/// ended ([`crate::platform::end_as`]); returns only when it cannot be started.
pub(super) fn exec_wrap(args: &ExecWrapArgs) -> ExitCode {
    let Some((program, rest)) = args.command.split_first() else {
        return ExitCode::from(CANNOT_RUN);
    };
    match Command::new(program).args(rest).status() {
        Ok(status) => crate::platform::end_as(status, args.shim_codes),
        Err(e) => {
            let program = program.to_string_lossy();
            let shown = crate::text::escape_line(&program);
            eprintln!("pad-conformance exec-wrap: cannot run {shown}: {e}");
            ExitCode::from(CANNOT_RUN)
        }
    }
}
