//! Files written whole or not at all: the text goes to a temporary file beside the target,
//! which replaces the target by a rename only once it is complete. A run that fails, is killed
//! or cannot write leaves the old baseline or report as it was, never a truncated one.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A file being written; the target is replaced only by [`AtomicFile::commit`]. Dropped
/// without a commit, the temporary file is removed and the target left untouched.
#[derive(Debug)]
pub struct AtomicFile {
    temp: BufWriter<NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path`, through a temporary file in the same directory (so that the
    /// rename stays on one file system).
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new().prefix(".pad-conformance-").tempfile_in(dir)?;
        Ok(AtomicFile {
            temp: BufWriter::new(temp),
            path: path.to_owned(),
        })
    }

    /// Flushes the text and puts the file in place of the target.
    pub fn commit(self) -> io::Result<()> {
        let temp = self.temp.into_inner().map_err(io::IntoInnerError::into_error)?;
        temp.as_file().sync_all()?;
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
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_changes_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
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
