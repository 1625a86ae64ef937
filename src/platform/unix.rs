//! The Unix side of [`crate::platform`]: process groups and kill(2), waitid(2), poll(2) on
//! non-blocking pipes, signals, file modes and kinds.

use std::fs::{DirBuilder, FileType, Metadata, OpenOptions, Permissions};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};
use std::time::Duration;

/// Makes `command` start as the leader of a new process group: a time-out then kills whatever
/// it started too, and Ctrl-C at the terminal does not reach it.
pub(crate) fn start_in_new_group(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

/// The process group of a child started by [`start_in_new_group`].
pub(crate) struct Group(libc::pid_t);

impl Group {
    /// The group `child` leads.
    pub(crate) fn of(child: &Child) -> std::io::Result<Group> {
        libc::pid_t::try_from(child.id())
            .map(Group)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// The number [`kill_group_token`] kills the group by.
    pub(crate) fn token(&self) -> isize {
        self.0 as isize
    }

    /// Kills (SIGKILL) every process of the group. Call it before the leader is reaped: until
    /// then, its pid, and so the group id, cannot be reused.
    pub(crate) fn kill(&self) {
        kill_group_token(self.token());
    }
}

/// Kills the group `token` names ([`Group::token`]). Async-signal-safe: it calls kill(2) only.
pub(crate) fn kill_group_token(token: isize) {
    if let Ok(group) = libc::pid_t::try_from(token)
        && group > 0
    {
        // SAFETY: kill(2) is async-signal-safe and has no memory-safety preconditions.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
}

/// Whether `child` has exited, without reaping it: as a zombie it keeps its pid, and so its
/// process group id, from being reused until it is waited for.
pub(crate) fn has_exited(child: &Child) -> bool {
    // SAFETY: waitid(2) only writes the siginfo_t it is given, which is zeroed, so that
    // si_pid stays 0 when no child has exited (WNOHANG).
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let options = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // An error means there is no such child to wait for: it is gone.
        libc::waitid(libc::P_PID, child.id(), &mut info, options) != 0 || info.si_pid() != 0
    }
}

/// The status of a process killed by signal N, for a shell's exit code 128 + N (N from 1 to
/// 64, the signals a shell reports so): a shell that ran a command a signal killed exits so.
pub(crate) fn signal_behind_shell_exit(status: ExitStatus) -> Option<ExitStatus> {
    match status.code() {
        Some(code @ 129..=192) => Some(ExitStatus::from_raw(code - 128)),
        _ => None,
    }
}

/// The signal a wrapper's exit code stands for, when it stands for one: 128 + N, a shell's
/// report of a child that signal N killed; and, when `shim_codes`, 256 − N for the signals a
/// crash or a kill ends a program with, a Python shim's `sys.exit(subprocess.call(…))` of the
/// return code −N (245 for SIGSEGV). Only signals whose default is to end the process count:
/// a code for a signal that stops or is ignored is a code.
pub(crate) fn signal_behind_exit_code(code: i32, shim_codes: bool) -> Option<i32> {
    const SHIM_SIGNALS: [i32; 8] = [
        libc::SIGILL,
        libc::SIGTRAP,
        libc::SIGABRT,
        libc::SIGBUS,
        libc::SIGFPE,
        libc::SIGKILL,
        libc::SIGSEGV,
        libc::SIGTERM,
    ];
    const NOT_ENDING: [i32; 8] = [
        libc::SIGSTOP,
        libc::SIGTSTP,
        libc::SIGTTIN,
        libc::SIGTTOU,
        libc::SIGCHLD,
        libc::SIGCONT,
        libc::SIGURG,
        libc::SIGWINCH,
    ];
    match code {
        129..=192 => Some(code - 128).filter(|signal| !NOT_ENDING.contains(signal)),
        _ if shim_codes => Some(256 - code).filter(|signal| SHIM_SIGNALS.contains(signal)),
        _ => None,
    }
}

/// Ends this process as `status` ended its child: killed by the same signal — the one that
/// killed it, or the one its exit code stands for ([`signal_behind_exit_code`]) — else with
/// the same exit code. A wrapper so hands a crash on as a crash.
pub(crate) fn end_as(status: ExitStatus, shim_codes: bool) -> ! {
    let code = status.code();
    let signal = status
        .signal()
        .or_else(|| code.and_then(|code| signal_behind_exit_code(code, shim_codes)));
    if let Some(signal) = signal {
        // SAFETY: setrlimit(2), signal(2), pthread_sigmask(3) and raise(3) on this process
        // only, with structs made here; nothing runs after but the exit below.
        unsafe {
            // No core file of the wrapper: the program that crashed dumped its own, if any.
            let mut core: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_CORE, &mut core) == 0 {
                core.rlim_cur = 0;
                libc::setrlimit(libc::RLIMIT_CORE, &core);
            }
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(signal);
        }
        // Still alive: the signal could not be raised. The shell's code for it says the same.
        std::process::exit(128 + signal);
    }
    std::process::exit(code.unwrap_or(1))
}

/// The signal that killed the process, if one did.
pub(crate) fn exit_signal(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// "was killed by signal 6 (SIGABRT)" when a signal ended the process; `None` when it exited.
pub(crate) fn describe_crash(status: ExitStatus) -> Option<String> {
    let signal = status.signal()?;
    Some(format!("was killed by signal {signal} ({})", signal_name(signal)))
}

/// The conventional name of the signals a crashing process dies of.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL: the OOM killer, or another process",
        libc::SIGTERM => "SIGTERM",
        libc::SIGTRAP => "SIGTRAP",
        _ => "see signal(7)",
    }
}

