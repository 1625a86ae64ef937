//! Where the main command's reports go: each `--output` in the format its extension names
//! (one `--output` in the format `--format` names, as before several were allowed), standard
//! output without any, and with several the human log streamed to standard output when none of
//! them is human.

use std::path::{Path, PathBuf};

use crate::cli::args::RunFormat;
use crate::cli::fatal::Fatal;
use crate::cli::run_report::report_format;
use crate::pipeline::report_format::ReportFormat;
use crate::text::shown_path;

/// Each report of a run given `--format` and the `--output` files, with its file (`None` for
/// standard output). One file is written as before several were allowed — in the format
/// `--format` names, else its extension's, else the human one — and standard output stays
/// quiet. Several files are each named by their format's extension (`--format` would name one
/// format for all; any other extension is refused, naming the file), and the human log streams
/// to standard output unless one of them takes it.
pub(super) fn report_targets(
    format: Option<RunFormat>,
    outputs: &[PathBuf],
) -> Result<Vec<(ReportFormat, Option<&Path>)>, Fatal> {
    let given = format.map(report_format);
    let mut targets: Vec<_> = match outputs {
        [] => return Ok(vec![(given.unwrap_or(ReportFormat::Human), None)]),
        [one] => {
            let format = given.or_else(|| ReportFormat::of_path(one));
            return Ok(vec![(format.unwrap_or(ReportFormat::Human), Some(one.as_path()))]);
        }
        several if given.is_some() => {
            return Err(Fatal(format!(
                "--format with {} --output files: each report's format is its file's extension ({}); leave --format out",
                several.len(),
                ReportFormat::extensions()
            )));
        }
        several => several
            .iter()
            .map(|path| match ReportFormat::of_path(path) {
                Some(format) => Ok((format, Some(path.as_path()))),
                None => Err(Fatal(format!(
                    "--output {}: its extension names no report format; with several --output, name each file by its format: {}",
                    shown_path(path),
                    ReportFormat::extensions()
                ))),
            })
            .collect::<Result<_, _>>()?,
    };
    // The reports go to files: the log still streams to the terminal, as without them.
    if !targets.iter().any(|(format, _)| *format == ReportFormat::Human) {
        targets.push((ReportFormat::Human, None));
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(format: Option<RunFormat>, outputs: &[&str]) -> Result<Vec<(ReportFormat, Option<String>)>, String> {
        let outputs: Vec<PathBuf> = outputs.iter().map(PathBuf::from).collect();
        report_targets(format, &outputs)
            .map(|t| {
                t.into_iter()
                    .map(|(format, path)| (format, path.map(|p| p.display().to_string())))
                    .collect()
            })
            .map_err(|e| e.0)
    }

    #[test]
    fn each_of_several_outputs_takes_its_extension_s_format_and_the_log_streams_when_none_is_human() {
        use ReportFormat::{Html, Human, Json, Junit, Markdown};
        let file = |s: &str| Some(s.to_owned());
        assert_eq!(targets(None, &[]), Ok(vec![(Human, None)]));
        assert_eq!(targets(Some(RunFormat::Json), &[]), Ok(vec![(Json, None)]));
        // One file: --format as before, else its extension, else human; nothing streams.
        assert_eq!(
            targets(Some(RunFormat::Junit), &["r.json"]),
            Ok(vec![(Junit, file("r.json"))])
        );
        assert_eq!(targets(None, &["r.md"]), Ok(vec![(Markdown, file("r.md"))]));
        assert_eq!(targets(None, &["run.report"]), Ok(vec![(Human, file("run.report"))]));
        assert_eq!(
            targets(None, &["a.json", "b.XML", "c.md", "d.html"]),
            Ok(vec![
                (Json, file("a.json")),
                (Junit, file("b.XML")),
                (Markdown, file("c.md")),
                (Html, file("d.html")),
                (Human, None)
            ])
        );
        // A human file takes the log: standard output stays quiet.
        assert_eq!(
            targets(None, &["a.json", "run.log"]),
            Ok(vec![(Json, file("a.json")), (Human, file("run.log"))])
        );
        let unknown = targets(None, &["a.json", "b.yaml"]).unwrap_err();
        assert!(
            unknown.starts_with("--output b.yaml: its extension names no report format"),
            "{unknown}"
        );
        let with_format = targets(Some(RunFormat::Json), &["a.json", "b.xml"]).unwrap_err();
        assert!(
            with_format.starts_with("--format with 2 --output files"),
            "{with_format}"
        );
    }
}
