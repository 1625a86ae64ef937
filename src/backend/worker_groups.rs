//! The process groups of running workers, so that a program interrupted while workers run can
//! kill them.
//!
//! Each worker runs in a process group of its own (a Job object on Windows), so that a timeout
//! can kill whatever the worker started. Such a group is outside the terminal's foreground
//! group: Ctrl-C reaches the runner only. The library installs no signal handler — signals
//! belong to the program — but [`kill_worker_groups`] may be called from one (the
//! `pad-conformance` binary does, on SIGINT, SIGTERM and SIGHUP, and on Windows on Ctrl-C and
//! Ctrl-Break) or at any time.

use std::sync::atomic::{AtomicIsize, Ordering};

use crate::platform::kill_group_token;

/// Registered groups ([`crate::platform::Group::token`]); 0 marks a free slot. A fixed array, because a signal handler may
/// neither allocate nor lock. More workers than slots run unregistered: the registry is a
/// safety net for interrupts, not how workers are normally stopped.
static GROUPS: [AtomicIsize; 256] = [const { AtomicIsize::new(0) }; 256];

/// Records the group `group` ([`crate::platform::Group::token`]) as running.
pub(super) fn register(group: isize) {
    for slot in &GROUPS {
        if slot
            .compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Forgets `group`: its leader is about to be reaped (or its job closed), after which the
/// id may be reused.
pub(super) fn unregister(group: isize) {
    for slot in &GROUPS {
        if slot
            .compare_exchange(group, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Whether `group` is registered: a running command's, which ends with it. Async-signal-safe.
pub(super) fn is_registered(group: isize) -> bool {
    group != 0 && GROUPS.iter().any(|slot| slot.load(Ordering::SeqCst) == group)
}

/// Kills (SIGKILL) the process group of every running external worker, with whatever the
/// workers started in their groups (on Windows, terminates their Job objects). Async-signal-safe:
/// it only reads atomics and calls kill(2), so a program's SIGINT or SIGTERM handler may call
/// it before the program dies.
/// Workers killed so fail their current request; the backend starts new ones if it is used
/// again.
pub fn kill_worker_groups() {
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group != 0 {
            kill_group_token(group);
        }
    }
}
