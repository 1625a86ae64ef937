//! The reports of one run, each a format and an output: the human lines streamed into those
//! that take them while the run goes on, then every report finished by the one writer both
//! faces use.

use std::io::{self, Write};
use std::path::Path;

use super::output::{Output, WriteError};
use super::report_format::ReportFormat;
use crate::backend::Language;
#[cfg(feature = "junit")]
use crate::report::write_junit;
use crate::report::{Colors, Rerun, RunReport, write_json, write_markdown, write_summary};

/// How a face writes a format the library does not: the binary's HTML scoreboard.
pub(crate) type PageWriter<'a> = &'a dyn Fn(&RunReport, &mut dyn Write) -> io::Result<()>;

/// One report being written.
pub(crate) struct ReportOut {
    format: ReportFormat,
    out: Output,
    colors: Colors,
    /// Whether what was streamed into it went well: after an error nothing more is written.
    written: io::Result<()>,
}

impl ReportOut {
    /// A report in `format` into the file at `path`, or standard output for none, coloured
    /// only there, as `stdout_colors` says: a file is never coloured.
    pub(crate) fn open(
        format: ReportFormat,
        path: Option<&Path>,
        stdout_colors: Colors,
    ) -> Result<ReportOut, WriteError> {
        Ok(ReportOut {
            format,
            colors: match path {
                Some(_) => Colors::Never,
                None => stdout_colors,
            },
            out: Output::open(path)?,
            written: Ok(()),
        })
    }

    /// Its format.
    pub(crate) fn format(&self) -> ReportFormat {
        self.format
    }

    /// Writes what `write` writes (a data set's lines, as soon as it finishes) and flushes it,
    /// unless an earlier write failed.
    pub(crate) fn stream(&mut self, write: impl FnOnce(&mut dyn Write, Colors) -> io::Result<()>) {
        if self.written.is_ok() {
            self.written = write(&mut self.out, self.colors).and_then(|()| self.out.flush());
        }
    }

    /// Writes the rest of the report (all of it but a human report's streamed lines) and puts
    /// it in place; `failures_only` narrows the Markdown table, `page` writes HTML, `rerun`
    /// the human recap's commands, `language` the words of its hint.
    fn finish(
        mut self,
        report: &RunReport,
        failures_only: bool,
        (page, rerun, language): (Option<PageWriter<'_>>, Option<Rerun<'_>>, Option<Language>),
    ) -> Result<(), WriteError> {
        let out = &mut self.out;
        let written = self.written.and_then(|()| match self.format {
            ReportFormat::Human => write_summary(report, rerun, language, self.colors, out),
            ReportFormat::Json => write_json(report, out),
            #[cfg(feature = "junit")]
            ReportFormat::Junit => write_junit(report, out),
            ReportFormat::Markdown => write_markdown(report, failures_only, out),
            ReportFormat::Html => match page {
                Some(page) => page(report, out),
                None => Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "this run writes no HTML page",
                )),
            },
        });
        self.out.finish(written)
    }
}

/// Finishes every report of `report`, in order; the first that cannot be written is the error
/// (those after it are not put in place). `page` writes an HTML report, `rerun` the human
/// recap's commands to run a failure again.
pub(crate) fn write_reports(
    reports: Vec<ReportOut>,
    report: &RunReport,
    failures_only: bool,
    face: (Option<PageWriter<'_>>, Option<Rerun<'_>>, Option<Language>),
) -> Result<(), WriteError> {
    reports
        .into_iter()
        .try_for_each(|out| out.finish(report, failures_only, face))
}
