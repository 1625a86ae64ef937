//! `pad-conformance matrix`: several backends over the same data sets, as one table
//! (data set × backend) with each case's operator, version, mode and dtype, and per-backend
//! totals.

use std::io::{self, Write};

use serde::Serialize;

use crate::backend::RuntimeInfo;
use crate::cli::shares::{ShareCounts, percent};
use crate::data::basis::Basis;
use crate::judge::check::{Outcome, Status};
use crate::model::opset::operator_label;
use crate::operators::{ModeAttribute, PadOp};
use crate::report::{RunReport, Summary};
use crate::tensor::DataType;
use crate::text::{escape_cell, first_line};

/// The results of several backends over the same data sets.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Matrix {
    /// Each backend's totals, in the order the reports were given.
    pub backends: Vec<BackendTotals>,
    /// One row per data set, in the reports' order.
    pub cases: Vec<MatrixRow>,
}

/// One backend's name and counts.
#[derive(Clone, Debug, Serialize)]
pub(super) struct BackendTotals {
    /// The backend's name, as its report gives it.
    pub name: String,
    /// The runtime behind it — name, version, build — when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeInfo>,
    /// Its passed, failed, errored and skipped counts.
    pub summary: Summary,
    /// Its failure groups, as the scoreboard and `--groups` show them.
    pub groups: Vec<GroupJson>,
}

/// One failure group in JSON: what it holds, and the data set that reproduces it.
#[derive(Clone, Debug, Serialize)]
pub(super) struct GroupJson {
    /// The cause key (`wrong-values: …`, `crash: reported a failure`); absent for reports of
    /// format 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// What the expected results rest on.
    pub basis: Basis,
    /// `failed` or `errored`.
    pub status: Status,
    /// The backend's own code they share, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The smallest data set's message, its first line as said, paths and addresses aside:
    /// what labels the group.
    pub message: String,
    /// How many distinct messages the group holds (the length of `messages`).
    pub distinct_messages: usize,
    /// Each distinct normalised message, with how many data sets say it, most first.
    pub messages: Vec<MessageCount>,
    /// How many data sets.
    pub data_sets: usize,
    /// The smallest of them: the reproducer.
    pub smallest: String,
}

/// A message and how many data sets of a group say it.
#[derive(Clone, Debug, Serialize)]
pub(super) struct MessageCount {
    /// The first line, normalised (docs/report-format.md#failure-groups).
    pub message: String,
    /// How many data sets.
    pub count: usize,
}

impl GroupJson {
    fn of(group: &crate::cli::failure_groups::FailureGroup<'_>) -> GroupJson {
        GroupJson {
            cause: group.key.as_ref().map(ToString::to_string),
            basis: group.basis,
            status: group.status,
            code: group.code.clone(),
            message: group.message.clone(),
            distinct_messages: group.distinct_messages,
            messages: group
                .messages
                .iter()
                .map(|(message, count)| MessageCount {
                    message: message.clone(),
                    count: *count,
                })
                .collect(),
            data_sets: group.outcomes.len(),
            smallest: group.smallest().name(),
        }
    }
}

/// One data set across the backends.
#[derive(Clone, Debug, Serialize)]
pub(super) struct MatrixRow {
    /// The data set's name: `onnx-1.22.0/node/test_wrap_pad/0`.
    pub name: String,
    /// The Pad-family operator checked, from the first backend that read the model
    /// (JSON: `op` and `domain`).
    #[serde(flatten, with = "crate::family::op_fields")]
    pub op: Option<PadOp>,
    /// The operator version the model's opset selects.
    pub version: Option<i64>,
    /// The Pad node's `mode`; none for CenterCropPad.
    pub mode: Option<ModeAttribute>,
    /// The element type of the data input, from the first backend that knows it.
    pub dtype: Option<DataType>,
    /// What the expected result rests on.
    pub basis: Basis,
    /// One per backend, in the order of `backends`.
    pub results: Vec<Cell>,
}

/// One backend's result on one data set.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Cell {
    /// What happened on this backend.
    pub status: Status,
    /// The first line of the message: why it failed, errored or was skipped.
    pub reason: String,
}

