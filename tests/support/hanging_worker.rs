//! Workers, in sh, that never answer and say when they got that far: a test interrupts a run
//! once the worker is where the test needs it, instead of guessing how long that takes (a
//! guess that is too short on a loaded machine, and dead time on an idle one).

use std::path::{Path, PathBuf};
use std::process::Command;
#[cfg(unix)]
use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// Completes the handshake, reads a request, marks it, and never answers: the run has a data
/// set or case in flight once the mark is there.
pub const IN_REQUEST: &str = r#"exec:read hello; echo '{"type": "hello", "version": 1, "name": "hang"}'; read request; touch "$HANG_MARK"; sleep 600"#;

/// Marks that it started, and never says hello: the command is still starting its backend.
pub const BEFORE_HELLO: &str = r#"exec:touch "$HANG_MARK"; sleep 600"#;

/// The file a hanging worker touches (`$HANG_MARK`), in a directory of its own.
pub struct Mark {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Mark {
    pub fn new() -> Mark {
        let dir = pad_conformance::testing::scratch_dir().unwrap();
        let path = dir.path().join("mark");
        Mark { _dir: dir, path }
    }

    /// Passes the mark's path to the workers `command` starts.
    pub fn pass_to<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        command.env("HANG_MARK", &self.path)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Blocks until the worker has made the mark. Five minutes without it fail the test:
    /// the command never got the worker that far.
    pub fn wait(&self) {
        wait_until("the hanging worker's mark", || self.path.exists());
    }
}

/// Makes `command` start with SIGINT, SIGTERM and SIGHUP at their defaults. A test run from a
/// background shell or under nohup inherits them ignored, and the binary keeps an ignored
/// signal ignored (as nohup asks of it), so the signal a test sends would never arrive.
#[cfg(unix)]
pub fn signals_at_default(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal(2) is async-signal-safe, as a pre_exec closure must be.
    unsafe {
        command.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(signal, libc::SIG_DFL);
            }
            Ok(())
        })
    }
}

/// Runs the built binary with `args` against an [`IN_REQUEST`] worker (`--backend` and
/// `--jobs 1` added), sends it `signal` once the first data set is under way, and waits for
/// it: its output (stdout not kept), and its stderr as text.
#[cfg(unix)]
pub fn interrupt_in_request<I, S>(args: I, signal: libc::c_int) -> (Output, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mark = Mark::new();
    let child = mark
        .pass_to(signals_at_default(&mut Command::new(env!(
            "CARGO_BIN_EXE_pad-conformance"
        ))))
        .args(["--backend", IN_REQUEST, "--jobs", "1"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    mark.wait();
    interrupt(child, signal)
}

/// Sends `signal` to `child` and waits for it: its output, and its stderr as text.
#[cfg(unix)]
pub fn interrupt(child: Child, signal: libc::c_int) -> (Output, String) {
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

/// Polls `done` until it holds; panics naming `what` after five minutes. The bound is only
/// for an event that never comes: under 16 × nproc busy loops (scripts/load-check) the run
/// of the whole corpus that fills a pipe in a second took over a minute.
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !done() {
        assert!(Instant::now() < deadline, "waited five minutes for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}
