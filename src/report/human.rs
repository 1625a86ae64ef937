//! The terminal report: one line per data set as it finishes, the mismatch report under
//! failures, and the summary line last.

use std::io::{self, Write};

use super::RunReport;
use crate::data::basis::Basis;
use crate::gate::gate_result::GateResult;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::Verdict;
use crate::text::strip_ansi;
use crate::text::{escape_line, escape_text};

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

/// Writes the report's last lines: the backend's time and the summary, then each refusal its
/// twin did not verify. The outcome lines come before, written by [`write_outcome`] as each
/// data set finishes — a refusal's before its twin may have run, so its line said `PASS`.
pub(crate) fn write_summary(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "backend {}: {:.2}s",
        escape_line(&report.backend),
        report.duration.as_secs_f64()
    )?;
    writeln!(out, "{}", report.summary().line())?;
    for outcome in &report.outcomes {
        if let Some(Verdict::RefusalNotVerified { twin, .. }) = outcome.verdict() {
            writeln!(
                out,
                "  refusal not verified: {} ({})",
                escape_line(&outcome.name()),
                escape_line(&twin.to_string())
            )?;
        }
    }
    Ok(())
}

/// The word and ANSI colour a data set's line starts with: a function of its gate result when
/// the run is judged against a baseline (`gate`), else of its status. A failure the baseline
/// lists reads `KNOWN`, not `FAIL`: the gate is green on it. A refusal not verified by its twin
/// reads `UNVER`; it is decided after the run, so only a report written then (`merge`'s) shows it
/// on its line, and the summary counts it.
pub(crate) fn label(outcome: &Outcome, gate: Option<&GateResult>) -> (&'static str, &'static str) {
    match (gate, outcome.status()) {
        (Some(GateResult::KnownFailure { .. }), _) => ("KNOWN", "33"),
        (Some(GateResult::Fixed { .. }), _) => ("FIXED", "35"),
        (Some(GateResult::ChangedStatus { .. }), _) => ("CHNGD", "35"),
        (Some(GateResult::ChangedWithCorpus { .. }), _) => ("CORPS", "34"),
        (_, Status::Passed) => ("PASS", "32"),
        (_, Status::Failed) => ("FAIL", "31"),
        (_, Status::Errored) => ("ERROR", "31;1"),
        (_, Status::Skipped) => ("SKIP", "33"),
        (_, Status::Unsupported) => ("UNSUP", "36"),
        (_, Status::NotVerified) => ("UNVER", "33"),
    }
}

/// Writes one data set's line, labelled by `label`, and the message under anything that did
/// not pass. `gate` is its result against the run's baseline, when there is one.
pub fn write_outcome(
    outcome: &Outcome,
    gate: Option<&GateResult>,
    colors: Colors,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (word, color) = label(outcome, gate);
    let word = match colors {
        Colors::Always => format!("\x1b[{color}m{word:<5}\x1b[0m"),
        Colors::Never => format!("{word:<5}"),
    };
    let exact = if outcome.is_lossy_pass() {
        format!("  ({})", outcome.lossy_note())
    } else if let Some(after) = outcome.passed_after() {
        format!("  ({after})")
    } else {
        String::new()
    };
    let gating = if outcome.is_non_gating_failure() {
        "  (not gating)"
    } else {
        ""
    };
    writeln!(
        out,
        "{word} {}  {}  {}  {:.1}ms{exact}{gating}",
        escape_line(&outcome.name()),
        escape_line(&outcome.operator()),
        outcome.basis().kind,
        outcome.duration().as_secs_f64() * 1e3
    )?;
    if outcome.status() != Status::Passed && outcome.basis().kind != Basis::Spec {
        writeln!(
            out,
            "      basis: {} ({})",
            outcome.basis().kind,
            outcome.basis().section
        )?;
    }
    let gate_line = match gate {
        Some(GateResult::KnownFailure { reason, .. }) => Some(format!("known failure, in the baseline: {reason}")),
        Some(GateResult::Fixed { reason, .. }) => Some(format!(
            "listed as a known failure ({reason}): remove it from the baseline"
        )),
        Some(GateResult::ChangedStatus { was, reason }) => {
            Some(format!("listed as {} ({reason}): update the baseline", was.name()))
        }
        Some(GateResult::ChangedWithCorpus { why, .. }) => {
            Some(format!("changed with the corpus, not the backend: {why}"))
        }
        _ => None,
    };
    if let Some(line) = gate_line {
        writeln!(out, "      {}", escape_line(&line))?;
    }
    if let Some(GateResult::KnownFailure {
        tracking: Some(link), ..
    }) = gate
    {
        writeln!(out, "      tracking: {}", escape_line(link))?;
    }
    if let Some(note) = outcome.verdict().and_then(Verdict::note) {
        writeln!(out, "      note: {}", escape_line(&note))?;
    }
    if outcome.rewritten_model() && outcome.status() != Status::Passed {
        writeln!(
            out,
            "      answered by: the model the backend optimized, evaluated by the reference"
        )?;
    }
    if let Some(setup) = outcome.setup().filter(|_| outcome.status() != Status::Passed) {
        writeln!(out, "      inputs: {}", escape_line(&setup.line()))?;
    }
    if outcome.status() != Status::Passed && !outcome.message().is_empty() {
        // A worker's stderr, kept in the message, may be coloured for its own terminal: its
        // colours are dropped, and any other control character is shown, never executed.
        for line in escape_text(&strip_ansi(&outcome.message())).lines() {
            writeln!(out, "      {line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Failure;

    #[test]
    fn a_workers_colours_do_not_reach_the_report() {
        let outcome = Outcome::example_judged(
            "test_wrap_pad",
            Verdict::Failed {
                failure: Failure::Crash {
                    code: Some(1),
                    signal: None,
                },
                detail: "worker exited\n  stderr: \x1b[31;1mERROR\x1b[0m boom".into(),
                must_refuse: false,
            },
        );
        let mut out = Vec::new();
        write_outcome(&outcome, None, Colors::Never, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("\n        stderr: ERROR boom\n"), "{text:?}");
    }
    #[test]
    fn a_failure_of_an_optimized_model_says_the_answer_came_from_it() {
        let failed = |rewritten_model: bool| {
            let outcome = Outcome::example("test_wrap_pad", Status::Failed).with_rewritten_model(rewritten_model);
            let mut out = Vec::new();
            write_outcome(&outcome, None, Colors::Never, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let line = "\n      answered by: the model the backend optimized, evaluated by the reference\n";
        assert!(failed(true).contains(line), "{}", failed(true));
        assert!(!failed(false).contains("answered by"));
    }

    #[test]
    fn a_known_failure_shows_its_tracking_link_under_its_reason() {
        let outcome = Outcome::example("test_wrap_pad", Status::Failed);
        let gate = GateResult::KnownFailure {
            reason: "no wrap".into(),
            tracking: Some("https://bugs.example/7\x1b[2J".into()),
        };
        let mut out = Vec::new();
        write_outcome(&outcome, Some(&gate), Colors::Never, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "\n      known failure, in the baseline: no wrap\n      tracking: https://bugs.example/7\\u{1b}[2J\n"
            ),
            "{text:?}"
        );
    }
}
