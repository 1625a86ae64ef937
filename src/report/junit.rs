//! The JUnit XML report CI systems read: one test suite per backend, one test case per data
//! set (name = case id and data set, classname = operator).

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::RunReport;
use crate::gate::gate_result::GateResult;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::Verdict;
use crate::text::{escape_line, plain_line, plain_text};

/// Writes the report as JUnit XML.
pub fn write_junit(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    // XML 1.0 cannot hold most control characters at all: they are shown as escapes (a
    // message's terminal colours removed: no CI viewer reads them).
    let mut suite = TestSuite::new(format!("pad-conformance {}", escape_line(&report.backend)));
    suite.set_time(report.duration);
    for outcome in &report.outcomes {
        let mut case = TestCase::new(escape_line(&outcome.name()).as_ref(), status(report, outcome));
        if outcome.is_lossy_pass() {
            case.set_system_out(outcome.lossy_note());
        }
        if let Some(after) = outcome.passed_after() {
            case.add_property(("retry", after));
        }
        if let Some(note) = outcome.verdict().and_then(Verdict::note) {
            case.add_property(("note", "refused-for-another-reason"));
            case.set_system_out(plain_text(&note));
        }
        if let Some(gate) = report.gate_of(outcome) {
            case.add_property(("baseline", gate.name()));
            if let Some(note) = gate_note(gate) {
                case.set_system_out(plain_text(&note));
            }
        }
        case.set_classname(escape_line(&outcome.operator()).as_ref());
        case.add_property(("basis", outcome.basis().kind.name()));
        case.add_property(("basis-section", outcome.basis().section.as_str()));
        case.add_property(("gates", if outcome.gates() { "true" } else { "false" }));
        case.set_time(outcome.duration());
        suite.add_test_case(case);
    }
    let lossy = report.summary().lossy;
    suite.add_property(quick_junit::Property::new("lossy-passes", lossy.to_string()));
    let mut junit = Report::new("pad-conformance");
    junit.set_time(report.duration);
    junit.add_test_suite(suite);
    junit.serialize(&mut *out).map_err(io::Error::other)?;
    writeln!(out)
}

/// A data set's JUnit status: a function of its gate result when the run has a baseline, so
/// that a green gate is green in every CI viewer — a known failure, a failure on a basis the
/// run does not gate on, or a change the corpus made are skipped test cases saying why; a
/// fixed entry passes (failing only under `--strict`, as the run does).
fn status(report: &RunReport, outcome: &Outcome) -> TestCaseStatus {
    let gate = report.baseline.as_ref().zip(report.gate_of(outcome));
    let message = outcome.message();
    let first_line = || message.lines().next().unwrap_or_default();
    // The whole report, after what the data set handed the backend.
    let description = match outcome.setup() {
        Some(setup) => format!("inputs: {}\n{message}", setup.line()),
        None => message.clone(),
    };
    let skipped = |message: String| {
        let mut status = TestCaseStatus::skipped();
        status.set_message(plain_line(&message).as_ref());
        status.set_description(plain_text(&description).as_ref());
        status
    };
    let non_success = |message: String| {
        let kind = if outcome.status() == Status::Errored {
            NonSuccessKind::Error
        } else {
            NonSuccessKind::Failure
        };
        let mut status = TestCaseStatus::non_success(kind);
        status.set_message(plain_line(&message).as_ref());
        status.set_description(plain_text(&description).as_ref());
        status
    };
    match gate {
        Some((summary, gate)) if summary.fails_data_set(gate) => match gate {
            GateResult::Fixed { reason, .. } => non_success(format!(
                "listed as a known failure ({reason}) but {}: remove it from the baseline",
                outcome.status().name()
            )),
            GateResult::ChangedStatus { was, .. } => non_success(format!(
                "listed as {} but {} now: update the baseline: {}",
                was.name(),
                outcome.status().name(),
                first_line()
            )),
            _ => non_success(first_line().to_owned()),
        },
        Some((_, GateResult::KnownFailure { reason, tracking })) => skipped(format!(
            "known failure (in the baseline: {reason}{}): {} {}",
            tracking
                .as_ref()
                .map(|link| format!(", tracking {link}"))
                .unwrap_or_default(),
            outcome.status().name(),
            first_line()
        )),
        Some((_, GateResult::ChangedWithCorpus { why, .. })) if outcome.status() != Status::Passed => {
            skipped(format!("changed with the corpus ({why}): {}", first_line()))
        }
        // Listed, with the other of failed and errored: expected to fail, red under --strict only.
        Some((_, GateResult::ChangedStatus { was, reason })) => skipped(format!(
            "known failure (in the baseline as {}: {reason}), {} now: update the baseline: {}",
            was.name(),
            outcome.status().name(),
            first_line()
        )),
        _ => match outcome.status() {
            Status::Passed => TestCaseStatus::success(),
            // Neither a pass nor a failure: skipped, saying why (red only when the run requires
            // verified refusals, above).
            Status::Skipped | Status::Unsupported | Status::NotVerified => {
                let mut status = TestCaseStatus::skipped();
                status.set_message(plain_line(&message).as_ref());
                status
            }
            // A failure on a basis the run does not gate on must not turn CI red.
            Status::Failed | Status::Errored if !outcome.gates() => skipped(format!(
                "{} on a {} basis (not gating): {}",
                outcome.status().name(),
                outcome.basis().kind,
                first_line()
            )),
            Status::Failed | Status::Errored => non_success(first_line().to_owned()),
        },
    }
}

