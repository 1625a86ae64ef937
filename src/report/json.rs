//! The JSON report: `{"backend", "summary", "cases": [...]}` (docs/report-format.md), one
//! type that the writer fills with borrowed parts and the reader ([`super::read`]) owns.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use super::json_case::JsonCase;
use super::{RunFacts, RunReport, Summary};
use crate::backend::RuntimeInfo;
use crate::data::shard::Shard;
use crate::gate::judging::GateSummary;

/// The JSON report's format: 2 added `format` and `baseline`; 3 the status `not_verified`
/// (the verdict `refusal-not-verified`) and a must-refuse data set's `twin`. A report without
/// `format` is format 1; every older format still reads.
pub(super) const REPORT_FORMAT: u32 = 3;

/// The report as written and read; fields added later are optional, so older reports read.
#[derive(Serialize, Deserialize)]
pub(super) struct JsonReport<'a> {
    /// Absent in format 1.
    #[serde(default)]
    pub format: Option<u32>,
    pub backend: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Cow<'a, RuntimeInfo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Absent in reports written before it, and in the harness's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Cow<'a, RunFacts>>,
    /// Written for readers of the file; never read back: a reader recomputes it from the
    /// cases rather than trust it.
    #[serde(skip_deserializing)]
    pub summary: Summary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Cow<'a, GateSummary>>,
    pub cases: Vec<JsonCase>,
}

/// Writes the report as pretty-printed JSON.
pub(crate) fn write_json(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let json = JsonReport {
        format: Some(REPORT_FORMAT),
        baseline: report.baseline.as_ref().map(Cow::Borrowed),
        backend: Cow::Borrowed(&report.backend),
        runtime: report.runtime.as_ref().map(Cow::Borrowed),
        shard: report.shard,
        run: report.run.as_ref().map(Cow::Borrowed),
        summary: report.summary(),
        cases: report
            .outcomes
            .iter()
            .map(|outcome| JsonCase::of(outcome, report.gate_of(outcome)))
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &json)?;
    writeln!(out)
}
