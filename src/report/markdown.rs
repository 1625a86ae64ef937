//! The Markdown report, for pull-request comments: a summary line and a table of every data
//! set that did not pass.

use std::io::{self, Write};

use super::RunReport;
use super::escape::escape_line;
use crate::check::Status;

/// Writes the report as Markdown.
pub fn write_markdown(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### pad-conformance: backend `{}`\n", escape_cell(&report.backend))?;
    writeln!(out, "**{}**\n", report.summary().line())?;
    let shown: Vec<_> = report.outcomes.iter().filter(|o| o.status != Status::Passed).collect();
    if shown.is_empty() {
        return Ok(());
    }
    writeln!(out, "| status | case | operator | message |")?;
    writeln!(out, "|---|---|---|---|")?;
    for outcome in shown {
        let message = outcome.message.lines().next().unwrap_or_default();
        writeln!(
            out,
            "| {} | `{}` | {} | {} |",
            outcome.status.name(),
            escape_cell(&outcome.name()),
            escape_cell(&outcome.operator()),
            escape_cell(message)
        )?;
    }
    Ok(())
}

/// Keeps a cell on one row: pipes escaped, backticks neutralized, control characters (line
/// breaks included) shown as escapes.
pub(crate) fn escape_cell(text: &str) -> String {
    escape_line(text).replace('|', "\\|").replace('`', "'")
}
