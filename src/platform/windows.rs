//! The Windows side of [`crate::platform`]: a Job object per worker, pipes read and written by
//! threads, crashes told by their NTSTATUS exit codes. Windows has no file modes a runner sets
//! (a user's temporary directory is private by its ACL), no FIFOs or sockets among files, and
//! file names that are UTF-16.

use std::fs::{DirBuilder, FileType, Metadata, OpenOptions, Permissions};
use std::io::{Read, Write};
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::os::windows::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, WAIT_OBJECT_0};
use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_OPEN_REPARSE_POINT;
use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, CTRL_C_EVENT, SetConsoleCtrlHandler};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation, SetInformationJobObject,
    TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, WaitForSingleObject};

/// Makes `command` start in a new console process group, so that Ctrl-C at the console
/// reaches the runner only; [`Group::of`] then puts it in a Job object.
pub(crate) fn start_in_new_group(command: &mut Command) -> &mut Command {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP)
}

/// A Job object holding a child and whatever it starts: terminating the job ends them all,
/// and so does closing its last handle (the runner dying). A process the child starts before
/// [`Group::of`] assigns it escapes the job: std starts children running, and a worker's first
/// moments are its own interpreter's start-up, which starts none.
pub(crate) struct Group {
    /// The job's handle, as an integer so that a group can move between threads.
    job: isize,
}

impl Group {
    /// A new job holding `child`.
    pub(crate) fn of(child: &Child) -> std::io::Result<Group> {
        // SAFETY: CreateJobObjectW with no attributes and no name returns a new handle or null.
        let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if job.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        let group = Group { job: job as isize };
        // SAFETY: a zeroed JOBOBJECT_EXTENDED_LIMIT_INFORMATION is a valid "no limits" value.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: the job handle is open; the information is the struct the class names, with
        // its size; the process handle is the child's, open while `child` lives.
        let assigned = unsafe {
            SetInformationJobObject(
                job,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            ) != 0
                && AssignProcessToJobObject(job, child.as_raw_handle() as HANDLE) != 0
        };
        if !assigned {
            return Err(std::io::Error::last_os_error());
        }
        Ok(group)
    }

    /// The number [`kill_group_token`] kills the group by.
    pub(crate) fn token(&self) -> isize {
        self.job
    }

    /// Terminates every process of the job.
    pub(crate) fn kill(&self) {
        kill_group_token(self.job);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: the handle is this group's own and closed once; closing the last handle of a
        // KILL_ON_JOB_CLOSE job ends what is left in it.
        unsafe { CloseHandle(self.job as HANDLE) };
    }
}

/// Terminates the job `token` names ([`Group::token`]). Safe from a console control handler,
/// which Windows runs on a thread of its own.
pub(crate) fn kill_group_token(token: isize) {
    if token != 0 {
        // SAFETY: TerminateJobObject on a handle that is open while it is registered; on any
        // other value it fails and does nothing.
        unsafe { TerminateJobObject(token as HANDLE, 1) };
    }
}

/// Windows shells report a crash by the process's own status: nothing to read back.
pub(crate) fn signal_behind_shell_exit(_status: ExitStatus) -> Option<ExitStatus> {
    None
}

/// Ends this process with `status`'s exit code: a crash's NTSTATUS code (0xc0000005) is a
/// crash to whoever reads it, and Windows has no signals to raise again.
pub(crate) fn end_as(status: ExitStatus, _shim_codes: bool) -> ! {
    std::process::exit(status.code().unwrap_or(1))
}

/// Whether `child` has exited, without waiting: its handle, held by `child`, keeps its
/// process id from being reused.
pub(crate) fn has_exited(child: &Child) -> bool {
    // SAFETY: WaitForSingleObject with a zero timeout on the child's open process handle.
    unsafe { WaitForSingleObject(child.as_raw_handle() as HANDLE, 0) == WAIT_OBJECT_0 }
}

/// Windows has no signals: a crash is an exit code ([`describe_crash`]).
pub(crate) fn exit_signal(_status: ExitStatus) -> Option<i32> {
    None
}

