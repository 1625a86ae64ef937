//! Findings: each backend's failure groups ([`group_failures`]) as a bug report states them.
//! A group is a **defect** of the backend when its expected results rest on the ONNX spec's
//! own text and the backend answered wrongly, crashed, or accepted what the spec forbids;
//! a spec data set it refuses is a gap (not supported, or a defect if the backend claims the
//! support — a reader's call); a disagreement on ONNX's reference behaviour, a project rule or
//! an undefined corner is never a defect of the backend (docs/semantics.md#basis).
//! `pad-conformance matrix --groups` writes them, and the README's matrix is that output.

use std::io::{self, Write};

use crate::cli::failure_groups::{FailureGroup, group_failures};
use pad_conformance::data::basis::Basis;
use pad_conformance::judge::check::{Outcome, Status};
use pad_conformance::model::opset::operator_label;
use pad_conformance::report::RunReport;
use pad_conformance::text::{escape_cell, first_line};

/// What a group of failures is, as a bug report would call it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Spec: outputs with wrong values or a wrong shape.
    WrongAnswer,
    /// Spec: answered a data set that must be refused.
    AcceptsForbidden,
    /// Spec: a panic, a signal, a worker that died, or a time-out.
    Crash,
    /// Spec: refused a valid data set.
    Refuses,
    /// The expected result rests on reference behaviour, a rule or an undefined corner.
    NotADefect,
}

impl Finding {
    /// The finding of a group.
    pub fn of(group: &FailureGroup<'_>) -> Finding {
        if group.basis != Basis::Spec {
            return Finding::NotADefect;
        }
        let message = &group.smallest().message;
        match group.status {
            Status::Failed if message.contains("must be refused") => Finding::AcceptsForbidden,
            Status::Failed => Finding::WrongAnswer,
            _ if ["panicked", "worker exited", "signal", "timed out", "killed"]
                .iter()
                .any(|m| message.contains(m)) =>
            {
                Finding::Crash
            }
            _ => Finding::Refuses,
        }
    }

    /// Whether the backend disagrees with the spec's own text.
    pub fn is_defect(self) -> bool {
        matches!(self, Finding::WrongAnswer | Finding::AcceptsForbidden | Finding::Crash)
    }

    /// How the README's tables name it.
    pub fn label(self) -> &'static str {
        match self {
            Finding::WrongAnswer => "**defect**: wrong answer",
            Finding::AcceptsForbidden => "**defect**: accepts what the spec forbids",
            Finding::Crash => "**defect**: crash",
            Finding::Refuses => "refuses a valid input",
            Finding::NotADefect => "not a defect",
        }
    }
}

/// `Pad-11 edge int16[3]`: what the data set runs, as a report names it.
fn describe(outcome: &Outcome) -> String {
    let operator = match (&outcome.op, &outcome.domain, outcome.version) {
        (Some(op), Some(domain), Some(version)) => operator_label(domain, op, version),
        _ => "?".to_owned(),
    };
    let mode = outcome
        .mode
        .as_deref()
        .map(|m| format!(" mode {m}"))
        .unwrap_or_default();
    let dtype = outcome.dtype.as_deref().unwrap_or("?");
    let shape = outcome.shape.as_ref().map_or("?".to_owned(), |s| format!("{s:?}"));
    format!("{operator}{mode} {dtype}{shape}")
}

/// The first line of a message; for a worker that died, with what it said on stderr (a
/// panic's location and message), which is what a bug report needs.
fn headline(message: &str) -> String {
    let first = first_line(message, 200);
    match message.split_once("\nworker stderr:\n") {
        Some((_, stderr)) => {
            let said: Vec<&str> = stderr
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(2)
                .collect();
            format!(
                "{first}; it printed: {}",
                first_line(&panic_without_noise(&said.join(" ")), 240)
            )
        }
        None => first,
    }
}

/// A Rust panic message without what changes from run to run and machine to machine: the
/// thread's name and id, and the directories before a crate's `src/`
/// (`panicked at tract-core-0.23.9/src/ops/array/pad.rs:12:5: …`).
fn panic_without_noise(text: &str) -> String {
    let Some(at) = text.find("panicked at ") else {
        return text.to_owned();
    };
    let rest = &text[at + "panicked at ".len()..];
    let (path, after) = rest.split_once(' ').unwrap_or((rest, ""));
    let path = match path.rfind("/src/") {
        Some(src) => {
            let crate_start = path[..src].rfind('/').map_or(0, |slash| slash + 1);
            &path[crate_start..]
        }
        None => path,
    };
    format!("panicked at {path} {after}").trim_end().to_owned()
}

/// The case of a data set's name, for `--filter`.
fn case_of(outcome: &Outcome) -> &str {
    &outcome.id
}

