//! `matrix --report`: a backend's row read from the JSON report of a run it already made (a
//! gate's run in CI), instead of running it again. The report is hostile input: it must be one
//! whole run (merge's checks of a single part) under exactly the options and over exactly the
//! selection the matrix would run, and without a profile, so that every row counts the same
//! data sets; its baseline judgement is dropped.

use std::path::Path;

use crate::report::{RunFacts, RunReport, read_json_report};
use crate::text::shown_path;

use crate::cli::fatal::Fatal;
use crate::cli::merge::merge_reports;

/// The run read from `path` as a row of the matrix whose run would record `expected`, its data
/// sets in `order` (the matrix's).
pub(super) fn row_from_report(path: &Path, expected: &RunFacts, order: &[String]) -> Result<RunReport, Fatal> {
    let report = read_json_report(path)?;
    let Some(facts) = &report.run else {
        return Err(Fatal(format!(
            "{}: records no \"run\" (a report older than run facts): its options are unknown, so it is no row of this matrix",
            shown_path(path)
        )));
    };
    if let Some((field, ours, theirs)) = expected.differs(facts) {
        return Err(Fatal(format!(
            "{}: {field} {theirs}, but the matrix runs with {ours}: run the backend with the matrix's options (no profile) to read its row from the report",
            shown_path(path)
        )));
    }
    // One part, whole: complete, not a shard, its data sets exactly the selection it records.
    let mut row = merge_reports(vec![(path.to_owned(), report)], order).map_err(|e| Fatal(e.to_string()))?;
    row.gates.clear();
    Ok(row)
}
