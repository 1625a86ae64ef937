//! Everything that differs between Unix and Windows, behind one set of names: a worker's process
//! group and how it is killed, whether a child exited without reaping it, a worker's pipes read
//! and written without blocking, how a process died, file kinds and modes, and file names as
//! text. The layers above hold no `cfg` of their own for these.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

mod name;

pub(crate) use imp::{
    Group, PATH_SEPARATORS, WorkerPipes, exit_signal, file_mode, has_exited, kill_group_token, lock_dir,
    memory_fs_free, no_follow_private, open_nonblocking, pass_pipe, permissions_from_mode, private_dir_builder, shell,
    special_kind, start_in_new_group, take_pipe,
};
pub(crate) use name::{lossless_name, slash_separated};

/// What a process's exit says when it crashed: `was killed by signal 6 (SIGABRT)` on Unix,
/// `crashed with 0xc0000005 (STATUS_ACCESS_VIOLATION)` on Windows.
pub(crate) use imp::describe_crash;
#[cfg(windows)]
pub(crate) use imp::on_console_interrupt;