/// Writes every backend's failure groups as one table (backend, basis, finding, count,
/// reason, smallest data set), then each defect as a paragraph ready for a bug report.
pub fn write_markdown(reports: &[RunReport], out: &mut dyn Write) -> io::Result<()> {
    let grouped: Vec<(&RunReport, Vec<FailureGroup<'_>>)> =
        reports.iter().map(|r| (r, group_failures(&r.outcomes))).collect();
    writeln!(
        out,
        "| backend | basis | finding | data sets | reason (first line, numbers as N) | smallest data set |"
    )?;
    writeln!(out, "|---|---|---|---:|---|---|")?;
    for (report, groups) in &grouped {
        for group in groups {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | `{}` |",
                escape_cell(&report.backend),
                group.basis,
                Finding::of(group).label(),
                group.outcomes.len(),
                escape_cell(&first_line(&group.reason, 140)),
                group.smallest().name()
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "#### Defects, each ready for a bug report")?;
    writeln!(out)?;
    let mut any = false;
    for (report, groups) in &grouped {
        for group in groups.iter().filter(|g| Finding::of(g).is_defect()) {
            any = true;
            let smallest = group.smallest();
            let section = &smallest.basis.section;
            writeln!(
                out,
                "- **{}** — {} (basis: spec, {}). {} data set{}; the smallest, `{}` ({}): {}. \
                 Rerun: `pad-conformance --backend … --filter {}`.",
                report.backend,
                Finding::of(group).label().replace("**defect**: ", "defect: "),
                if section.is_empty() {
                    "the upstream ONNX node test"
                } else {
                    section
                },
                group.outcomes.len(),
                if group.outcomes.len() == 1 { "" } else { "s" },
                smallest.name(),
                describe(smallest),
                headline(&smallest.message).replace('|', "\\|"),
                case_of(smallest)
            )?;
        }
    }
    if !any {
        writeln!(out, "None: no backend disagrees with the spec's own text.")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use pad_conformance::data::basis::BasisNote;

    fn outcome(id: &str, status: Status, basis: Basis, message: &str, shape: Vec<usize>) -> Outcome {
        Outcome {
            id: id.to_owned(),
            data_set: 0,
            op: Some("Pad".into()),
            domain: Some("ai.onnx".into()),
            version: Some(11),
            mode: Some("edge".into()),
            dtype: Some("int16".into()),
            shape: Some(shape),
            status,
            basis: BasisNote {
                kind: basis,
                section: "docs/semantics.md#edge-mode".into(),
            },
            gates: basis != Basis::Rule,
            message: message.to_owned(),
            bit_exact: None,
            max_abs_error: None,
            max_rel_error: None,
            mismatches: 0,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn groups_are_labelled_by_basis_and_what_happened() {
        let report = RunReport {
            backend: "tract".into(),
            outcomes: vec![
                outcome(
                    "a",
                    Status::Failed,
                    Basis::Spec,
                    "output 0 \"y\": 9 of 12 elements differ",
                    vec![3],
                ),
                outcome(
                    "b",
                    Status::Failed,
                    Basis::Spec,
                    "output 0 \"y\": 2 of 4 elements differ",
                    vec![1],
                ),
                outcome(
                    "c",
                    Status::Errored,
                    Basis::Spec,
                    "backend tract panicked: attempt to add with overflow",
                    vec![2],
                ),
                outcome(
                    "d",
                    Status::Errored,
                    Basis::Spec,
                    "backend tract failed: Unsupported mode wrap",
                    vec![2],
                ),
                outcome(
                    "e",
                    Status::Failed,
                    Basis::Reference,
                    "output 0 \"y\": shape differs",
                    vec![2],
                ),
                outcome(
                    "f",
                    Status::Failed,
                    Basis::Spec,
                    "backend tract returned outputs, but this data set must be refused: x",
                    vec![2],
                ),
                outcome("g", Status::Passed, Basis::Spec, "", vec![2]),
            ],
            duration: Duration::ZERO,
            baseline: None,
        };
        let mut out = Vec::new();
        write_markdown(&[report], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "| tract | spec | **defect**: wrong answer | 2 | output N \"y\": N of N elements differ | `b/0` |"
            ),
            "{text}"
        );
        assert!(text.contains("| tract | spec | **defect**: crash | 1 |"), "{text}");
        assert!(text.contains("| tract | spec | refuses a valid input | 1 |"), "{text}");
        assert!(
            text.contains("| tract | spec | **defect**: accepts what the spec forbids | 1 |"),
            "{text}"
        );
        assert!(text.contains("| tract | reference | not a defect | 1 |"), "{text}");
        let defects: Vec<&str> = text.lines().filter(|l| l.starts_with("- **tract**")).collect();
        assert_eq!(defects.len(), 3, "{text}");
        assert_eq!(
            headline(
                "backend t failed: worker exited (exit status: 101)\nworker stderr:\nthread 'main' panicked at x.rs:1:2:\nattempt to add with overflow\nnote: …"
            ),
            "backend t failed: worker exited (exit status: 101); it printed: panicked at x.rs:1:2: attempt to add with overflow"
        );
        assert_eq!(
            panic_without_noise(
                "thread 'main' (23206) panicked at /root/.cargo/registry/src/index-1/tract-core-0.23.9/src/ops/pad.rs:1:2: overflow"
            ),
            "panicked at tract-core-0.23.9/src/ops/pad.rs:1:2: overflow"
        );
        assert_eq!(
            defects[0],
            "- **tract** — defect: wrong answer (basis: spec, docs/semantics.md#edge-mode). 2 data sets; the \
             smallest, `b/0` (Pad-11 mode edge int16[1]): output 0 \"y\": 2 of 4 elements differ. Rerun: \
             `pad-conformance --backend … --filter b`."
        );
    }
}