/// "crashed with 0xc0000005 (STATUS_ACCESS_VIOLATION)" when the exit code is an NTSTATUS
/// error (a crash, an abort, a terminated job); `None` for an ordinary exit code.
pub(crate) fn describe_crash(status: ExitStatus) -> Option<String> {
    let code = status.code()? as u32;
    (code >= 0xc000_0000).then(|| format!("crashed with {code:#010x} ({})", status_name(code)))
}

/// The name of the NTSTATUS codes a crashing process ends with.
fn status_name(code: u32) -> &'static str {
    match code {
        0xc000_0005 => "STATUS_ACCESS_VIOLATION",
        0xc000_001d => "STATUS_ILLEGAL_INSTRUCTION",
        0xc000_008e | 0xc000_0094 => "STATUS_INTEGER_DIVIDE_BY_ZERO or float fault",
        0xc000_00fd => "STATUS_STACK_OVERFLOW",
        0xc000_0409 => "STATUS_STACK_BUFFER_OVERRUN: an abort (__fastfail)",
        0xc000_0017 => "STATUS_NO_MEMORY",
        _ => "see ntstatus.h",
    }
}

/// The most chunks of a worker's stdout read ahead and not yet taken: the reading thread
/// waits beyond that, so a worker that prints without end costs no memory.
const READ_AHEAD: usize = 16;

/// A worker's stdin and stdout, each served by a thread of its own (anonymous pipes on
/// Windows have no non-blocking mode to poll): the reader sends what it reads, the writer
/// writes what it is sent.
pub(crate) struct WorkerPipes {
    /// Lines for the writing thread; `None` once stdin is closed.
    to_writer: Option<Sender<Vec<u8>>>,
    /// The writing thread's error, once it had one.
    write_error: Arc<Mutex<Option<std::io::ErrorKind>>>,
    from_reader: Receiver<std::io::Result<Vec<u8>>>,
    /// What was received and not yet taken (a chunk from `taken` on, or a read's error); an
    /// empty chunk is the end.
    chunk: Option<std::io::Result<Vec<u8>>>,
    taken: usize,
}

impl WorkerPipes {
    pub(crate) fn new(mut stdin: ChildStdin, mut stdout: ChildStdout) -> std::io::Result<WorkerPipes> {
        let (to_writer, lines) = channel::<Vec<u8>>();
        let write_error = Arc::new(Mutex::new(None));
        let error = Arc::clone(&write_error);
        std::thread::Builder::new().name("worker stdin".into()).spawn(move || {
            for line in lines {
                if let Err(e) = stdin.write_all(&line).and_then(|()| stdin.flush()) {
                    *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.kind());
                    return;
                }
            }
        })?;
        let (chunks, from_reader): (SyncSender<_>, _) = sync_channel(READ_AHEAD);
        std::thread::Builder::new()
            .name("worker stdout".into())
            .spawn(move || {
                let mut buffer = vec![0u8; 64 << 10];
                loop {
                    let read = stdout.read(&mut buffer);
                    let end = !matches!(read, Ok(1..));
                    let sent = match read {
                        Ok(n) => chunks.send(Ok(buffer[..n].to_vec())),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => chunks.send(Err(e)),
                    };
                    if end || sent.is_err() {
                        return;
                    }
                }
            })?;
        Ok(WorkerPipes {
            to_writer: Some(to_writer),
            write_error,
            from_reader,
            chunk: None,
            taken: 0,
        })
    }

    /// Whether the worker's stdin is still open.
    pub(crate) fn input_open(&self) -> bool {
        self.to_writer.is_some()
    }

    /// Closes the worker's stdin once what was written reached it: it reads end of file.
    pub(crate) fn close_input(&mut self) {
        self.to_writer = None;
    }

    /// Hands `bytes` to the writing thread, all of them; an error once it failed to write.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(kind) = *self.write_error.lock().unwrap_or_else(|e| e.into_inner()) {
            return Err(kind.into());
        }
        let writer = self.to_writer.as_ref().ok_or(std::io::ErrorKind::BrokenPipe)?;
        writer
            .send(bytes.to_vec())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(bytes.len())
    }

    /// Reads what stdout has now; `WouldBlock` when it has nothing, `Ok(0)` at its end.
    pub(crate) fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.chunk.is_none() {
            match self.from_reader.try_recv() {
                Ok(chunk) => self.chunk = Some(chunk),
                Err(TryRecvError::Empty) => return Err(std::io::ErrorKind::WouldBlock.into()),
                Err(TryRecvError::Disconnected) => return Ok(0),
            }
        }
        let chunk = self.chunk.take().expect("received")?;
        let n = buffer.len().min(chunk.len() - self.taken);
        buffer[..n].copy_from_slice(&chunk[self.taken..self.taken + n]);
        self.taken += n;
        if self.taken == chunk.len() {
            self.taken = 0;
        } else {
            self.chunk = Some(Ok(chunk));
        }
        Ok(n)
    }

    /// Waits up to `timeout` for stdout to have something (or end); says whether it did.
    /// Writing never waits: the writing thread takes every line at once.
    pub(crate) fn wait(&mut self, _writing: bool, timeout: Duration) -> bool {
        if self.chunk.is_some() {
            return true;
        }
        match self.from_reader.recv_timeout(timeout) {
            Ok(chunk) => {
                self.chunk = Some(chunk);
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => true,
        }
    }
}

