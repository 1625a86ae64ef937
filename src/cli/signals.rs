//! The binary's signal handling. The first SIGINT or SIGTERM stops the run: no further data
//! sets start, the external workers' process groups are killed (they are outside the
//! terminal's foreground group, so Ctrl-C does not reach them), and the data sets that ran
//! are reported — a JSON or JUnit report of an interrupted run is written, not lost. SIGHUP,
//! or a second signal, kills the workers and dies of the signal as without a handler.
//! Handlers are chained through
//! signal-hook, so others registered the same way still run; a signal the runner was told to
//! ignore (nohup) stays ignored. The library installs none: signals belong to the program.

use std::sync::atomic::{AtomicBool, Ordering};

use pad_conformance::backend::kill_worker_groups;
use pad_conformance::run::runner;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::low_level::{emulate_default_handler, register};

/// Set by the first SIGINT or SIGTERM.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether a signal stopped the run: its exit code is then 128 + SIGINT's number, as a
/// shell reports an interrupted command.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Installs the handlers; called once, first thing in `main`.
pub fn install() {
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        if ignored(signal) {
            continue;
        }
        let action = move || {
            kill_worker_groups();
            if signal != SIGHUP && !INTERRUPTED.swap(true, Ordering::SeqCst) {
                runner::stop();
                return;
            }
            let _ = emulate_default_handler(signal);
        };
        // SAFETY: the action is async-signal-safe: atomic loads and stores, kill(2) over
        // atomics, then signal-hook's emulation of the default action (restore it and raise
        // the signal).
        if let Err(e) = unsafe { register(signal, action) } {
            eprintln!("pad-conformance: warning: cannot handle signal {signal}: {e}");
        }
    }
}

/// Whether `signal` is ignored (SIG_IGN), as under nohup.
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: sigaction(2) with a null new action only reads the current one into `current`.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0 && current.sa_sigaction == libc::SIG_IGN
    }
}
