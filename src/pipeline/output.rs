//! Where one report goes: a file, written whole when it is finished (an interrupted or failed
//! run leaves the previous file as it was), or standard output.

use std::io::{self, IsTerminal, Stdout, Write};
use std::path::{Path, PathBuf};

use crate::data::atomic_file::AtomicFile;
use crate::text::shown_path;

/// Where a report goes.
pub(crate) enum Output {
    /// A file, put in place by [`Output::finish`].
    File(AtomicFile, PathBuf),
    /// Standard output.
    Stdout(Stdout),
}

/// Why a report could not be written: its file (none for standard output) and the error.
#[derive(Debug, thiserror::Error)]
#[error("writing {}: {source}", path.as_deref().map_or_else(|| "the report".to_owned(), shown_path))]
pub(crate) struct WriteError {
    /// The report's file; `None` for standard output.
    pub path: Option<PathBuf>,
    /// Why.
    #[source]
    pub source: io::Error,
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::File(file, _) => file.write(buf),
            Output::Stdout(out) => out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::File(file, _) => file.flush(),
            Output::Stdout(out) => out.flush(),
        }
    }
}

impl Output {
    /// Starts writing the file at `path`, or standard output for none.
    pub(crate) fn open(path: Option<&Path>) -> Result<Output, WriteError> {
        Ok(match path {
            Some(path) => {
                let file = AtomicFile::create(path).map_err(|source| WriteError {
                    path: Some(path.to_owned()),
                    source,
                })?;
                Output::File(file, path.to_owned())
            }
            None => Output::Stdout(io::stdout()),
        })
    }

    /// Whether the report goes to a terminal (which may be coloured).
    pub(crate) fn is_terminal(&self) -> bool {
        matches!(self, Output::Stdout(out) if out.is_terminal())
    }

    /// Finishes a write that went as `written` says: a closed pipe is not an error, anything
    /// else is. A file is put in place only when everything was written.
    pub(crate) fn finish(mut self, written: io::Result<()>) -> Result<(), WriteError> {
        let flushed = written.and_then(|()| self.flush());
        match (flushed, self) {
            (Ok(()), Output::File(file, path)) => file.commit().map_err(|source| WriteError {
                path: Some(path),
                source,
            }),
            (Ok(()), Output::Stdout(_)) => Ok(()),
            (Err(e), _) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            (Err(source), Output::File(_, path)) => Err(WriteError {
                path: Some(path),
                source,
            }),
            (Err(source), Output::Stdout(_)) => Err(WriteError { path: None, source }),
        }
    }
}
