//! Where reports go: `--output FILE` or standard output, and finishing a write.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use super::Fatal;

/// Opens `--output FILE` or standard output; says whether it is a terminal.
pub fn open_output(path: Option<&PathBuf>) -> Result<(Box<dyn Write>, bool), Fatal> {
    Ok(match path {
        Some(path) => {
            let file = File::create(path).map_err(|e| Fatal(format!("writing {}: {e}", path.display())))?;
            (Box::new(io::BufWriter::new(file)), false)
        }
        None => (Box::new(io::stdout().lock()), io::stdout().is_terminal()),
    })
}

/// Finishes a report write: a closed pipe is not an error, anything else is.
pub fn finish(written: io::Result<()>, out: &mut dyn Write) -> Result<(), Fatal> {
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fatal(format!("writing the report: {e}"))),
        Ok(()) => Ok(()),
    }
}
