//! The runner as the subreaper of what it starts (Linux's `PR_SET_CHILD_SUBREAPER`). A process
//! that left its command's process group (`setsid`, as a daemon does) is out of reach of
//! the group's kill; once its parent exits it becomes the child of the nearest subreaper
//! instead of init's, so the runner, being one, finds it among its own children, ends it and
//! reaps it. Only the `pad-conformance` binary asks for this ([`adopt_orphans`]): the library
//! never adopts inside a user's program, whose descendants are that program's business.
//!
//! Elsewhere nothing is adopted and no child is found: macOS has no subreaper, and on Windows
//! a command's Job object already holds all it starts (platform/windows.rs).
//!
//! Children are found by reading /proc with system calls alone, into buffers on the stack, so
//! that a signal handler may do it too.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once this process is a subreaper: only then are its children looked through.
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// A child of this process, as the system shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChildProcess {
    pub(crate) pid: isize,
    /// Its process group ([`crate::platform::Group::token`] for a group the runner made).
    pub(crate) group: isize,
    pub(crate) session: isize,
    /// Exited, not yet reaped.
    pub(crate) zombie: bool,
}

/// Makes this process the subreaper of its descendants: an orphan among them becomes its child.
/// Says whether the system has subreapers (Linux); an error when it has and refused.
pub(crate) fn adopt_orphans() -> std::io::Result<bool> {
    let adopting = imp::adopt()?;
    ADOPTING.store(adopting, Ordering::SeqCst);
    Ok(adopting)
}

/// Whether [`adopt_orphans`] made this process a subreaper.
pub(crate) fn adopting() -> bool {
    ADOPTING.load(Ordering::SeqCst)
}

/// This process's own process group and session.
pub(crate) fn own_group_and_session() -> (isize, isize) {
    imp::own_group_and_session()
}

/// Calls `visit` with every child of this process, live or zombie. Async-signal-safe: it
/// allocates nothing, takes no lock and calls open(2), getdents64(2), read(2) and close(2).
pub(crate) fn for_each_child(visit: &mut dyn FnMut(ChildProcess)) {
    if adopting() {
        imp::for_each_child(visit);
    }
}

/// Kills (SIGKILL) child `pid`, found by [`for_each_child`] and not yet reaped, so its pid is
/// still its own. Async-signal-safe.
pub(crate) fn kill_child(pid: isize) {
    imp::kill_child(pid);
}

/// Reaps child `pid` if it has exited, without waiting; says whether it is gone (reaped now,
/// or no child of this process any more).
pub(crate) fn reap_child(pid: isize) -> bool {
    imp::reap_child(pid)
}

#[cfg(target_os = "linux")]
mod imp {
    use super::ChildProcess;

    pub(super) fn adopt() -> std::io::Result<bool> {
        // SAFETY: prctl(2) with integer arguments only.
        if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(true)
    }

    pub(super) fn own_group_and_session() -> (isize, isize) {
        // SAFETY: getpgrp(2) and getsid(2) of this process have no preconditions.
        unsafe { (libc::getpgrp() as isize, libc::getsid(0) as isize) }
    }

    /// getdents64(2)'s records, 8-byte aligned as the kernel lays them out.
    #[repr(C, align(8))]
    struct Entries([u8; 4096]);

    /// Where a `struct linux_dirent64` holds its record length (after d_ino and d_off) and its
    /// NUL-terminated name (after the length and d_type).
    const RECORD_LENGTH_AT: usize = 16;
    const NAME_AT: usize = 19;

