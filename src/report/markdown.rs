//! The Markdown report, for pull-request comments: a summary line and a table of every data
//! set that did not pass, or passed only within tolerance (only those that failed or errored,
//! with `failures_only`); with a baseline, each row says what it means for the gate.

use std::io::{self, Write};

use super::RunReport;
use crate::gate::gate_result::GateResult;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::Verdict;
use crate::text::{escape_cell, escape_link_target, strip_ansi};

/// Writes the report as Markdown; `failures_only` leaves out the rows of data sets that did
/// not fail or error.
pub(crate) fn write_markdown(report: &RunReport, failures_only: bool, out: &mut dyn Write) -> io::Result<()> {
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
        .filter(|o| {
            o.status() != Status::Passed || o.is_lossy_pass() || note(o).is_some() || o.passed_after().is_some()
        })
        .filter(|o| !failures_only || matches!(o.status(), Status::Failed | Status::Errored))
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let gated = report.baseline.is_some();
    if gated {
        writeln!(out, "| status | gate | case | operator | basis | message |")?;
        writeln!(out, "|---|---|---|---|---|---|")?;
    } else {
        writeln!(out, "| status | case | operator | basis | message |")?;
        writeln!(out, "|---|---|---|---|---|")?;
    }
    for outcome in shown {
        let (status, message) = if let Some(note) = note(outcome) {
            ("passed, with a note".to_owned(), note)
        } else if outcome.is_lossy_pass() {
            let deviation = outcome.deviation().map(|d| d.describe()).unwrap_or_default();
            ("passed, not bit-identical".to_owned(), deviation)
        } else if let Some(after) = outcome.passed_after() {
            let first = outcome
                .retry()
                .map_or("", |r| r.first.lines().next().unwrap_or_default());
            (after.to_owned(), first.to_owned())
        } else if outcome.is_non_gating_failure() {
            let first = outcome.message().lines().next().unwrap_or_default().to_owned();
            (format!("{} (not gating)", outcome.status().name()), first)
        } else {
            let first = outcome.message().lines().next().unwrap_or_default().to_owned();
            (outcome.status().name().to_owned(), first)
        };
        if gated {
            write!(out, "| {status} | {} ", gate_cell(report.gate_of(outcome)))?;
        } else {
            write!(out, "| {status} ")?;
        }
        writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            escape_cell(&outcome.name()),
            escape_cell(&outcome.operator()),
            outcome.basis().kind,
            escape_cell(&strip_ansi(&message))
        )?;
    }
    Ok(())
}

/// What a row means for the gate: a new failure in bold, a known one with the baseline's reason.
fn gate_cell(gate: Option<&GateResult>) -> String {
    match gate {
        Some(GateResult::NewFailure) => "**new failure**".to_owned(),
        Some(GateResult::KnownFailure { reason, tracking }) => match tracking {
            Some(link) => format!(
                "known: {} ([tracking]({}))",
                escape_cell(reason),
                escape_link_target(link)
            ),
            None => format!("known: {}", escape_cell(reason)),
        },
        Some(GateResult::Fixed { .. }) => "fixed: remove from the baseline".to_owned(),
        Some(GateResult::ChangedStatus { was, .. }) => format!("listed as {}: update the baseline", was.name()),
        Some(GateResult::ChangedWithCorpus { why, .. }) => format!("changed with the corpus: {}", escape_cell(why)),
        Some(GateResult::NotGating) => "not gating".to_owned(),
        Some(GateResult::NotVerified) => "not verified: its twin did not pass".to_owned(),
        Some(GateResult::Agrees) | None => String::new(),
    }
}

/// The note of a passing verdict a reader should still see (a refusal for another reason).
fn note(outcome: &Outcome) -> Option<String> {
    outcome.verdict().and_then(Verdict::note)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_loses_its_colours_and_a_name_shows_its_escapes() {
        let outcome = Outcome::example_said("w\x1b[2J", Status::Failed, "\x1b[1;31mboom\x1b[0m | <b>\nmore");
        let mut out = Vec::new();
        write_markdown(&RunReport::of("b", vec![outcome]), false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains('\x1b') && !text.contains("[1;31m"), "{text}");
        assert!(text.contains("| `w\\u{1b}[2J/0` |"), "{text}");
        assert!(text.ends_with("| boom \\| &lt;b&gt; |\n"), "{text}");
    }

    #[test]
    fn a_known_failure_links_its_tracking_bug() {
        let gate = |tracking: Option<&str>| GateResult::KnownFailure {
            reason: "no | wrap".into(),
            tracking: tracking.map(str::to_owned),
        };
        assert_eq!(
            gate_cell(Some(&gate(Some("https://bugs.example/7")))),
            "known: no \\| wrap ([tracking](https://bugs.example/7))"
        );
        assert_eq!(gate_cell(Some(&gate(None))), "known: no \\| wrap");
        // One link, whatever the file says: its target cannot close it and open another.
        assert_eq!(
            gate_cell(Some(&gate(Some(
                "https://bugs.example/1)[click-me](javascript:alert(1)"
            )))),
            "known: no \\| wrap ([tracking](https://bugs.example/1%29%5Bclick-me%5D%28javascript:alert%281%29))"
        );
    }
}
