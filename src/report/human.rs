//! The terminal report's lines of each data set, as it finishes: its label, and the mismatch
//! report under a failure (its last lines are closing.rs's).

use std::io::{self, Write};

use crate::data::basis::Basis;
use crate::gate::gate_result::GateResult;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::Verdict;
use crate::text::strip_ansi;
use crate::text::{escape_line, escape_text};

/// Whether to colour the status words: decided once per run for the stream a report goes to
/// (the command line's `--color`), carried to every line written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colors {
    /// Plain text, for files, pipes and NO_COLOR.
    Never,
    /// ANSI colours, for a terminal.
    Always,
}

impl Colors {
    /// `word` padded to the label column, in ANSI colour `color` when colouring.
    pub(crate) fn paint(self, word: &str, color: &str) -> String {
        match self {
            Colors::Always => format!("\x1b[{color}m{word:<5}\x1b[0m"),
            Colors::Never => format!("{word:<5}"),
        }
    }
}

/// The word and ANSI colour a data set's line starts with: a function of its gate result when
/// the run is judged against a baseline (`gate`), else of its status. A failure the baseline
/// lists reads `KNOWN`, not `FAIL`: the gate is green on it; one on a basis the run does not
/// gate on reads `WARN`: reported, never failing the run. A refusal not verified by its twin
/// reads `UNVER`; it is decided after the run, so only a report written then (`merge`'s) shows it
/// on its line, and the recap and the summary count it.
pub(crate) fn label(outcome: &Outcome, gate: Option<&GateResult>) -> (&'static str, &'static str) {
    match (gate, outcome.status()) {
        (Some(GateResult::KnownFailure { .. }), _) => ("KNOWN", "33"),
        (Some(GateResult::Fixed { .. }), _) => ("FIXED", "35"),
        (Some(GateResult::ChangedStatus { .. }), _) => ("CHNGD", "35"),
        (Some(GateResult::ChangedWithCorpus { .. }), _) => ("CORPS", "34"),
        _ if outcome.is_non_gating_failure() => ("WARN", "33"),
        (_, Status::Passed) => ("PASS", "32"),
        (_, Status::Failed) => ("FAIL", "31"),
        (_, Status::Errored) => ("ERROR", "31;1"),
        (_, Status::Skipped) => ("SKIP", "33"),
        (_, Status::Unsupported) => ("UNSUP", "36"),
        (_, Status::NotVerified) => ("UNVER", "33"),
    }
}

/// Writes one data set's line, labelled by `label`, and the message under anything that did
/// not pass. `gate` is its result against the run's baseline, when there is one. A data set
/// skipped or outside the profile, and nothing the baseline says of it, takes one line, its
/// reason at the end: a profile leaves hundreds out, and they are not what a reader looks for.
pub fn write_outcome(
    outcome: &Outcome,
    gate: Option<&GateResult>,
    colors: Colors,
    out: &mut dyn Write,
) -> io::Result<()> {
    let aside = matches!(outcome.status(), Status::Unsupported | Status::Skipped)
        && matches!(gate, None | Some(GateResult::Agrees));
    write_head(outcome, gate, colors, out)?;
    if aside {
        // The reason on the same line; a backend's own words beyond their first line are in
        // every other report.
        let message = outcome.message();
        let reason = strip_ansi(&message);
        return match reason.lines().next().filter(|line| !line.is_empty()) {
            Some(line) => writeln!(out, "  {}", escape_line(line)),
            None => writeln!(out),
        };
    }
    writeln!(out)?;
    write_details(outcome, gate, out)
}

/// The start of a data set's line, without its end of line: label, name, operator, basis,
/// time, and what a pass or a failure not gating adds.
pub(crate) fn write_head(
    outcome: &Outcome,
    gate: Option<&GateResult>,
    colors: Colors,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (word, color) = label(outcome, gate);
    let word = colors.paint(word, color);
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
    write!(
        out,
        "{word} {}  {}  {}  {:.1}ms{exact}{gating}",
        escape_line(&outcome.name()),
        escape_line(&outcome.operator()),
        outcome.basis().kind,
        outcome.duration().as_secs_f64() * 1e3
    )
}

/// What a data set that did not pass adds under its line: the basis, what the baseline says
/// of it, the inputs and the message.
fn write_details(outcome: &Outcome, gate: Option<&GateResult>, out: &mut dyn Write) -> io::Result<()> {
    if outcome.status() != Status::Passed && outcome.basis().kind != Basis::Spec {
        writeln!(
            out,
            "      basis: {} ({})",
            outcome.basis().kind,
            outcome.basis().section
        )?;
    }
    if let Some(line) = gate.and_then(gate_line) {
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

/// What the baseline says of a data set it lists, or that changed with the corpus: the line
/// under its own, and its line in the recap.
pub(crate) fn gate_line(gate: &GateResult) -> Option<String> {
    match gate {
        GateResult::KnownFailure { reason, .. } => Some(format!("known failure, in the baseline: {reason}")),
        GateResult::Fixed { reason, .. } => Some(format!(
            "listed as a known failure ({reason}): remove it from the baseline"
        )),
        GateResult::ChangedStatus { was, reason } => {
            Some(format!("listed as {} ({reason}): update the baseline", was.name()))
        }
        GateResult::ChangedWithCorpus { why, .. } => Some(format!("changed with the corpus, not the backend: {why}")),
        _ => None,
    }
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

    fn shown(outcome: &Outcome, gate: Option<&GateResult>) -> String {
        let mut out = Vec::new();
        write_outcome(outcome, gate, Colors::Never, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A failure on a basis the run does not gate on is not labelled `FAIL`, which the count of
    /// failed would leave out; with or without a baseline.
    #[test]
    fn a_failure_not_gating_reads_warn() {
        let lax = Outcome::example("test_wrap_pad", Status::Failed).with_gates(false);
        for gate in [None, Some(GateResult::NotGating)] {
            let text = shown(&lax, gate.as_ref());
            assert!(text.starts_with("WARN  test_wrap_pad/0  "), "{text}");
            assert!(text.lines().next().unwrap().ends_with("  (not gating)"), "{text}");
        }
        let errored = Outcome::example("test_wrap_pad", Status::Errored).with_gates(false);
        assert_eq!(label(&errored, None), ("WARN", "33"));
        assert_eq!(label(&Outcome::example("x", Status::Errored), None), ("ERROR", "31;1"));
    }

    /// Outside the profile, a data set takes one line, its reason at its end; listed in the
    /// baseline, it keeps what the baseline says under it.
    #[test]
    fn an_unsupported_data_set_takes_one_line() {
        let outside = Outcome::example_judged(
            "test_wrap_pad",
            Verdict::Unsupported {
                by: crate::judge::verdict::UnsupportedBy::Backend,
                detail: "no wrap\n  stderr: \x1b[31mlong\x1b[0m".into(),
            },
        )
        .with_backend("b");
        let text = shown(&outside, None);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("UNSUP test_wrap_pad/0  Pad-19  spec  ")
                && text.ends_with("ms  backend b says unsupported (kind unsupported): no wrap\n"),
            "{text}"
        );
        assert_eq!(text, shown(&outside, Some(&GateResult::Agrees)));
        let listed = GateResult::Fixed {
            was: Status::Failed,
            reason: "no wrap".into(),
        };
        let text = shown(&outside, Some(&listed));
        assert!(text.starts_with("FIXED ") && text.lines().count() > 1, "{text}");
        assert!(text.contains("\n      listed as a known failure (no wrap): remove it from the baseline\n"));
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