impl Matrix {
    /// Builds the matrix from reports of the same data sets in the same order (a report
    /// cut short leaves out the rows past its end).
    pub(super) fn new(reports: &[RunReport]) -> Matrix {
        let backends = reports
            .iter()
            .map(|r| BackendTotals {
                name: r.backend.clone(),
                runtime: r.runtime.clone(),
                summary: r.summary(),
                groups: crate::cli::failure_groups::group_failures(&r.outcomes)
                    .iter()
                    .map(GroupJson::of)
                    .collect(),
            })
            .collect();
        let rows = reports.iter().map(|r| r.outcomes.len()).min().unwrap_or(0);
        let cases = (0..rows)
            .map(|i| {
                let first: &Outcome = &reports[0].outcomes[i];
                // The reference knows the operator even where another backend errored early.
                let described = reports
                    .iter()
                    .map(|r| &r.outcomes[i])
                    .find(|o| o.op().is_some())
                    .unwrap_or(first);
                MatrixRow {
                    name: first.name(),
                    op: described.op(),
                    version: described.version(),
                    mode: described.mode().cloned(),
                    dtype: reports.iter().map(|r| &r.outcomes[i]).find_map(|o| o.dtype()),
                    basis: first.basis().kind,
                    results: reports
                        .iter()
                        .map(|r| {
                            let o = &r.outcomes[i];
                            Cell {
                                status: o.status(),
                                reason: o.message().lines().next().unwrap_or_default().to_owned(),
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        Matrix { backends, cases }
    }

    /// Writes the matrix as Markdown: totals, then one row per data set (only those where
    /// some backend did not pass, with `failures_only`), reasons as footnote-style lines.
    pub(super) fn write_markdown(&self, failures_only: bool, out: &mut dyn Write) -> io::Result<()> {
        self.write_totals(out)?;
        let all_passed = self
            .cases
            .iter()
            .all(|r| r.results.iter().all(|c| c.status == Status::Passed));
        if failures_only && all_passed {
            // An empty table would read as a broken report.
            return writeln!(
                out,
                "Every backend passed all {} data sets: nothing failed.",
                self.cases.len()
            );
        }
        self.write_rows(failures_only, out)
    }

    /// Writes the totals table, one row per backend (its counts, then its conformance and
    /// coverage, [`ShareCounts`]), and a blank line.
    pub(super) fn write_totals(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "| backend | runtime | passed | failed | errored | skipped | unsupported | not gating | not verified | conformance | coverage |"
        )?;
        writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")?;
        for b in &self.backends {
            let s = &b.summary;
            let runtime = b.runtime.as_ref().map_or("-".to_owned(), |r| escape_cell(&r.label()));
            let shares = ShareCounts::of(s);
            writeln!(
                out,
                "| {} | {runtime} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                escape_cell(&b.name),
                s.passed,
                s.failed,
                s.errored,
                s.skipped,
                s.unsupported,
                s.not_gating,
                s.not_verified,
                percent(shares.conformance()),
                percent(shares.coverage())
            )?;
        }
        writeln!(out)
    }

    fn write_rows(&self, failures_only: bool, out: &mut dyn Write) -> io::Result<()> {
        let names: Vec<String> = self.backends.iter().map(|b| escape_cell(&b.name)).collect();
        writeln!(
            out,
            "| data set | operator | mode | dtype | basis | {} |",
            names.join(" | ")
        )?;
        writeln!(out, "|---|---|---|---|---|{}", "---|".repeat(names.len()))?;
        for row in self
            .cases
            .iter()
            .filter(|r| !failures_only || r.results.iter().any(|c| c.status != Status::Passed))
        {
            let operator = match (row.op, row.version) {
                (Some(op), Some(v)) => operator_label(op.domain(), op.op_type(), v),
                _ => "-".to_owned(),
            };
            let cells: Vec<String> = row
                .results
                .iter()
                .map(|c| match c.status {
                    Status::Passed => "pass".to_owned(),
                    other => format!("**{}**: {}", other.name(), escape_cell(&first_line(&c.reason, 120))),
                })
                .collect();
            writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                escape_cell(&row.name),
                escape_cell(&operator),
                escape_cell(row.mode.as_ref().map_or("-", ModeAttribute::name)),
                row.dtype.map_or("-", DataType::name),
                row.basis,
                cells.join(" | ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::failure_groups::reported_failure;

    #[test]
    fn the_json_lists_each_backends_groups_with_their_messages_and_code() {
        let failed = |id: &str, detail: &str| reported_failure(id, "w", Some("ValueError"), detail);
        let report = RunReport::of(
            "w",
            vec![failed("a", "unpack 1"), failed("b", "unpack 2"), failed("c", "shape")],
        );
        let json = serde_json::to_value(Matrix::new(&[report])).unwrap();
        let groups = &json["backends"][0]["groups"];
        assert_eq!(
            groups,
            &serde_json::json!([{
                "cause": "crash: reported a failure",
                "basis": "spec",
                "status": "errored",
                "code": "ValueError",
                "message": "backend w failed (it reported an internal failure, kind failed): unpack 1",
                "distinct_messages": 2,
                "messages": [
                    {"message": "backend w failed (it reported an internal failure, kind failed): unpack N", "count": 2},
                    {"message": "backend w failed (it reported an internal failure, kind failed): shape", "count": 1},
                ],
                "data_sets": 3,
                "smallest": "a/0",
            }])
        );
    }
}