/// How often [`StderrPipe::wait`] looks at the pipe: anonymous pipes on Windows can be
/// peeked at, not waited on.
const STDERR_PEEK: Duration = Duration::from_millis(10);

/// A child's stderr, read only as far as it goes at once (what PeekNamedPipe says it holds),
/// so that the thread that keeps it and a caller taking what it holds can each drain it, one
/// at a time.
pub(crate) struct StderrPipe(std::fs::File);

impl StderrPipe {
    pub(crate) fn new(pipe: ChildStderr) -> std::io::Result<StderrPipe> {
        Ok(StderrPipe(std::fs::File::from(
            std::os::windows::io::OwnedHandle::from(pipe),
        )))
    }

    /// Reads what the pipe holds now: `Some(n)` bytes (0 at its end), `None` when it is empty.
    pub(crate) fn read_now(&self, buffer: &mut [u8]) -> std::io::Result<Option<usize>> {
        use windows_sys::Win32::Foundation::ERROR_BROKEN_PIPE;
        use windows_sys::Win32::System::Pipes::PeekNamedPipe;
        let mut available: u32 = 0;
        // SAFETY: PeekNamedPipe on the pipe's open handle, writing only `available`.
        let peeked = unsafe {
            PeekNamedPipe(
                self.0.as_raw_handle() as HANDLE,
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                &mut available,
                std::ptr::null_mut(),
            )
        };
        if peeked == 0 {
            let error = std::io::Error::last_os_error();
            return match error.raw_os_error() {
                Some(code) if code == ERROR_BROKEN_PIPE as i32 => Ok(Some(0)),
                _ => Err(error),
            };
        }
        if available == 0 {
            return Ok(None);
        }
        let n = buffer.len().min(available as usize);
        (&self.0).read(&mut buffer[..n]).map(Some)
    }

    /// Waits up to `timeout`, at most [`STDERR_PEEK`]: the caller then reads what came.
    pub(crate) fn wait(&self, timeout: Duration) {
        std::thread::sleep(timeout.min(STDERR_PEEK));
    }
}

/// No FIFOs, sockets or devices among a directory's files on Windows.
pub(crate) fn special_kind(_file_type: &FileType) -> Option<&'static str> {
    None
}

