//! The JUnit XML report CI systems read: one test suite per backend, one test case per data
//! set (name = case id and data set, classname = operator).

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::RunReport;
use super::escape::{escape_line, escape_text};
use crate::check::Status;

/// Writes the report as JUnit XML.
pub fn write_junit(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    // XML 1.0 cannot hold most control characters at all: they are shown as escapes.
    let mut suite = TestSuite::new(format!("pad-conformance {}", escape_line(&report.backend)));
    suite.set_time(report.duration);
    for outcome in &report.outcomes {
        let status = match outcome.status {
            Status::Passed => TestCaseStatus::success(),
            Status::Skipped => {
                let mut status = TestCaseStatus::skipped();
                status.set_message(escape_line(&outcome.message).as_ref());
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
        case.set_classname(escape_line(&outcome.operator()).as_ref());
        case.set_time(outcome.duration);
        suite.add_test_case(case);
    }
    let mut junit = Report::new("pad-conformance");
    junit.set_time(report.duration);
    junit.add_test_suite(suite);
    junit.serialize(&mut *out).map_err(io::Error::other)?;
    writeln!(out)
}
