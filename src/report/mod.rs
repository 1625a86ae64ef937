//! Reports of a run: human (terminal), JSON, JUnit XML and Markdown. All are written from a
//! [`RunReport`]; docs/report-format.md documents the machine-readable ones.

mod escape;
mod human;
mod json;
mod junit;
mod markdown;

use std::time::Duration;

use serde::Serialize;

use crate::check::{Outcome, Status};

pub use escape::{escape_line, escape_text};
pub use human::{Colors, write_outcome, write_summary};
pub use json::write_json;
pub use junit::write_junit;
pub(crate) use markdown::escape_cell;
pub use markdown::write_markdown;

/// The outcomes of one backend over a set of cases.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The backend's name.
    pub backend: String,
    /// One outcome per data set, in job order.
    pub outcomes: Vec<Outcome>,
    /// Wall-clock time of the whole run.
    pub duration: Duration,
}

/// Counts per status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Data sets that [passed](Status::Passed).
    pub passed: usize,
    /// Data sets that [failed](Status::Failed).
    pub failed: usize,
    /// Data sets that [errored](Status::Errored).
    pub errored: usize,
    /// Data sets [skipped](Status::Skipped) as not applicable.
    pub skipped: usize,
}

impl Summary {
    /// Counts the statuses of `outcomes`.
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Summary {
        let mut summary = Summary::default();
        for outcome in outcomes {
            *match outcome.status {
                Status::Passed => &mut summary.passed,
                Status::Failed => &mut summary.failed,
                Status::Errored => &mut summary.errored,
                Status::Skipped => &mut summary.skipped,
            } += 1;
        }
        summary
    }

    /// `N passed, N failed, N errored, N skipped`: the closing line of every human report.
    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} errored, {} skipped",
            self.passed, self.failed, self.errored, self.skipped
        )
    }
}

impl RunReport {
    /// Counts the statuses of the outcomes.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.outcomes)
    }
}

/// The report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One line per data set as it finishes, the summary last.
    Human,
    /// docs/report-format.md.
    Json,
    /// JUnit XML, for CI systems.
    Junit,
    /// A Markdown table.
    Markdown,
}

/// The first line of `text`, cut to `max_chars` characters with `…`: how a reason fits a
/// baseline entry or a table cell.
pub fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max_chars {
        format!("{}…", line.chars().take(max_chars).collect::<String>())
    } else {
        line.to_owned()
    }
}
