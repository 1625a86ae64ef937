//! Where a verb's report goes: `--output FILE` or standard output ([`Output`]), in the format
//! `--format` or the file's extension chooses, never over an input, and finishing a write.

use std::io;
use std::path::PathBuf;

use crate::data::output_paths::{Named, check_outputs};
pub(super) use crate::pipeline::output::Output;

use super::fatal::Fatal;

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
    let out = Output::open(path.map(PathBuf::as_path))?;
    let terminal = out.is_terminal();
    Ok((out, terminal))
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
    Ok(out.finish(written)?)
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
