//! The binary's signal handling: on SIGINT, SIGTERM or SIGHUP, kill the external workers'
//! process groups (they are outside the terminal's foreground group, so Ctrl-C does not
//! reach them), then die of the signal as without a handler. Handlers are chained through
//! signal-hook, so others registered the same way still run; a signal the runner was told to
//! ignore (nohup) stays ignored. The library installs none: signals belong to the program.

use pad_conformance::backend::kill_worker_groups;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::low_level::{emulate_default_handler, register};

/// Installs the handlers; called once, first thing in `main`.
pub fn install() {
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        if ignored(signal) {
            continue;
        }
        let action = move || {
            kill_worker_groups();
            let _ = emulate_default_handler(signal);
        };
        // SAFETY: the action is async-signal-safe: kill(2) over atomics, then
        // signal-hook's emulation of the default action (restore it and raise the signal).
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