/// A worker's stdin and stdout, their ends non-blocking, waited on in poll(2).
pub(crate) struct WorkerPipes {
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
}

impl WorkerPipes {
    pub(crate) fn new(stdin: ChildStdin, stdout: ChildStdout) -> std::io::Result<WorkerPipes> {
        set_nonblocking(stdout.as_raw_fd())?;
        set_nonblocking(stdin.as_raw_fd())?;
        Ok(WorkerPipes {
            stdin: Some(stdin),
            stdout,
        })
    }

    /// Whether the worker's stdin is still open.
    pub(crate) fn input_open(&self) -> bool {
        self.stdin.is_some()
    }

    /// Closes the worker's stdin: it reads end of file.
    pub(crate) fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Writes what stdin takes at once; `WouldBlock` when it takes nothing now.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.stdin.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?.write(bytes)
    }

    /// Reads what stdout has now; `WouldBlock` when it has nothing, `Ok(0)` at its end.
    pub(crate) fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.stdout.read(buffer)
    }

    /// Waits up to `timeout` for stdout to have something (or end), or, when `writing`, for
    /// stdin to take more; says whether either happened.
    pub(crate) fn wait(&mut self, writing: bool, timeout: Duration) -> bool {
        let mut fds = [libc::pollfd {
            fd: self.stdout.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }; 2];
        let mut count = 1;
        if writing && let Some(stdin) = &self.stdin {
            fds[1] = libc::pollfd {
                fd: stdin.as_raw_fd(),
                events: libc::POLLOUT,
                revents: 0,
            };
            count = 2;
        }
        let millis = libc::c_int::try_from(timeout.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: poll(2) reads and writes only the `count` pollfd structs it is given.
        unsafe { libc::poll(fds.as_mut_ptr(), count, millis) > 0 }
    }
}

/// A child's stderr, its end non-blocking: read only as far as it goes at once, so that the
/// thread that keeps it and a caller taking what it holds can each drain it, one at a time.
pub(crate) struct StderrPipe(std::fs::File);

impl StderrPipe {
    pub(crate) fn new(pipe: ChildStderr) -> std::io::Result<StderrPipe> {
        set_nonblocking(pipe.as_raw_fd())?;
        Ok(StderrPipe(std::fs::File::from(std::os::fd::OwnedFd::from(pipe))))
    }

