//! The JSON report: `{"backend", "summary", "cases": [...]}` (docs/report-format.md).

use std::io::{self, Write};

use serde::Serialize;

use super::{RunReport, Summary};
use crate::check::Outcome;

#[derive(Serialize)]
struct JsonReport<'a> {
    backend: &'a str,
    summary: Summary,
    cases: &'a [Outcome],
}

/// Writes the report as pretty-printed JSON.
pub fn write_json(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let json = JsonReport {
        backend: &report.backend,
        summary: report.summary(),
        cases: &report.outcomes,
    };
    serde_json::to_writer_pretty(&mut *out, &json)?;
    writeln!(out)
}
