//! The Markdown report, for pull-request comments: a summary line and a table of every data
//! set that did not pass, or passed only within tolerance.

use std::io::{self, Write};

use super::RunReport;
use crate::judge::check::Status;
use crate::text::escape_cell;

/// Writes the report as Markdown.
pub fn write_markdown(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### pad-conformance: backend `{}`\n", escape_cell(&report.backend))?;
    writeln!(out, "**{}**\n", report.summary().line())?;
    if let Some(verdict) = &report.baseline {
        let mut lines = verdict
            .describe()
            .lines()
            .map(escape_cell)
            .collect::<Vec<_>>()
            .into_iter();
        writeln!(out, "**{}**\n", lines.next().unwrap_or_default())?;
        for line in lines {
            writeln!(out, "- {}", line.trim())?;
        }
        writeln!(out)?;
    }
    let shown: Vec<_> = report
        .outcomes
        .iter()
        .filter(|o| o.status != Status::Passed || o.is_lossy_pass())
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    writeln!(out, "| status | case | operator | basis | message |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for outcome in shown {
        let (status, message) = if outcome.is_lossy_pass() {
            let error = outcome
                .max_abs_error
                .map(|e| format!("max abs error {e:e}"))
                .unwrap_or_default();
            ("passed, not bit-identical".to_owned(), error)
        } else if outcome.is_non_gating_failure() {
            let first = outcome.message.lines().next().unwrap_or_default();
            (format!("{} (not gating)", outcome.status.name()), first.to_owned())
        } else {
            let first = outcome.message.lines().next().unwrap_or_default();
            (outcome.status.name().to_owned(), first.to_owned())
        };
        writeln!(
            out,
            "| {status} | `{}` | {} | {} | {} |",
            escape_cell(&outcome.name()),
            escape_cell(&outcome.operator()),
            outcome.basis.kind,
            escape_cell(&message)
        )?;
    }
    Ok(())
}
