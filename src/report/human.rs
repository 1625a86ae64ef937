//! The terminal report: one line per data set, the mismatch report under failures, and the
//! summary line last.

use std::io::{self, Write};

use super::RunReport;
use crate::check::{Outcome, Status};

/// Whether to colour the status words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colors {
    Never,
    Always,
}

impl Colors {
    /// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
    pub fn detect(stream_is_terminal: bool) -> Colors {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        if stream_is_terminal && !no_color {
            Colors::Always
        } else {
            Colors::Never
        }
    }
}

/// Writes the human report.
pub fn write_human(report: &RunReport, colors: Colors, out: &mut dyn Write) -> io::Result<()> {
    for outcome in &report.outcomes {
        write_outcome(outcome, colors, out)?;
    }
    writeln!(out, "backend {}: {:.2}s", report.backend, report.duration.as_secs_f64())?;
    writeln!(out, "{}", report.summary().line())
}

fn write_outcome(outcome: &Outcome, colors: Colors, out: &mut dyn Write) -> io::Result<()> {
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
        outcome.name(),
        outcome.operator(),
        outcome.duration.as_secs_f64() * 1e3
    )?;
    if outcome.status != Status::Passed && !outcome.message.is_empty() {
        for line in outcome.message.lines() {
            writeln!(out, "      {line}")?;
        }
    }
    Ok(())
}
