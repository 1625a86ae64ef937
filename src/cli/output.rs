//! Where reports go: `--output FILE` or standard output, and finishing a write.

use std::io::{self, IsTerminal, Stdout, Write};
use std::path::PathBuf;

use crate::data::atomic_file::AtomicFile;
use crate::data::output_paths::{Named, check_outputs};

use super::fatal::Fatal;

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

/// The format a verb writes, decided the same way for every verb and never by whether the
/// output is a terminal: `--format` when given, else `json` when `--output` names a `.json`
/// file, else the verb's human format.
pub(super) fn chosen_format<F: Copy>(given: Option<F>, output: Option<&PathBuf>, json: F, human: F) -> F {
    let names_json = output
        .and_then(|path| path.extension())
        .is_some_and(|extension| extension.eq_ignore_ascii_case("json"));
    match given {
        Some(format) => format,
        None if names_json => json,
        None => human,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_the_one_asked_else_json_for_a_json_file_else_human() {
        let json_file = PathBuf::from("target/part-1.JSON");
        let xml_file = PathBuf::from("target/junit.xml");
        assert_eq!(chosen_format(None, None, "json", "human"), "human");
        assert_eq!(chosen_format(None, Some(&json_file), "json", "human"), "json");
        assert_eq!(chosen_format(None, Some(&xml_file), "json", "human"), "human");
        assert_eq!(chosen_format(Some("junit"), Some(&json_file), "json", "human"), "junit");
    }
}