/// What a test case's `system-out` says of its gate result, when there is something to say.
fn gate_note(gate: &GateResult) -> Option<String> {
    match gate {
        GateResult::ChangedWithCorpus { why, .. } => Some(format!("changed with the corpus, not the backend: {why}")),
        GateResult::Fixed { reason, .. } => Some(format!(
            "listed as a known failure ({reason}) but no longer fails: remove it from the baseline"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::gate::judging::GateSummary;

    /// The JUnit report of `outcome`, weighed `gate` against a baseline, under `--strict` or not.
    fn junit((outcome, gate): (Outcome, GateResult), strict: bool) -> String {
        let report = RunReport {
            backend: "b".into(),
            gates: [(outcome.name(), gate)].into(),
            outcomes: vec![outcome],
            duration: Duration::ZERO,
            baseline: Some(GateSummary {
                strict,
                ..GateSummary::default()
            }),
            runtime: None,
            shard: None,
            run: None,
        };
        let mut out = Vec::new();
        write_junit(&report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_test_case_is_red_exactly_when_its_gate_result_fails_the_run() {
        let wrong = |id: &str| Outcome::example_said(id, Status::Failed, "wrong values");
        let known = (
            wrong("k"),
            GateResult::KnownFailure {
                reason: "no wrap".into(),
                tracking: None,
            },
        );
        let xml = junit(known, true);
        assert!(
            xml.contains("<skipped message=\"known failure (in the baseline: no wrap): failed wrong values\""),
            "{xml}"
        );
        assert!(xml.contains("failures=\"0\""), "{xml}");
        let tracked = (
            wrong("k"),
            GateResult::KnownFailure {
                reason: "no wrap".into(),
                tracking: Some("https://bugs.example/7".into()),
            },
        );
        let xml = junit(tracked, true);
        assert!(
            xml.contains("message=\"known failure (in the baseline: no wrap, tracking https://bugs.example/7): failed"),
            "{xml}"
        );
        let fixed = (
            Outcome::example("f", Status::Passed),
            GateResult::Fixed {
                was: Status::Failed,
                reason: "no wrap".into(),
            },
        );
        // An outdated entry fails the run under --strict only, and so its test case.
        let lenient = junit(fixed.clone(), false);
        assert!(
            lenient.contains("failures=\"0\"") && lenient.contains("remove it from the baseline"),
            "{lenient}"
        );
        let strict = junit(fixed, true);
        assert!(strict.contains("failures=\"1\""), "{strict}");
        let new = (wrong("n"), GateResult::NewFailure);
        assert!(junit(new, false).contains("<failure message=\"wrong values\""));
        // Listed as errored, failed now: the gate passes without --strict, and so the test case.
        let changed = (
            wrong("c"),
            GateResult::ChangedStatus {
                was: Status::Errored,
                reason: "crashes".into(),
            },
        );
        let lenient = junit(changed.clone(), false);
        assert!(
            lenient.contains("failures=\"0\"")
                && lenient.contains(
                    "<skipped message=\"known failure (in the baseline as errored: crashes), failed now: update the baseline: wrong values\""
                ),
            "{lenient}"
        );
        let strict = junit(changed, true);
        assert!(
            strict.contains("failures=\"1\"") && strict.contains("listed as errored but failed now"),
            "{strict}"
        );
    }

    #[test]
    fn a_message_reaches_the_xml_without_its_colours() {
        let coloured = Outcome::example_said("c", Status::Failed, "\x1b[1;31mboom\x1b[0m\r\n  at \x1b[2mx\x1b[m");
        let known = GateResult::KnownFailure {
            reason: "no wrap".into(),
            tracking: Some("https://bugs.example/7".into()),
        };
        for xml in [
            junit((coloured.clone(), GateResult::NewFailure), false),
            junit((coloured, known), false),
        ] {
            assert!(
                !xml.contains('\x1b') && !xml.contains("u{1b}") && !xml.contains("[1;31m"),
                "{xml}"
            );
            assert!(xml.contains("boom\\r"), "{xml}");
            assert!(xml.contains("  at x"), "{xml}");
        }
    }

    /// A refusal not verified is a skipped test case naming its twin, red only when the run
    /// requires verified refusals; without a baseline, skipped all the same.
    #[test]
    fn a_refusal_not_verified_is_skipped_naming_its_twin_unless_required() {
        use crate::judge::verdict::{TwinEnd, Verdict};
        let unverified = Outcome::example_judged(
            "r",
            Verdict::RefusalNotVerified {
                refusal: "no".into(),
                rule: None,
                expected: Vec::new(),
                twin: TwinEnd {
                    name: "r_twin/0".into(),
                    status: None,
                    cause: None,
                },
            },
        );
        let xml = |require_verified: bool| {
            let mut report = RunReport::of("b", vec![unverified.clone()]);
            report.gates = [("r/0".to_owned(), GateResult::NotVerified)].into();
            report.baseline = Some(GateSummary {
                require_verified,
                ..GateSummary::default()
            });
            let mut out = Vec::new();
            write_junit(&report, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let lenient = xml(false);
        assert!(
            lenient.contains(
                "<skipped message=\"refusal not verified (twin not run): its twin r_twin/0 was not in the run"
            ) && lenient.contains("<property name=\"baseline\" value=\"not-verified\"/>"),
            "{lenient}"
        );
        let required = xml(true);
        assert!(
            required.contains("failures=\"1\"") && required.contains("<failure message=\"refusal not verified"),
            "{required}"
        );
        let mut out = Vec::new();
        write_junit(&RunReport::of("b", vec![unverified]), &mut out).unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("<skipped message=\"refusal not verified")
        );
    }
}
