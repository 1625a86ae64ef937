//! Where the runner's private scratch directories go. A case run through a worker makes and
//! removes a few files (its model, its inputs, the worker's outputs); on a disk file system each
//! is a metadata update that can cost milliseconds (ext4 without a journal, mounted with
//! `discard`, scans the inodes it freed lately on every file it makes), on a memory file system
//! microseconds. So scratch goes on `/dev/shm` when that is a memory file system with room for
//! what the directory may hold, unless `TMPDIR` names a place; else in the temporary directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::platform::{memory_fs_free, permissions_from_mode};

/// The memory file system most Linux systems mount.
const SHM: &str = "/dev/shm";
/// The least free space the memory file system must have, whatever the caller needs.
const MIN_ROOM: u64 = 1 << 30;

/// Scratch directories of this process not yet removed.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Whether this process holds a scratch directory: a signal must then let the command unwind,
/// so that the directory is removed, rather than end the process where it stands.
pub(crate) fn held() -> bool {
    HELD.load(Ordering::SeqCst) > 0
}

/// A scratch directory, removed when dropped, and counted while it lives ([`held`]).
#[derive(Debug)]
pub(crate) struct Scratch(tempfile::TempDir);

impl Scratch {
    fn counted(dir: tempfile::TempDir) -> Scratch {
        HELD.fetch_add(1, Ordering::SeqCst);
        Scratch(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // The TempDir field is removed after this, so the count falls a moment early; a
        // signal in that moment finds the directory already going.
        HELD.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A new scratch directory (an unpredictable name starting with `prefix`) in `parent`.
pub(crate) fn scratch_in(parent: &Path, prefix: &str) -> std::io::Result<Scratch> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(parent)
        .map(Scratch::counted)
}

/// A new private directory (mode 0700 on Unix, an unpredictable name starting with `prefix`) for files
/// that may take up to `room` bytes at once, removed when dropped.
pub(crate) fn private_dir(prefix: &str, room: u64) -> std::io::Result<Scratch> {
    private_temp_dir(prefix, room).map(Scratch::counted)
}

fn private_temp_dir(prefix: &str, room: u64) -> std::io::Result<tempfile::TempDir> {
    let make = |parent: &Path| {
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix);
        if let Some(private) = permissions_from_mode(0o700) {
            builder.permissions(private);
        }
        builder.tempdir_in(parent)
    };
    let tmpdir_set = std::env::var_os("TMPDIR").is_some_and(|v| !v.is_empty());
    match parent(tmpdir_set, memory_fs_free(Path::new(SHM)), room) {
        // A memory file system that cannot take the directory after all: the usual place.
        Some(shm) => make(&shm).or_else(|_| make(&std::env::temp_dir())),
        None => make(&std::env::temp_dir()),
    }
}

/// A private scratch directory for a few files, where the runner puts its own: for the tests'
/// temporary trees (the suite makes thousands of files).
pub fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    private_temp_dir("pad-conformance-", 0)
}

/// The memory file system to use, or `None` for the temporary directory: never when `TMPDIR`
/// is set (the user chose), nor when the memory file system's free bytes (`free`, `None` when
/// it is missing or not one) are under `room` or [`MIN_ROOM`].
fn parent(tmpdir_set: bool, free: Option<u64>, room: u64) -> Option<PathBuf> {
    let free = free?;
    (!tmpdir_set && free >= room.max(MIN_ROOM)).then(|| PathBuf::from(SHM))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_file_system_is_used_only_with_room_and_no_tmpdir() {
        let shm = Some(PathBuf::from(SHM));
        assert_eq!(parent(false, Some(8 << 30), 4 << 30), shm);
        assert_eq!(parent(false, Some(MIN_ROOM), 1), shm);
        // Docker's default /dev/shm of 64 MiB is too small for a run's requests.
        assert_eq!(parent(false, Some(64 << 20), 1), None);
        assert_eq!(parent(false, Some(2 << 30), 4 << 30), None);
        assert_eq!(parent(false, None, 1), None);
        assert_eq!(parent(true, Some(8 << 30), 1), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_private_directory_is_made_somewhere_and_removed() {
        let dir = private_dir("pad-conformance-test-", 1).unwrap();
        let path = dir.path().to_owned();
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o700);
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn no_file_system_is_no_memory_file_system() {
        assert_eq!(memory_fs_free(Path::new("/no/such/dir")), None);
    }
}
