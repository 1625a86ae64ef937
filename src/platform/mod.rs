//! Everything that differs between Unix and Windows, behind one set of names: a worker's process
//! group and how it is killed, whether a child exited without reaping it, a worker's pipes read
//! and written without blocking, how a process died, the runner as the subreaper of what it
//! starts (Linux), file kinds and modes, and file names as text. The layers above hold no `cfg`
//! of their own for these.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

mod name;
mod run_clock;
mod subreaper;

pub(crate) use imp::{
    Group, PATH_SEPARATORS, StderrPipe, WorkerPipes, end_as, exit_signal, file_mode, has_exited, kill_group_token,
    memory_fs_free, no_follow_private, open_nonblocking, pass_pipe, permissions_from_mode, private_dir_builder,
    shell_with_args, signal_behind_shell_exit, special_kind, start_in_new_group, take_pipe,
};
pub(crate) use name::{lossless_name, slash_separated};
pub(crate) use run_clock::{Overrun, RunClock};
pub(crate) use subreaper::{
    ChildProcess, adopt_orphans, adopting, for_each_child, kill_child, own_group_and_session, reap_child,
};

/// The process group of `child`, just started by [`start_in_new_group`]; when the system
/// will not make one, the child is killed and reaped, and the error returned.
pub(crate) fn group_of_started(child: &mut std::process::Child) -> std::io::Result<Group> {
    Group::of(child).inspect_err(|_| {
        let _ = child.kill();
        let _ = child.wait();
    })
}

/// How long [`lock_dir`] waits: a promotion or a baseline recording holds a corpus's lock for
/// seconds, so one held for minutes belongs to a process that hangs (one that died has let go:
/// the operating system releases its locks).
pub(crate) const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(300);

/// Locks directory `dir` exclusively, unlocked when the returned file closes; while another
/// process holds it, waits (saying so on stderr after a second) up to [`LOCK_PATIENCE`].
pub(crate) fn lock_dir(dir: &std::path::Path) -> std::io::Result<std::fs::File> {
    lock_dir_within(dir, LOCK_PATIENCE)
}

/// [`lock_dir`], waiting at most `patience`: then an error of kind `TimedOut`.
pub(crate) fn lock_dir_within(dir: &std::path::Path, patience: std::time::Duration) -> std::io::Result<std::fs::File> {
    use std::time::{Duration, Instant};
    let file = imp::dir_lock_file(dir)?;
    let start = Instant::now();
    let mut said = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        let waited = start.elapsed();
        if waited >= patience {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "another process has held its lock for {} s (a promotion or a baseline recording that hangs?); end it and run again",
                    waited.as_secs()
                ),
            ));
        }
        if !said && waited >= Duration::from_secs(1) {
            eprintln!(
                "pad-conformance: waiting for another process's lock on {} (at most {} s)",
                crate::text::shown_path(dir),
                patience.as_secs()
            );
            said = true;
        }
        std::thread::sleep(Duration::from_millis(50).min(patience.saturating_sub(waited)));
    }
}

/// Opens `path` for reading, with O_NONBLOCK on Unix, which a regular file ignores and which
/// keeps a FIFO from blocking the open.
pub(crate) fn open_for_reading(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    open_nonblocking(std::fs::OpenOptions::new().read(true)).open(path)
}

/// What a process's exit says when it crashed: `was killed by signal 6 (SIGABRT)` on Unix,
/// `crashed with 0xc0000005 (STATUS_ACCESS_VIOLATION)` on Windows.
pub(crate) use imp::describe_crash;
#[cfg(windows)]
pub(crate) use imp::on_console_interrupt;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    /// A lock another holder keeps is given up on after the patience, with an error saying
    /// so; once let go, it is taken.
    #[test]
    fn a_held_directory_lock_is_waited_for_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let held = super::lock_dir(dir.path()).unwrap();
        let error = super::lock_dir_within(dir.path(), Duration::from_millis(100)).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::TimedOut, "{error}");
        // The seconds waited, whole: 0 on an idle machine, more on a busy one, where the
        // thread may sleep past its 100 ms.
        let message = error.to_string();
        let seconds = message
            .strip_prefix("another process has held its lock for ")
            .and_then(|rest| rest.split_once(" s (a promotion or a baseline recording that hangs?)"))
            .map(|(seconds, _)| seconds);
        assert!(seconds.is_some_and(|s| s.parse::<u64>().is_ok()), "{message}");
        drop(held);
        assert!(super::lock_dir_within(dir.path(), Duration::from_millis(100)).is_ok());
    }
}
