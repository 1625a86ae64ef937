//! Files written whole or not at all: the text goes to a temporary file beside the target,
//! which replaces the target by a rename only once it is complete. A run that fails, is killed
//! or cannot write leaves the old baseline or report as it was, never a truncated one.
//!
//! Only a regular file (or nothing) is replaced. A symbolic link, dangling or not, a FIFO, a
//! socket, a device or a directory at the target is refused with an error saying what it is:
//! a rename would put a new file in place of the link or the FIFO, which is never what was
//! meant. A new file gets the mode the umask gives (0666 less the umask), as `>` in a shell
//! would; a replaced file keeps its own mode.
//!
//! On Windows the rename is MoveFileEx with MOVEFILE_REPLACE_EXISTING, which fails while
//! another process holds the target open without sharing its deletion (an editor, a virus
//! scanner): the write then fails with that error, the temporary file is removed and the
//! target stays as it was.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::platform::{file_mode, permissions_from_mode};

use tempfile::NamedTempFile;

use super::side_file::special_kind;

/// A file being written; the target is replaced only by [`AtomicFile::commit`]. Dropped
/// without a commit, the temporary file is removed and the target left untouched.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    temp: BufWriter<NamedTempFile>,
    path: PathBuf,
}

/// Why a target is not replaced, as the source of an `io::Error`.
#[derive(Debug, thiserror::Error)]
#[error("it is a {kind}, not a regular file; refusing to replace it")]
pub(crate) struct NotReplaced {
    /// `symbolic link`, `FIFO`, `socket`, `device`, `directory`, `special file`.
    pub kind: &'static str,
}

/// The mode to give the new file: the target's own when it exists (a regular file), else
/// 0666, which the umask then narrows when the file is created. Refuses any other target.
fn target_mode(path: &Path) -> io::Result<u32> {
    let metadata = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0o666),
        other => other?,
    };
    match special_kind(metadata.file_type()) {
        None => Ok(file_mode(&metadata)),
        Some(kind) => Err(io::Error::new(io::ErrorKind::InvalidInput, NotReplaced { kind })),
    }
}

/// The directory the temporary file goes in: the target's.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Whether `path` could be written: a regular file or nothing there, and a temporary file
/// can be made beside it. For a write that comes at the end of a long run, checked before it.
pub(crate) fn check_writable(path: &Path) -> io::Result<()> {
    target_mode(path)?;
    tempfile::Builder::new()
        .prefix(".pad-conformance-")
        .tempfile_in(dir_of(path))?;
    Ok(())
}

impl AtomicFile {
    /// Starts writing `path`, through a temporary file in the same directory (so that the
    /// rename stays on one file system). Refuses a target that is not a regular file.
    pub(crate) fn create(path: &Path) -> io::Result<AtomicFile> {
        let mode = target_mode(path)?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".pad-conformance-");
        let permissions = permissions_from_mode(mode);
        if let Some(permissions) = &permissions {
            builder.permissions(permissions.clone());
        }
        let temp = builder.tempfile_in(dir_of(path))?;
        if let Some(permissions) = permissions
            && mode != 0o666
        {
            // A replaced file's mode, exactly (the umask narrowed it at creation).
            temp.as_file().set_permissions(permissions)?;
        }
        Ok(AtomicFile {
            temp: BufWriter::new(temp),
            path: path.to_owned(),
        })
    }

    /// Flushes the text and puts the file in place of the target, if the target is still a
    /// regular file or nothing.
    pub(crate) fn commit(self) -> io::Result<()> {
        let temp = self.temp.into_inner().map_err(io::IntoInnerError::into_error)?;
        temp.as_file().sync_all()?;
        target_mode(&self.path)?;
        temp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

/// Writes `bytes` to `path` whole or not at all.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn only_a_regular_file_or_nothing_is_replaced() {
        let dir = crate::data::scratch_dir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "real").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        for (path, kind) in [
            (&link, "symbolic link"),
            (&dangling, "symbolic link"),
            (&dir.path().to_owned(), "directory"),
        ] {
            let error = write_atomically(path, b"new").unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("it is a {kind}, not a regular file; refusing to replace it")
            );
            assert!(check_writable(path).is_err());
        }
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "real");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        let error = write_atomically(Path::new("/dev/null"), b"new").unwrap_err();
        assert!(error.to_string().starts_with("it is a device"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn the_target_changes_only_on_commit() {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"new, half written").unwrap();
        file.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        drop(file);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        // Nothing left behind but the target.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
