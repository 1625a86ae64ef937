//! One data set of each verdict, rendered in every format: each must word its verdict as what
//! it is (docs/report-format.md#how-each-verdict-reads), never one verdict as another.

use crate::cli::scoreboard::{Board, Provenance, Rerun, write_scoreboard};
use crate::judge::check::Outcome;
use crate::judge::status::Status;
use crate::judge::verdict::{Cause, Failure, TwinEnd, UnsupportedBy, Verdict};
use crate::operators::Rule;
use crate::report::{Colors, RunReport, write_json, write_junit, write_markdown, write_outcome};

/// Each verdict, with the words every format must show for it.
fn verdicts() -> Vec<(Verdict, &'static str)> {
    let failed = |failure: Failure| Verdict::Failed {
        failure,
        detail: "boom".into(),
        must_refuse: false,
    };
    vec![
        (
            Verdict::RefusedValid { refusal: "no".into() },
            "backend b refused a valid input (kind refused): no",
        ),
        (
            Verdict::RefusedForAnotherReason {
                refusal: "no".into(),
                rule: Rule::DataType,
                expected: vec![Rule::ModeNotInVersion],
            },
            "backend b refused for another rule (kind refused): it names data-type",
        ),
        (
            failed(Failure::Reported),
            "backend b failed (it reported an internal failure, kind failed): boom",
        ),
        (
            Verdict::Unsupported {
                by: UnsupportedBy::Backend,
                detail: "no wrap".into(),
            },
            "backend b says unsupported (kind unsupported): no wrap",
        ),
        (
            failed(Failure::Crash {
                code: None,
                signal: Some(9),
            }),
            "backend b crashed: boom",
        ),
        (failed(Failure::Panic), "backend b crashed (it panicked): boom"),
        (
            Verdict::RefusalNotVerified {
                refusal: "no axes".into(),
                rule: None,
                expected: vec![Rule::AxisRepeated],
                twin: TwinEnd {
                    name: "test_r_twin/0".into(),
                    status: Some(Status::Errored),
                    cause: Some(Cause::RefusesValid),
                },
            },
            "refusal not verified: its twin test_r_twin/0 did not pass (errored, refuses-valid), so backend b may refuse what it lacks, not the rule: no axes",
        ),
        (failed(Failure::Timeout), "backend b timed out: boom"),
        (
            Verdict::Mismatch {
                shape: false,
                report: "output 0 y: 1 of 4 elements differ".into(),
                deviation: None,
            },
            "mismatch: output 0 y: 1 of 4 elements differ",
        ),
    ]
}

fn report() -> RunReport {
    let outcomes = verdicts()
        .into_iter()
        .enumerate()
        .map(|(i, (verdict, _))| Outcome::example_judged(&format!("test_{i}"), verdict).with_backend("b"))
        .collect();
    RunReport::of("b", outcomes)
}

#[test]
fn every_format_words_each_verdict_as_what_it_is() {
    let report = report();
    let render = |write: &dyn Fn(&mut Vec<u8>)| {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    };
    let formats = [
        (
            "human",
            render(&|out| {
                for outcome in &report.outcomes {
                    write_outcome(outcome, None, Colors::Never, out).unwrap();
                }
            }),
        ),
        ("markdown", render(&|out| write_markdown(&report, false, out).unwrap())),
        ("junit", render(&|out| write_junit(&report, out).unwrap())),
        ("json", render(&|out| write_json(&report, out).unwrap())),
        (
            "html",
            render(&|out| {
                write_scoreboard(
                    &[Board::new(&report, Rerun::new("ref", &[], &[]))],
                    &Provenance::default(),
                    out,
                )
                .unwrap()
            }),
        ),
    ];
    for (format, text) in &formats {
        for (verdict, words) in verdicts() {
            assert!(
                text.contains(words),
                "{format} lacks {words:?} for {verdict:?}:\n{text}"
            );
        }
    }
}
