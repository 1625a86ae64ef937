//! Findings: each backend's failure groups ([`group_failures`]) as a bug report states them.
//! A group is a **defect** of the backend when its expected results rest on the ONNX spec's
//! own text and the backend answered wrongly, crashed, or accepted what the spec forbids;
//! a spec data set it refuses is a gap (not supported, or a defect if the backend claims the
//! support — a reader's call); a disagreement on ONNX's reference behaviour, a project rule or
//! an undefined corner is never a defect of the backend (docs/semantics.md#basis).
//! `pad-conformance matrix --groups` writes them; docs/results.md and the README's totals are that output.

use std::io::{self, Write};

use crate::backend::Writer;
use crate::cli::failure_groups::{FailureGroup, group_failures};
use crate::cli::scoreboard::Rerun;
use crate::data::basis::Basis;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::Cause;
use crate::model::opset::operator_label;
use crate::report::RunReport;
use crate::tensor::DataType;
use crate::text::{escape_cell, first_line};

/// What a group of failures is, as a bug report would call it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GroupKind {
    /// Spec: outputs with wrong values or a wrong shape.
    WrongAnswer,
    /// Spec: answered a data set that must be refused.
    AcceptsForbidden,
    /// Spec: a panic, a crash, a broken protocol, a reported failure, or a time-out.
    Crash,
    /// Spec: refused a valid data set.
    Refuses,
    /// The expected result rests on reference behaviour, a rule or an undefined corner, or
    /// the data set could not be run at all.
    NotADefect,
}

impl GroupKind {
    /// The kind of a group: a function of its verdicts' cause and its basis, never of its
    /// messages. A report of format 1 has no verdicts: its failures count as wrong answers,
    /// its errors as refusals.
    pub(super) fn of(group: &FailureGroup<'_>) -> GroupKind {
        if group.basis != Basis::Spec {
            return GroupKind::NotADefect;
        }
        match group.cause {
            Some(Cause::WrongValues | Cause::WrongShape) => GroupKind::WrongAnswer,
            Some(Cause::AcceptsForbidden) => GroupKind::AcceptsForbidden,
            Some(Cause::Crash | Cause::Timeout | Cause::Unstable) => GroupKind::Crash,
            Some(Cause::RefusesValid | Cause::OtherReason) => GroupKind::Refuses,
            Some(Cause::NotLoadable | Cause::Runner) => GroupKind::NotADefect,
            None if group.status == Status::Failed => GroupKind::WrongAnswer,
            None => GroupKind::Refuses,
        }
    }

    /// Whether the backend disagrees with the spec's own text.
    pub(super) fn is_defect(self) -> bool {
        matches!(
            self,
            GroupKind::WrongAnswer | GroupKind::AcceptsForbidden | GroupKind::Crash
        )
    }

    /// How the tables of docs/results.md name it.
    pub(super) fn label(self) -> &'static str {
        match self {
            GroupKind::WrongAnswer => "**defect**: wrong answer",
            GroupKind::AcceptsForbidden => "**defect**: accepts what the spec forbids",
            GroupKind::Crash => "**defect**: crash",
            GroupKind::Refuses => "refuses a valid input",
            GroupKind::NotADefect => "not a defect",
        }
    }
}

/// `Pad-11 edge int16[3]`: what the data set runs, as a report names it.
fn describe(outcome: &Outcome) -> String {
    let operator = match (outcome.op(), outcome.version()) {
        (Some(op), Some(version)) => operator_label(op.domain(), op.op_type(), version),
        _ => "?".to_owned(),
    };
    let mode = outcome.mode().map(|m| format!(" mode {m}")).unwrap_or_default();
    let dtype = outcome.dtype().map_or("?", DataType::name);
    let shape = outcome.shape().map_or("?".to_owned(), |s| format!("{s:?}"));
    format!("{operator}{mode} {dtype}{shape}")
}