    pub(super) fn for_each_child(visit: &mut dyn FnMut(ChildProcess)) {
        // SAFETY: getpid(2) has no preconditions.
        let me = unsafe { libc::getpid() } as isize;
        // SAFETY: open(2) of a NUL-terminated path.
        let dir = unsafe { libc::open(c"/proc".as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
        if dir < 0 {
            return;
        }
        let mut entries = Entries([0; 4096]);
        loop {
            // SAFETY: getdents64(2) writes at most the buffer's length into it.
            let filled = unsafe { libc::syscall(libc::SYS_getdents64, dir, entries.0.as_mut_ptr(), entries.0.len()) };
            let Ok(filled @ 1..) = usize::try_from(filled) else {
                break;
            };
            let records = &entries.0[..filled.min(entries.0.len())];
            let mut at = 0;
            while let Some(length) = records
                .get(at + RECORD_LENGTH_AT..at + NAME_AT - 1)
                .map(|bytes| usize::from(u16::from_ne_bytes([bytes[0], bytes[1]])))
            {
                let Some(name) = records.get(at + NAME_AT..at + length) else {
                    break;
                };
                let name = name.split(|&b| b == 0).next().unwrap_or_default();
                if let Some((parent, child)) = read_stat(name)
                    && parent == me
                {
                    visit(child);
                }
                at += length;
            }
        }
        // SAFETY: closes the descriptor opened above, once.
        unsafe { libc::close(dir) };
    }

    /// The parent and the facts of the process /proc names `name` (its pid), from
    /// /proc/PID/stat: `PID (COMMAND) STATE PPID PGRP SESSION ...`, the command name being
    /// anything up to the last `)`.
    fn read_stat(name: &[u8]) -> Option<(isize, ChildProcess)> {
        let pid = number(name)?;
        let mut path = [0u8; 32];
        let parts: [&[u8]; 3] = [b"/proc/", name, b"/stat\0"];
        let mut end = 0;
        for part in parts {
            path.get_mut(end..end + part.len())?.copy_from_slice(part);
            end += part.len();
        }
        // SAFETY: open(2) of the NUL-terminated path just written.
        let file = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if file < 0 {
            return None;
        }
        let mut text = [0u8; 1024];
        // SAFETY: read(2) writes at most the buffer's length into it; the descriptor is closed once.
        let read = unsafe {
            let read = libc::read(file, text.as_mut_ptr().cast(), text.len());
            libc::close(file);
            read
        };
        let text = text.get(..usize::try_from(read).ok()?)?;
        let after_name = text.iter().rposition(|&b| b == b')')? + 1;
        let mut fields = text[after_name..]
            .split(|&b| b == b' ' || b == b'\n')
            .filter(|field| !field.is_empty());
        let state = *fields.next()?.first()?;
        let parent = number(fields.next()?)?;
        let group = number(fields.next()?)?;
        let session = number(fields.next()?)?;
        let zombie = matches!(state, b'Z' | b'X');
        Some((
            parent,
            ChildProcess {
                pid,
                group,
                session,
                zombie,
            },
        ))
    }

    /// A decimal number of digits only.
    fn number(digits: &[u8]) -> Option<isize> {
        if digits.is_empty() {
            return None;
        }
        digits.iter().try_fold(0isize, |value, &digit| {
            let digit = digit.checked_sub(b'0').filter(|d| *d <= 9)?;
            value.checked_mul(10)?.checked_add(isize::from(digit))
        })
    }

    pub(super) fn kill_child(pid: isize) {
        if let Ok(pid) = libc::pid_t::try_from(pid)
            && pid > 0
        {
            // SAFETY: kill(2) is async-signal-safe and has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }

    pub(super) fn reap_child(pid: isize) -> bool {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        let mut status = 0;
        // SAFETY: waitpid(2) writes only the status it is given.
        match unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } {
            0 => false,
            // ECHILD: not a child of this process (any more); EINTR: ask again.
            -1 => std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR),
            _ => true,
        }
    }

    #[cfg(test)]
    mod tests {
        /// /proc's view of a child started here: its pid, its group (its own, as a runner's
        /// command's is), this session; a zombie once it exits, until reaped.
        #[test]
        fn a_child_is_found_with_its_group_and_session() {
            use std::os::unix::process::CommandExt;
            let mut child = std::process::Command::new("sleep")
                .arg("30")
                .process_group(0)
                .spawn()
                .unwrap();
            let pid = child.id() as isize;
            let find = || {
                let mut found = None;
                super::for_each_child(&mut |c| {
                    if c.pid == pid {
                        found = Some(c);
                    }
                });
                found
            };
            let (_, session) = super::own_group_and_session();
            let seen = find().expect("the child is listed");
            assert_eq!((seen.group, seen.session, seen.zombie), (pid, session, false));
            super::kill_child(pid);
            // A zombie until reaped, whatever the load: the kill is awaited by state, not time.
            while !find().expect("listed until reaped").zombie {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            while !super::reap_child(pid) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            assert_eq!(find(), None);
            assert!(child.try_wait().is_err(), "already reaped");
        }

        #[test]
        fn stat_numbers_are_digits_only() {
            assert_eq!(super::number(b"4194304"), Some(4_194_304));
            for bad in [&b""[..], b"-1", b"12a", b"99999999999999999999999"] {
                assert_eq!(super::number(bad), None, "{bad:?}");
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::ChildProcess;

    /// No subreaper here: a process that leaves its command's group is out of the runner's reach
    /// (macOS), or cannot leave its Job object (Windows).
    pub(super) fn adopt() -> std::io::Result<bool> {
        Ok(false)
    }

    pub(super) fn own_group_and_session() -> (isize, isize) {
        (0, 0)
    }

    pub(super) fn for_each_child(_visit: &mut dyn FnMut(ChildProcess)) {}

    pub(super) fn kill_child(_pid: isize) {}

    pub(super) fn reap_child(_pid: isize) -> bool {
        true
    }
}
