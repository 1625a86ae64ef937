//! The terminal report: one line per data set as it finishes, the mismatch report under
//! failures, and the summary line last.

use std::io::{self, Write};

use super::RunReport;
use super::escape::{escape_line, escape_text};
use crate::check::{Outcome, Status};

/// Whether to colour the status words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colors {
    /// Plain text, for files, pipes and NO_COLOR.
    Never,
    /// ANSI colours, for a terminal.
    Always,
}

impl Colors {
    /// Colour only on a terminal, and never when NO_COLOR is set (<https://no-color.org>).
    pub fn detect(stream_is_terminal: bool) -> Colors {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        if stream_is_terminal && !no_color {
            Colors::Always
        } else {
            Colors::Never
        }
    }
}

/// Writes the report's last lines: the backend's time and the summary. The outcome lines
/// come before, written by [`write_outcome`] as each data set finishes.
pub fn write_summary(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "backend {}: {:.2}s",
        escape_line(&report.backend),
        report.duration.as_secs_f64()
    )?;
    writeln!(out, "{}", report.summary().line())
}

/// Writes one data set's line, and the message under anything that did not pass.
pub fn write_outcome(outcome: &Outcome, colors: Colors, out: &mut dyn Write) -> io::Result<()> {
    let (word, color) = match outcome.status {
        Status::Passed => ("PASS", "32"),
        Status::Failed => ("FAIL", "31"),
        Status::Errored => ("ERROR", "31;1"),
        Status::Skipped => ("SKIP", "33"),
    };
    let word = match colors {
        Colors::Always => format!("\x1b[{color}m{word:<5}\x1b[0m"),
        Colors::Never => format!("{word:<5}"),
    };
    let exact = match (outcome.status, outcome.bit_exact) {
        (Status::Passed, Some(false)) => "  (within tolerance, not bit-exact)",
        _ => "",
    };
    writeln!(
        out,
        "{word} {}  {}  {:.1}ms{exact}",
        escape_line(&outcome.name()),
        escape_line(&outcome.operator()),
        outcome.duration.as_secs_f64() * 1e3
    )?;
    if outcome.status != Status::Passed && !outcome.message.is_empty() {
        for line in escape_text(&outcome.message).lines() {
            writeln!(out, "      {line}")?;
        }
    }
    Ok(())
}
