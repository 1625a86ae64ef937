//! A backend's command started as the leader of its own process group, its stderr kept
//! (stderr.rs): what the exec worker and the per-case command share. Killing it kills the
//! group: a shell or shim in front of the program, and whatever the program started, go with
//! it; what left the group the binary ends once it is reaped (detached.rs).

use std::ffi::OsString;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::detached::{After, end_detached};
use super::stderr::{Stderr, StderrReader, Writer};
use super::worker_groups;
use crate::platform::{Group, PATH_SEPARATORS, group_of_started, has_exited, shell_with_args, start_in_new_group};

/// How long a killed process's stderr is read for what it printed last.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// A started command: the leader of its own process group (a Job object on Windows), its
/// stderr read by a thread of its own.
pub(super) struct Process {
    child: Child,
    /// Its process group, killed with it; `None` once killed.
    group: Option<Group>,
    stderr: StderrReader,
    /// The exit status, once reaped; its pid, and so its group id, may then be reused.
    status: Option<Option<ExitStatus>>,
    /// Started through the system's shell, which reports a command a signal killed as the
    /// exit code 128 + the signal ([`Process::shell_hid_a_signal`]).
    through_shell: bool,
}

impl Process {
    /// Starts `command` with `args` appended, stderr piped, and stdin, stdout and the
    /// environment as `configure` sets them. Plain words are run directly: a shell in between
    /// would hold its own copy of the process's stdout (dash does not exec the last command of
    /// `sh -c`), so the process closing it would go unseen. Anything else, or words that are
    /// not a program (`exec …`, a builtin), goes through the system's shell
    /// ([`shell_with_args`]: the arguments become `"$@"` on Unix). `writer` says whose its
    /// stderr is, which a message names.
    pub(super) fn start(
        command: &str,
        args: &[OsString],
        writer: Writer,
        configure: impl Fn(&mut Command),
    ) -> std::io::Result<Process> {
        let grouped = |command: &mut Command| {
            configure(command);
            start_in_new_group(command.stderr(Stdio::piped())).spawn()
        };
        let direct = plain_words(command)
            .as_deref()
            .and_then(<[&str]>::split_first)
            .and_then(|(program, words)| grouped(Command::new(program).args(words).args(args)).ok());
        let through_shell = direct.is_none();
        let mut child = match direct {
            Some(child) => child,
            None => grouped(&mut shell_with_args(command, args))?,
        };
        let group = group_of_started(&mut child)?;
        let stderr = StderrReader::start(child.stderr.take().expect("piped"), writer).inspect_err(|_| {
            group.kill();
            let _ = child.wait();
        })?;
        worker_groups::register(group.token());
        Ok(Process {
            child,
            group: Some(group),
            stderr,
            status: None,
            through_shell,
        })
    }

    /// The signal that killed the command, when the shell this runner put in front of it
    /// reported it as its exit code (128 + the signal, on Unix): the runner's own wrapper hid
    /// the crash, so the runner reads it back. A command run directly reports signals itself.
    pub(super) fn shell_hid_a_signal(&self, status: ExitStatus) -> Option<ExitStatus> {
        if self.through_shell {
            crate::platform::signal_behind_shell_exit(status)
        } else {
            None
        }
    }

    /// The child, for its piped stdin and stdout.
    pub(super) fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Whether the process has exited. It is not reaped: as a zombie it keeps its pid, and so
    /// its process group id, from being reused until [`Process::kill`].
    pub(super) fn has_exited(&self) -> bool {
        self.status.is_some() || has_exited(&self.child)
    }

    /// Kills the process group — the process, a shell or shim in front of it, whatever they
    /// started — and reaps the process, then ends what left the group and is the binary's now
    /// that its parent is gone ([`end_detached`]). Returns the exit status; later calls do
    /// nothing.
    pub(super) fn kill(&mut self) -> Option<ExitStatus> {
        if let Some(status) = self.status {
            return status;
        }
        // The group is killed before the process is reaped: until then its id is not reused.
        if let Some(group) = self.group.take() {
            group.kill();
            worker_groups::unregister(group.token());
        }
        let status = self.child.wait().ok();
        self.status = Some(status);
        end_detached(After::CommandEnded);
        status
    }

    /// Waits until the process exits or `until` passes; says whether it exited.
    pub(super) fn wait_for_exit(&self, until: Instant) -> bool {
        while !self.has_exited() {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    /// Kills the group, then waits a little for its stderr to end (once the group is dead
    /// nothing holds it open) and takes it. Returns the exit status too.
    pub(super) fn kill_and_take_stderr(&mut self) -> (Option<ExitStatus>, Stderr) {
        let status = self.kill();
        (status, self.stderr.take_at_end(STDERR_DRAIN))
    }

    /// What the process printed on stderr since the last call, everything it printed before
    /// this one included ([`StderrReader::take`]).
    pub(super) fn take_stderr(&self) -> Stderr {
        self.stderr.take()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `command` split into words, when splitting is all the shell would do with it: no quoting,
/// expansion, redirection, operator, comment or leading assignment.
pub(super) fn plain_words(command: &str) -> Option<Vec<&str>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:,+@%=".contains(c) || PATH_SEPARATORS.contains(c);
    let words: Vec<&str> = command.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let program = words.first()?;
    (words.iter().all(|w| w.chars().all(plain)) && !program.contains('=')).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::plain_words;

    #[test]
    fn a_backslash_is_a_path_separator_on_windows_and_the_shell_s_escape_on_unix() {
        let words = plain_words(r"C:\venv\Scripts\python.exe worker.py");
        if cfg!(windows) {
            assert_eq!(words, Some(vec![r"C:\venv\Scripts\python.exe", "worker.py"]));
        } else {
            assert_eq!(words, None);
        }
    }

    #[test]
    fn plain_commands_run_without_a_shell() {
        assert_eq!(
            plain_words("  .venv/bin/python\tscripts/w.py --opt=1 x,y@z+%:  "),
            Some(vec![".venv/bin/python", "scripts/w.py", "--opt=1", "x,y@z+%:"])
        );
        for shell in [
            "",
            "  ",
            "cd /tmp && python3 w.py",
            "python3 'my worker.py'",
            "python3 \"w.py\"",
            "python3 w.py; true",
            "python3 w.py 2>/dev/null",
            "python3 $HOME/w.py",
            "python3 ~/w.py",
            "python3 w*.py",
            "python3 w.py # comment",
            "FOO=1 python3 w.py",
            "python3 w.py\npython3 v.py",
        ] {
            assert_eq!(plain_words(shell), None, "{shell:?}");
        }
    }

    /// The appended arguments reach a command run by the shell unsplit and unexpanded, as `"$@"`.
    #[cfg(unix)]
    #[test]
    fn arguments_are_appended_whole_through_the_shell() {
        let args = ["a b".into(), "$HOME".into(), "'".into()];
        let mut process = super::Process::start("printf '%s|' >&2", &args, super::Writer::Command, |c| {
            c.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null());
        })
        .unwrap();
        assert!(process.wait_for_exit(std::time::Instant::now() + std::time::Duration::from_secs(10)));
        let (status, stderr) = process.kill_and_take_stderr();
        assert!(status.unwrap().success());
        assert_eq!(stderr.text(), "a b|$HOME|'|");
    }
}
