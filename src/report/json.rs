//! The JSON report: `{"backend", "summary", "cases": [...]}` (docs/report-format.md).

use std::io::{self, Write};

use serde::Serialize;

use super::{RunReport, Summary};
use crate::backend::RuntimeInfo;
use crate::data::shard::Shard;
use crate::gate::baseline::GateSummary;
use crate::judge::check::Outcome;

/// The JSON report's format: 2 added `format` and `baseline`; a report without `format`
/// is format 1 and still reads.
pub const REPORT_FORMAT: u32 = 2;

#[derive(Serialize)]
struct JsonReport<'a> {
    format: u32,
    backend: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime: Option<&'a RuntimeInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a GateSummary>,
    cases: &'a [Outcome],
}

/// Writes the report as pretty-printed JSON.
pub fn write_json(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let json = JsonReport {
        format: REPORT_FORMAT,
        baseline: report.baseline.as_ref(),
        backend: &report.backend,
        runtime: report.runtime.as_ref(),
        shard: report.shard,
        summary: report.summary(),
        cases: &report.outcomes,
    };
    serde_json::to_writer_pretty(&mut *out, &json)?;
    writeln!(out)
}