/// Opening a file never blocks on Windows.
pub(crate) fn open_nonblocking(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

/// A file's mode as Unix would give it: read-only or not.
pub(crate) fn file_mode(metadata: &Metadata) -> u32 {
    if metadata.permissions().readonly() {
        0o444
    } else {
        0o666
    }
}

/// No mode is set on Windows: a new file is private by its directory's ACL.
pub(crate) fn permissions_from_mode(_mode: u32) -> Option<Permissions> {
    None
}

/// A directory builder: the user's temporary directory is private by its ACL.
pub(crate) fn private_dir_builder() -> DirBuilder {
    DirBuilder::new()
}

/// Opens the reparse point itself (a symbolic link or junction), never what it points to.
pub(crate) fn no_follow_private(options: &mut OpenOptions) -> &mut OpenOptions {
    options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
}

/// No memory file system is looked for on Windows.
pub(crate) fn memory_fs_free(_path: &Path) -> Option<u64> {
    None
}

/// The program's handler of console interrupts ([`on_console_interrupt`]).
static CONSOLE_HANDLER: std::sync::OnceLock<fn(i32) -> bool> = std::sync::OnceLock::new();

/// Calls `handler` on a console interrupt with the Unix signal it stands for: 2 (SIGINT) for
/// Ctrl-C and Ctrl-Break, 15 (SIGTERM) for closing the console, logging off and shutting down.
/// The handler says whether it handled it; when not, Windows ends the process. Windows runs
/// it on a thread of its own, so it may do what any thread does. For the binary only: the
/// library installs no handler.
pub(crate) fn on_console_interrupt(handler: fn(i32) -> bool) -> std::io::Result<()> {
    unsafe extern "system" fn console_handler(event: u32) -> windows_sys::core::BOOL {
        let signal = if event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT {
            2
        } else {
            15
        };
        CONSOLE_HANDLER.get().is_some_and(|handler| handler(signal)).into()
    }
    if CONSOLE_HANDLER.set(handler).is_err() {
        return Err(std::io::Error::other("a console handler is installed already"));
    }
    // SAFETY: the handler is a plain function that lives as long as the program.
    if unsafe { SetConsoleCtrlHandler(Some(console_handler), 1) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The file whose lock stands for directory `dir`'s. Windows locks files, not directories:
/// `.pad-conformance.lock` in `dir`, left there (removing it would race with the next one to
/// lock it).
pub(crate) fn dir_lock_file(dir: &Path) -> std::io::Result<std::fs::File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(".pad-conformance.lock"))
}

/// What separates a path's components besides `/`: the backslash.
pub(crate) const PATH_SEPARATORS: &str = "\\";

/// `command` run by the shell with `args` appended, each in double quotes (the runner's
/// paths hold none).
pub(crate) fn shell_with_args(command: &str, args: &[std::ffi::OsString]) -> Command {
    let mut line = command.to_owned();
    for arg in args {
        line.push_str(&format!(" \"{}\"", arg.to_string_lossy()));
    }
    let mut shell = Command::new("cmd");
    shell.raw_arg(format!("/d /s /c \"{line}\""));
    shell
}

/// Hands the write end of a pipe to the child `command` starts, as a handle it inherits:
/// std starts children inheriting every inheritable handle, so the handle is made so here and
/// the caller drops its copy once the child has started (a sibling started meanwhile may
/// inherit it too: the caller then sees the child's end by its exit, not the pipe's close).
/// Returns what names it in the child, for [`take_pipe`].
pub(crate) fn pass_pipe(_command: &mut Command, writer: &std::io::PipeWriter) -> std::io::Result<String> {
    use windows_sys::Win32::Foundation::{HANDLE_FLAG_INHERIT, SetHandleInformation};
    let handle = writer.as_raw_handle();
    // SAFETY: the handle is the pipe's own, open while `writer` lives.
    if unsafe { SetHandleInformation(handle as HANDLE, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((handle as usize).to_string())
}

/// In a child given a pipe by [`pass_pipe`]: its write end, named by `token`.
pub(crate) fn take_pipe(token: &str) -> Option<std::fs::File> {
    use std::os::windows::io::{FromRawHandle, RawHandle};
    let handle: usize = token.parse().ok().filter(|h| *h != 0)?;
    // SAFETY: the handle was inherited for this use alone and is owned by the one File made
    // from it (the caller takes it once).
    Some(unsafe { std::fs::File::from_raw_handle(handle as RawHandle) })
}
