//! The binary's signal handling. The first SIGINT or SIGTERM trips the command's [`Cancel`]
//! token and kills the external workers' process groups (they are outside the terminal's
//! foreground group, so Ctrl-C does not reach them). Inside a run ([`CancelsRun`]: checking
//! data sets, fuzzing, a matrix) the command then stops starting work, writes what finished
//! and exits 130 (SIGINT) or 143 (SIGTERM); anywhere else (discovery, reading files,
//! `diff`, `coverage`, `--list`) nothing is half-done that a report could hold, so it says
//! so and exits with that code at once, even while blocked reading a FIFO. SIGHUP, or a
//! second signal, kills the workers (and, on Linux, what they detached) and dies of the signal
//! as without a handler.
//!
//! Handlers are chained through signal-hook, so others registered the same way still run; a
//! signal the runner was told to ignore (nohup) stays ignored. The library installs none:
//! signals belong to the program.
//!
//! On Windows, Ctrl-C and Ctrl-Break at the console act as SIGINT (exit 130), closing the
//! console, logging off or shutting down as SIGTERM (143), through a console control handler;
//! a second one ends the process as Windows does without a handler.

use std::process::ExitCode;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

#[cfg(unix)]
use crate::backend::kill_detached;
use crate::backend::kill_worker_groups;
use crate::cancel::Cancel;
#[cfg(unix)]
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
#[cfg(unix)]
use signal_hook::low_level::{emulate_default_handler, register};

/// The command's token, tripped by the first SIGINT or SIGTERM.
static CANCEL: OnceLock<Cancel> = OnceLock::new();
/// The first SIGINT or SIGTERM received; 0 before.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Whether a run is under way that writes what finished once cancelled.
static IN_RUN: AtomicBool = AtomicBool::new(false);

/// The token commands pass to the library: tripped by the first SIGINT or SIGTERM.
pub(crate) fn cancel() -> Cancel {
    CANCEL.get_or_init(Cancel::new).clone()
}

/// The exit code of a command a signal stopped: 128 + the signal's number, as a shell
/// reports it; `None` when no signal came.
pub(crate) fn interrupted() -> Option<ExitCode> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(ExitCode::from(u8::try_from(128 + signal).unwrap_or(130))),
    }
}

/// While alive, the first signal cancels the run, which then writes what finished, instead
/// of exiting at once.
pub(crate) struct CancelsRun(());

impl CancelsRun {
    pub(crate) fn start() -> CancelsRun {
        IN_RUN.store(true, Ordering::SeqCst);
        CancelsRun(())
    }
}

impl Drop for CancelsRun {
    fn drop(&mut self) {
        IN_RUN.store(false, Ordering::SeqCst);
    }
}

/// Installs the handlers; called once, first thing in `main`.
#[cfg(unix)]
pub(crate) fn install() {
    let cancel = cancel();
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        if ignored(signal) {
            continue;
        }
        let cancel = cancel.clone();
        let action = move || {
            let first = signal != SIGHUP
                && SIGNAL
                    .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok();
            // The run is cancelled before its workers are killed: a request whose worker dies
            // must find the run cancelled, or the kill would be judged the backend's failure.
            if first {
                cancel.cancel();
            }
            kill_worker_groups();
            if first {
                // A run writes what finished; a scratch directory is removed as its holder
                // unwinds (the cancelled token, or its killed worker, stops it). Either way
                // main ends what the commands detached once the command returns.
                if IN_RUN.load(Ordering::SeqCst) || crate::data::scratch::held() {
                    return;
                }
                let message = b"pad-conformance: interrupted; no report written\n";
                kill_detached();
                // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer outlives the
                // call.
                unsafe {
                    libc::write(2, message.as_ptr().cast(), message.len());
                    libc::_exit(128 + signal);
                }
            }
            // The process dies here: what the commands detached would be init's after it.
            kill_detached();
            let _ = emulate_default_handler(signal);
        };
        // SAFETY: the action is async-signal-safe: atomic loads and stores (the token's
        // included), kill(2) over atomics and over the children /proc lists (read with
        // system calls into the stack), write(2) and _exit(2), then signal-hook's emulation of
        // the default action (restore it and raise the signal).
        if let Err(e) = unsafe { register(signal, action) } {
            eprintln!("pad-conformance: warning: cannot handle signal {signal}: {e}");
        }
    }
}

/// Whether `signal` is ignored (SIG_IGN), as under nohup.
#[cfg(unix)]
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: sigaction(2) with a null new action only reads the current one into `current`.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0 && current.sa_sigaction == libc::SIG_IGN
    }
}

/// Installs the console control handler; called once, first thing in `main`.
#[cfg(windows)]
pub(crate) fn install() {
    let handler = |signal: i32| {
        let first = SIGNAL
            .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        // As on Unix: the run is cancelled before its workers are killed.
        if first {
            cancel().cancel();
        }
        kill_worker_groups();
        // As on Unix: a run writes what finished, and a scratch directory is removed as its
        // holder unwinds.
        if first && !IN_RUN.load(Ordering::SeqCst) && !crate::data::scratch::held() {
            eprintln!("pad-conformance: interrupted; no report written");
            std::process::exit(128 + signal);
        }
        first
    };
    if let Err(e) = crate::platform::on_console_interrupt(handler) {
        eprintln!("pad-conformance: warning: cannot handle Ctrl-C: {e}");
    }
}
