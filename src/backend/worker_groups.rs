//! The process groups of running workers, killed when the runner itself is interrupted.
//!
//! Each worker runs in a process group of its own, so that a timeout can kill whatever the
//! worker started. Such a group is outside the terminal's foreground group: Ctrl-C reaches
//! the runner only. So the runner, on SIGINT, SIGTERM or SIGHUP, kills every registered
//! group, then dies of the signal as it would have without the handler.

use std::sync::Once;
use std::sync::atomic::{AtomicI32, Ordering};

/// Registered group ids; 0 marks a free slot. A fixed array, because the signal handler may
/// neither allocate nor lock. More workers than slots run unregistered: the registry is a
/// safety net for interrupts, not how workers are normally stopped.
static GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Records the group `group` (a worker's pid, which leads its group) as running.
pub fn register(group: libc::pid_t) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(install_handler);
    for slot in &GROUPS {
        if slot
            .compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Forgets `group`: its leader is about to be reaped, after which the id may be reused.
pub fn unregister(group: libc::pid_t) {
    for slot in &GROUPS {
        if slot
            .compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

fn install_handler() {
    for signal in SIGNALS {
        // SAFETY: the handler only calls async-signal-safe functions (kill, signal, raise)
        // and reads atomics.
        unsafe {
            let previous = libc::signal(signal, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
            // A signal the runner was told to ignore (nohup) stays ignored.
            if previous == libc::SIG_IGN {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill(2) is async-signal-safe and has no memory-safety preconditions.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
    }
    // SAFETY: signal(2) and raise(3) are async-signal-safe: die of the signal, as by default.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}
