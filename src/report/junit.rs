//! The JUnit XML report CI systems read: one test suite per backend, one test case per data
//! set (name = case id and data set, classname = operator).

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::RunReport;
use crate::judge::check::Status;
use crate::text::{escape_line, escape_text};

/// Writes the report as JUnit XML.
pub fn write_junit(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    // XML 1.0 cannot hold most control characters at all: they are shown as escapes.
    let mut suite = TestSuite::new(format!("pad-conformance {}", escape_line(&report.backend)));
    suite.set_time(report.duration);
    for outcome in &report.outcomes {
        let status = match outcome.status {
            Status::Passed => TestCaseStatus::success(),
            Status::Skipped | Status::Unsupported => {
                let mut status = TestCaseStatus::skipped();
                status.set_message(escape_line(&outcome.message).as_ref());
                status
            }
            // A failure on a basis the run does not gate on must not turn CI red.
            Status::Failed | Status::Errored if !outcome.gates => {
                let mut status = TestCaseStatus::skipped();
                status.set_message(format!(
                    "{} on a {} basis (not gating): {}",
                    outcome.status.name(),
                    outcome.basis.kind,
                    outcome.message.lines().next().unwrap_or_default()
                ));
                status
            }
            Status::Failed | Status::Errored => {
                let kind = if outcome.status == Status::Failed {
                    NonSuccessKind::Failure
                } else {
                    NonSuccessKind::Error
                };
                let mut status = TestCaseStatus::non_success(kind);
                status.set_message(escape_line(outcome.message.lines().next().unwrap_or_default()).as_ref());
                status.set_description(escape_text(&outcome.message).as_ref());
                status
            }
        };
        let mut case = TestCase::new(escape_line(&outcome.name()).as_ref(), status);
        if outcome.is_lossy_pass() {
            case.set_system_out(lossy_note(outcome));
        }
        let name = outcome.name();
        if let Some(change) = report
            .baseline
            .iter()
            .flat_map(|v| &v.corpus_changes)
            .find(|c| c.name == name)
        {
            case.add_property(("baseline", "changed with the corpus"));
            case.set_system_out(escape_text(&format!(
                "changed with the corpus, not the backend: {change}"
            )));
        }
        case.set_classname(escape_line(&outcome.operator()).as_ref());
        case.add_property(("basis", outcome.basis.kind.name()));
        case.add_property(("basis-section", outcome.basis.section.as_str()));
        case.add_property(("gates", if outcome.gates { "true" } else { "false" }));
        case.set_time(outcome.duration);
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

/// What a passed test case's `system-out` says when it passed within tolerance only.
fn lossy_note(outcome: &crate::judge::check::Outcome) -> String {
    match outcome.max_abs_error {
        Some(error) => format!("passed within tolerance, not bit-identical: max abs error {error:e}"),
        None => "passed within tolerance, not bit-identical".to_owned(),
    }
}
