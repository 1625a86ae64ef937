//! What a command the runner started left running outside its process group, ended by the
//! `pad-conformance` binary (docs/backend-protocol.md#ending).
//!
//! Killing a command's process group (process.rs) reaches whatever the command started, but
//! for a process that left the group: into a session of its own (`setsid`, a daemon) or a
//! group of its own (a shell's job control). Once its parent exits, such a process becomes the
//! child of the nearest subreaper, which the binary is on Linux
//! ([`crate::platform::adopt_orphans`]). The binary then ends those among its children each
//! time a command ends ([`end_detached`], called by process.rs), when the run ends, and, by a
//! kill alone, in a signal handler about to end the process ([`kill_detached`]). Inside a
//! user's program nothing is adopted, and these find nothing to end.
//!
//! The children the runner keeps are the commands it started: each leads a group of its own in
//! the runner's session, registered while it runs (worker_groups.rs). So a child in another
//! session left with setsid and is ended, with its group; so is a child that is a member, not
//! the leader, of a group neither the runner's nor a running command's (a group killed when its
//! command ended, or one it moved to), alone. The leader of an unregistered group in the
//! runner's session is one that left by job control, or a command between its start and its
//! registration, or between its kill and its reaping: it is ended only when the run has ended,
//! when no command starts or ends any more.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::worker_groups::is_registered;
use crate::platform::{
    ChildProcess, adopting, for_each_child, kill_child, kill_group_token, own_group_and_session, reap_child,
};

/// What [`end_detached`] is called after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum After {
    /// A command the runner started has ended; others may start or end meanwhile.
    CommandEnded,
    /// The run has ended: no command runs any more.
    RunEnded,
}

impl After {
    /// How long the processes ended are waited for to be reaped. A killed process dies once it
    /// is scheduled; one that does not (stuck in the kernel) is left to a later call rather
    /// than holding the run.
    fn patience(self) -> Duration {
        match self {
            After::CommandEnded => Duration::from_secs(2),
            After::RunEnded => Duration::from_secs(10),
        }
    }
}

/// What becomes of one child of the runner.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    /// A command the runner runs (or starts, or reaps), or in the runner's own group.
    Kept,
    /// Exited: reaped.
    Reaped,
    /// Killed, with its whole group when `group`, and reaped.
    Ended { group: bool },
}

/// The fate of `child` of the runner, whose own group and session are `own`, `after` what.
fn fate(child: ChildProcess, (own_group, own_session): (isize, isize), after: After) -> Fate {
    let leader = child.pid == child.group;
    if child.session != own_session {
        // Left with setsid: none of its session's groups is a command's.
        Fate::Ended { group: true }
    } else if child.group == own_group {
        // The runner starts every command in a group of its own.
        Fate::Kept
    } else if is_registered(child.group) {
        // A running command's group ends with it. A member that exited is reaped meanwhile:
        // never the command, which leads its group and is reaped by its own Process.
        if child.zombie && !leader {
            Fate::Reaped
        } else {
            Fate::Kept
        }
    } else if !leader {
        // Alone: its group may be a command's that is not registered yet.
        Fate::Ended { group: false }
    } else if after == After::RunEnded {
        Fate::Ended { group: true }
    } else {
        Fate::Kept
    }
}

/// Ends (SIGKILL) and reaps what the runner's commands left running outside their groups and
/// what was left of groups killed (module docs), waiting for each, then for what each hands
/// over in turn as it dies, until none is left or [`After::patience`] runs out. Does nothing
/// unless the binary made itself a subreaper.
pub(crate) fn end_detached(after: After) {
    if !adopting() {
        return;
    }
    // One call at a time: a child that one call reaps has a pid that another could find reused.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let own = own_group_and_session();
    let deadline = Instant::now() + after.patience();
    loop {
        let mut ending = Vec::new();
        for_each_child(&mut |child| match fate(child, own, after) {
            Fate::Kept => {}
            Fate::Reaped => ending.push(child.pid),
            Fate::Ended { group } => {
                if group {
                    kill_group_token(child.group);
                }
                kill_child(child.pid);
                ending.push(child.pid);
            }
        });
        if ending.is_empty() {
            return;
        }
        loop {
            ending.retain(|&pid| !reap_child(pid));
            if ending.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // Each one reaped handed its own children, if it had any, to the runner: look again.
        if Instant::now() >= deadline {
            return;
        }
    }
}

/// Kills (SIGKILL), without reaping, every child that [`end_detached`] would end once the run
/// has ended: for a signal handler about to end the process, after which they would be init's.
/// Async-signal-safe: it reads /proc with system calls into the stack, reads atomics and calls
/// kill(2).
#[cfg(unix)]
pub(crate) fn kill_detached() {
    let own = own_group_and_session();
    for_each_child(&mut |child| {
        if let Fate::Ended { group } = fate(child, own, After::RunEnded) {
            if group {
                kill_group_token(child.group);
            }
            kill_child(child.pid);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: (isize, isize) = (100, 100);

    fn child(pid: isize, group: isize, session: isize, zombie: bool) -> ChildProcess {
        ChildProcess {
            pid,
            group,
            session,
            zombie,
        }
    }

    /// A child in another session is ended with its group after either; a member of an
    /// unregistered group alone; the leader of an unregistered group in the runner's session
    /// (a command being started or reaped looks the same) only once the run has ended; the
    /// runner's own group is never touched.
    #[test]
    fn what_is_ended_depends_on_group_session_and_what_ended() {
        use After::*;
        for after in [CommandEnded, RunEnded] {
            assert_eq!(fate(child(7, 7, 7, false), OWN, after), Fate::Ended { group: true });
            assert_eq!(fate(child(8, 7, 7, true), OWN, after), Fate::Ended { group: true });
            assert_eq!(fate(child(9, 5, 100, false), OWN, after), Fate::Ended { group: false });
            assert_eq!(fate(child(10, 100, 100, false), OWN, after), Fate::Kept);
        }
        assert_eq!(fate(child(11, 11, 100, false), OWN, CommandEnded), Fate::Kept);
        assert_eq!(fate(child(11, 11, 100, true), OWN, CommandEnded), Fate::Kept);
        assert_eq!(
            fate(child(11, 11, 100, false), OWN, RunEnded),
            Fate::Ended { group: true }
        );
    }

    /// A running command's group is kept, its leader even when it exited (its Process reaps
    /// it); a member of it that exited is reaped.
    #[test]
    fn a_registered_group_is_kept_but_for_its_members_zombies() {
        // A group id no test's command has: this process's tests share the registry.
        let group = isize::MAX - 52;
        super::super::worker_groups::register(group);
        let fates = [
            fate(child(group, group, 100, false), OWN, After::RunEnded),
            fate(child(group, group, 100, true), OWN, After::RunEnded),
            fate(child(5, group, 100, false), OWN, After::RunEnded),
            fate(child(5, group, 100, true), OWN, After::CommandEnded),
        ];
        super::super::worker_groups::unregister(group);
        assert_eq!(fates, [Fate::Kept, Fate::Kept, Fate::Kept, Fate::Reaped]);
    }
}