/// The first line of a message; for a worker or a per-case command that died, with what it
/// said on stderr (a panic's location and message), which is what a bug report needs.
fn headline(message: &str) -> String {
    let first = first_line(message, 200);
    let stderr = Writer::ALL
        .iter()
        .find_map(|writer| message.split_once(&format!("\n{}:\n", writer.label())));
    match stderr {
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

/// Writes every backend's failure groups as one table (backend, basis, finding, count,
/// reason, smallest data set), then each defect as a paragraph ready for a bug report, with
/// the command that reruns it (`reruns`: each report's, in the same order).
pub(super) fn write_markdown(reports: &[RunReport], reruns: &[Rerun], out: &mut dyn Write) -> io::Result<()> {
    let grouped: Vec<(&RunReport, Vec<FailureGroup<'_>>)> =
        reports.iter().map(|r| (r, group_failures(&r.outcomes))).collect();
    writeln!(
        out,
        "| backend | basis | finding | data sets | root cause — the smallest data set's message (and how many distinct messages the group holds) | smallest data set |"
    )?;
    writeln!(out, "|---|---|---|---:|---|---|")?;
    for (report, groups) in &grouped {
        for group in groups {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | `{}` |",
                escape_cell(&report.backend),
                group.basis,
                GroupKind::of(group).label(),
                group.outcomes.len(),
                escape_cell(&first_line(&group.headline(), 180)),
                escape_cell(&group.smallest().name())
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "#### Defects, each ready for a bug report")?;
    writeln!(out)?;
    let mut any = false;
    for ((report, groups), rerun) in grouped.iter().zip(reruns) {
        for group in groups.iter().filter(|g| GroupKind::of(g).is_defect()) {
            any = true;
            let smallest = group.smallest();
            let command = rerun
                .command(&smallest.name())
                .unwrap_or_else(|| format!("pad-conformance --filter {}", smallest.name()));
            let section = &smallest.basis().section;
            writeln!(
                out,
                "- **{}** — {} (basis: spec, {}). {} data set{}; the smallest, `{}` ({}): {}. \
                 Rerun: `{}`.",
                escape_cell(&report.backend),
                GroupKind::of(group).label().replace("**defect**: ", "defect: "),
                if section.is_empty() {
                    "the upstream ONNX node test".to_owned()
                } else {
                    escape_cell(section)
                },
                group.outcomes.len(),
                if group.outcomes.len() == 1 { "" } else { "s" },
                escape_cell(&smallest.name()),
                escape_cell(&describe(smallest)),
                escape_cell(&headline(&smallest.message())),
                escape_cell(&command).replace('`', "'")
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
    use crate::data::basis::BasisNote;
    use crate::judge::verdict::{Failure, Verdict};
    use crate::operators::{PadMode, PadOp};

    fn outcome(id: &str, verdict: Verdict, basis: Basis, shape: Vec<usize>) -> Outcome {
        Outcome::example_judged(id, verdict)
            .with_backend("tract")
            .with_operator((Some(PadOp::Pad), Some(11), Some(PadMode::Edge.into())))
            .with_input(Some(DataType::Int16), Some(shape))
            .with_basis(BasisNote {
                kind: basis,
                section: "docs/semantics.md#edge-mode".into(),
            })
            .with_gates(basis != Basis::Rule)
    }

    fn mismatch(report: &str) -> Verdict {
        Verdict::Mismatch {
            shape: false,
            report: report.into(),
            deviation: None,
        }
    }

    #[test]
    fn groups_are_labelled_by_basis_and_what_happened() {
        let report = RunReport {
            backend: "tract".into(),
            gates: Default::default(),
            outcomes: vec![
                outcome(
                    "a",
                    mismatch("output 0 \"y\": 9 of 12 elements differ"),
                    Basis::Spec,
                    vec![3],
                ),
                outcome(
                    "b",
                    mismatch("output 0 \"y\": 2 of 4 elements differ"),
                    Basis::Spec,
                    vec![1],
                ),
                outcome(
                    "c",
                    Verdict::Failed {
                        failure: Failure::Panic,
                        detail: "attempt to add with overflow".into(),
                        must_refuse: false,
                    },
                    Basis::Spec,
                    vec![2],
                ),
                // A polite refusal whose words name a signal, a panic and a time-out: a
                // refusal, never a crash.
                outcome(
                    "d",
                    Verdict::RefusedValid {
                        refusal: "not implemented: the signal path panicked, timed out, was killed".into(),
                    },
                    Basis::Spec,
                    vec![2],
                ),
                outcome(
                    "e",
                    mismatch("output 0 \"y\": shape differs"),
                    Basis::Reference,
                    vec![2],
                ),
                outcome(
                    "f",
                    Verdict::AcceptedMustRefuse {
                        reason: "x".into(),
                        rules: Vec::new(),
                    },
                    Basis::Spec,
                    vec![2],
                ),
                outcome(
                    "g",
                    Verdict::Passed {
                        bit_exact: true,
                        deviation: None,
                    },
                    Basis::Spec,
                    vec![2],
                ),
            ],
            duration: Duration::ZERO,
            baseline: None,
            runtime: None,
            shard: None,
            run: None,
        };
        let mut out = Vec::new();
        write_markdown(&[report], &[Rerun::new("exec:tract-worker", &[], &[])], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "| tract | spec | **defect**: wrong answer | 2 | wrong-values — mismatch: output 0 \"y\": 2 of 4 elements differ | `b/0` |"
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
            headline(
                "the command failed: exit code 1\nstderr of the command:\nerror: failed to legalize 'tensor.pad'\n…"
            ),
            "the command failed: exit code 1; it printed: error: failed to legalize 'tensor.pad' …"
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
             smallest, `b/0` (Pad-11 mode edge int16[1]): mismatch: output 0 \"y\": 2 of 4 elements differ. Rerun: \
             `pad-conformance --backend exec:tract-worker --filter b/0`."
        );
    }
}