    /// Reads what the pipe holds now: `Some(n)` bytes (0 at its end), `None` when it is empty.
    pub(crate) fn read_now(&self, buffer: &mut [u8]) -> std::io::Result<Option<usize>> {
        loop {
            match (&self.0).read(buffer) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits up to `timeout` for the pipe to hold something, or to end.
    pub(crate) fn wait(&self, timeout: Duration) {
        let mut fd = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = libc::c_int::try_from(timeout.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: poll(2) reads and writes only the one pollfd struct it is given.
        unsafe { libc::poll(&mut fd, 1, millis) };
    }
}

/// Makes `fd` non-blocking: a worker's pipes are read and written only as far as they go at
/// once, the waiting done in poll(2).
fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl(2) on a descriptor this process owns, with integer arguments only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// What a file type names when it is a FIFO, a socket or a device.
pub(crate) fn special_kind(file_type: &FileType) -> Option<&'static str> {
    if file_type.is_fifo() {
        Some("FIFO")
    } else if file_type.is_socket() {
        Some("socket")
    } else if file_type.is_block_device() || file_type.is_char_device() {
        Some("device")
    } else {
        None
    }
}

/// Opens with O_NONBLOCK, which a regular file ignores and which keeps a FIFO from blocking
/// the open.
pub(crate) fn open_nonblocking(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(libc::O_NONBLOCK)
}

/// A file's permission bits.
pub(crate) fn file_mode(metadata: &Metadata) -> u32 {
    metadata.permissions().mode() & 0o7777
}

/// Permissions with the bits `mode`.
pub(crate) fn permissions_from_mode(mode: u32) -> Option<Permissions> {
    Some(Permissions::from_mode(mode))
}

/// Makes directories only their owner may enter (0700).
pub(crate) fn private_dir_builder() -> DirBuilder {
    let mut builder = DirBuilder::new();
    builder.mode(0o700);
    builder
}

/// Opens a file only its owner may read (0600), never through a symbolic link in its place.
pub(crate) fn no_follow_private(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o600).custom_flags(libc::O_NOFOLLOW)
}

/// The free bytes of the memory file system (tmpfs) at `path`; `None` when there is none there.
#[cfg(target_os = "linux")]
pub(crate) fn memory_fs_free(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statfs(2) writes only the struct it is given, zeroed here, and reads the
    // NUL-terminated path.
    let stat = unsafe {
        let mut stat: libc::statfs = std::mem::zeroed();
        if libc::statfs(path.as_ptr(), &mut stat) != 0 {
            return None;
        }
        stat
    };
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    #[allow(clippy::unnecessary_cast)] // f_type's width differs between targets
    let memory = stat.f_type as i64 == TMPFS_MAGIC;
    #[allow(clippy::unnecessary_cast)]
    let free = (stat.f_bavail as u64).saturating_mul(stat.f_bsize as u64);
    memory.then_some(free)
}

/// No memory file system is looked for outside Linux.
#[cfg(not(target_os = "linux"))]
pub(crate) fn memory_fs_free(_path: &Path) -> Option<u64> {
    None
}

/// The file whose lock stands for directory `dir`'s: the directory itself, which leaves no
/// file behind.
pub(crate) fn dir_lock_file(dir: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(dir)
}

/// What separates a path's components besides `/`: nothing on Unix (a backslash is the shell's escape).
pub(crate) const PATH_SEPARATORS: &str = "";

/// `command` run by the shell with `args` appended as `"$@"`, each one word, unexpanded:
/// `sh -c 'command "$@"' sh ARGS...`.
pub(crate) fn shell_with_args(command: &str, args: &[std::ffi::OsString]) -> Command {
    let mut shell = Command::new("sh");
    if args.is_empty() {
        shell.arg("-c").arg(command);
    } else {
        shell.arg("-c").arg(format!("{command} \"$@\"")).arg("sh").args(args);
    }
    shell
}

/// Hands the write end of a pipe to the child `command` starts, as a descriptor it inherits
/// (std opens pipes close-on-exec; only this child's copy is made inheritable, in the child
/// between fork and exec). Returns what names it in the child, for [`take_pipe`].
pub(crate) fn pass_pipe(command: &mut Command, writer: &std::io::PipeWriter) -> std::io::Result<String> {
    let fd = writer.as_raw_fd();
    // SAFETY: the closure calls fcntl(2) only, which is async-signal-safe, on a descriptor
    // the parent keeps open until the child has started.
    unsafe {
        command.pre_exec(move || {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    Ok(fd.to_string())
}

/// In a child given a pipe by [`pass_pipe`]: its write end, named by `token`; `None` when the
/// token names no open descriptor past the standard three.
pub(crate) fn take_pipe(token: &str) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    let fd: RawFd = token.parse().ok().filter(|fd| *fd > 2)?;
    // SAFETY: fcntl(2) with F_GETFD only asks whether the descriptor is open.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return None;
    }
    // SAFETY: the descriptor is open, was handed to this process for this use alone, and is
    // owned by the one File made from it (the caller takes it once).
    Some(unsafe { std::fs::File::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::signal_behind_exit_code;

    /// A shell's 128 + N always; a shim's 256 − N only when asked, and only for a crash or a
    /// kill: exit(-1) (255) and exit(-2) stay codes, and so do the codes of stop signals.
    #[test]
    fn an_exit_code_stands_for_a_signal_by_the_shell_s_rule_and_when_asked_the_shim_s() {
        assert_eq!(signal_behind_exit_code(139, false), Some(libc::SIGSEGV));
        assert_eq!(signal_behind_exit_code(134, true), Some(libc::SIGABRT));
        assert_eq!(signal_behind_exit_code(128 + libc::SIGSTOP, false), None);
        assert_eq!(signal_behind_exit_code(128 + libc::SIGWINCH, false), None);
        assert_eq!(signal_behind_exit_code(245, false), None);
        assert_eq!(signal_behind_exit_code(245, true), Some(libc::SIGSEGV));
        assert_eq!(signal_behind_exit_code(256 - libc::SIGABRT, true), Some(libc::SIGABRT));
        assert_eq!(signal_behind_exit_code(256 - libc::SIGKILL, true), Some(libc::SIGKILL));
        for code in [0, 1, 2, 65, 69, 127, 128, 193, 254, 255] {
            assert_eq!(signal_behind_exit_code(code, true), None, "{code}");
        }
    }
}
