//! Where reports go: `--output FILE` or standard output, and finishing a write.

use std::io::{self, IsTerminal, Stdout, Write};
use std::path::PathBuf;

use crate::data::atomic_file::AtomicFile;
use crate::data::output_paths::{Named, check_outputs};

use super::Fatal;

/// Where a report goes: `--output FILE`, written whole on [`finish`] (an interrupted or
/// failed run leaves the previous file as it was), or standard output.
pub(super) enum Output {
    /// `--output FILE`.
    File(AtomicFile, PathBuf),
    /// Standard output.
    Stdout(Stdout),
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

/// Opens `--output FILE` or standard output; says whether it is a terminal.
pub(super) fn open_output(path: Option<&PathBuf>) -> Result<(Output, bool), Fatal> {
    Ok(match path {
        Some(path) => {
            let file = AtomicFile::create(path).map_err(|e| Fatal(format!("writing {}: {e}", path.display())))?;
            (Output::File(file, path.clone()), false)
        }
        None => (Output::Stdout(io::stdout()), io::stdout().is_terminal()),
    })
}

/// Checks before a run that no file it writes is one it reads ([`check_outputs`]).
pub(super) fn check_run_files(
    outputs: &[Named<'_>],
    inputs: &[Named<'_>],
    in_place: &[(&str, &str)],
) -> Result<(), Fatal> {
    Ok(check_outputs(outputs, inputs, in_place)?)
}

/// Finishes a report write: a closed pipe is not an error, anything else is. A file is put in
/// place only when everything was written.
pub(super) fn finish(written: io::Result<()>, out: Output) -> Result<(), Fatal> {
    let mut out = out;
    let flushed = written.and_then(|()| out.flush());
    match (flushed, out) {
        (Ok(()), Output::File(file, path)) => file
            .commit()
            .map_err(|e| Fatal(format!("writing {}: {e}", path.display()))),
        (Err(e), _) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        (Err(e), _) => Err(Fatal(format!("writing the report: {e}"))),
        (Ok(()), Output::Stdout(_)) => Ok(()),
    }
}
