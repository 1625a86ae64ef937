//! One data set's entry in the JSON report (`cases`, docs/report-format.md): the serialised
//! form of an [`Outcome`] with its gate result, field for field in the order the report has
//! always written them. The record keeps no status or message of its own: they are computed
//! here, when the entry is written. Read back, an entry of format 2 is its verdict again (the
//! status it wrote must be the verdict's, and the message is the verdict's wording); one of
//! format 1 has none, and its status and message are kept as written.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::backend::NodeValues;
use crate::data::basis::BasisNote;
use crate::gate::gate_result::GateResult;
use crate::judge::cause_key::Pattern;
use crate::judge::check::{Outcome, Status};
use crate::judge::outcome::Measured;
use crate::judge::retried::Retry;
use crate::judge::setup::Setup;
use crate::judge::verdict::Verdict;
use crate::operators::{ModeAttribute, PadOp};
use crate::tensor::DataType;

/// One entry of `cases`. The fields added after format 1 default when absent, so older reports
/// still read.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct JsonCase {
    id: String,
    data_set: usize,
    /// Written as `op` and `domain`.
    #[serde(flatten, with = "crate::family::op_fields")]
    op: Option<PadOp>,
    version: Option<i64>,
    mode: Option<ModeAttribute>,
    /// Absent from older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graph_nodes: Option<usize>,
    dtype: Option<DataType>,
    #[serde(default)]
    shape: Option<Vec<usize>>,
    /// The verdict's, computed when written.
    status: Status,
    /// `None` only in a report of format 1.
    #[serde(default)]
    verdict: Option<Verdict>,
    basis: BasisNote,
    gates: bool,
    /// The verdict's wording, computed when written.
    #[serde(default)]
    message: String,
    bit_exact: Option<bool>,
    max_abs_error: Option<f64>,
    max_rel_error: Option<f64>,
    #[serde(default)]
    mismatches: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    setup: Option<Setup>,
    /// The node's mode and parameters; absent from older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    node: Option<NodeValues>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    difference: Option<Pattern>,
    /// Written when the run was weighed against a baseline; never believed when read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gate: Option<GateResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry: Option<Retry>,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "answer_sha256")]
    answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    code: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    rewritten_model: bool,
    /// Absent but for a data set that must be refused and names a twin (format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    twin: Option<String>,
    #[serde(serialize_with = "seconds", deserialize_with = "from_seconds", default)]
    duration: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// A duration in seconds, within the one bound (a hand-edited `1e19` would overflow a sum).
fn from_seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let seconds = <f64 as serde::Deserialize>::deserialize(d)?;
    crate::data::seconds::bounded_seconds(seconds).map_err(|e| serde::de::Error::custom(format!("duration {e}")))
}

impl JsonCase {
    /// The entry of `outcome`, weighed `gate` against the run's baseline when it was: its
    /// status and message computed now.
    pub(crate) fn of(outcome: &Outcome, gate: Option<&GateResult>) -> JsonCase {
        JsonCase {
            id: outcome.id().to_owned(),
            data_set: outcome.data_set(),
            op: outcome.op(),
            version: outcome.version(),
            mode: outcome.mode().cloned(),
            graph_nodes: outcome.graph_nodes(),
            dtype: outcome.dtype(),
            shape: outcome.shape().map(<[usize]>::to_vec),
            status: outcome.status(),
            verdict: outcome.verdict().cloned(),
            basis: outcome.basis().clone(),
            gates: outcome.gates(),
            message: outcome.message(),
            bit_exact: outcome.bit_exact(),
            max_abs_error: outcome.max_abs_error(),
            max_rel_error: outcome.max_rel_error(),
            mismatches: outcome.mismatches(),
            setup: outcome.setup().cloned(),
            node: outcome.node().cloned(),
            difference: outcome.difference().cloned(),
            gate: gate.cloned(),
            retry: outcome.retry().cloned(),
            answer: outcome.answer().map(str::to_owned),
            code: outcome.code().map(str::to_owned),
            rewritten_model: outcome.rewritten_model(),
            twin: outcome.twin().map(str::to_owned),
            duration: outcome.duration(),
        }
    }

    /// `case/N`, the data set's name, as the entry names it.
    pub(crate) fn name(&self) -> String {
        format!("{}/{}", self.id, self.data_set)
    }

    /// The status the entry wrote, and the one its verdict decides when it records one: two
    /// that differ say the report was edited.
    pub(crate) fn statuses(&self) -> (Status, Option<Status>) {
        (self.status, self.verdict.as_ref().map(Verdict::status))
    }

    /// The outcome the entry records, for a backend named `backend`: its verdict, worded
    /// again for that backend, or (format 1) the status and message it wrote. Its gate
    /// result is dropped: a baseline recomputes it, never trusting a file.
    pub(crate) fn into_outcome(self, backend: &str) -> Outcome {
        let outcome = match self.verdict {
            Some(verdict) => Outcome::judged(self.id, self.data_set, self.basis, verdict, backend),
            None => Outcome::recorded(self.id, self.data_set, self.basis, (self.status, self.message), backend),
        };
        let measured = Measured {
            bit_exact: self.bit_exact,
            max_abs_error: self.max_abs_error,
            max_rel_error: self.max_rel_error,
            mismatches: self.mismatches,
        };
        let outcome = outcome
            .with_gates(self.gates)
            .with_operator((self.op, self.version, self.mode))
            .with_graph_nodes(self.graph_nodes)
            .with_input(self.dtype, self.shape)
            .with_measured(measured)
            .with_setup(self.setup)
            .with_node(self.node)
            .with_difference(self.difference)
            .with_answer(self.answer)
            .with_code(self.code)
            .with_rewritten_model(self.rewritten_model)
            .with_twin(self.twin)
            .with_duration(self.duration);
        match self.retry {
            Some(retry) => outcome.with_retry(retry),
            None => outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::basis::Basis;
    use crate::judge::cause_key::{Flavour, Region};
    use crate::judge::deviation::Deviation;
    use crate::judge::setup::InputNote;
    use crate::judge::verdict::Failure;
    use crate::operators::PadMode;
    use crate::report::{RunReport, read_json_report, write_json};

    /// Outcomes with every field the entry can write: a lossy pass, a mismatch with its
    /// difference and setup, a pass after a crash with its digest, a worker's coded failure on
    /// a rewritten model, a case of a report of format 1, and a refusal its twin did not verify.
    fn outcomes() -> Vec<Outcome> {
        let deviation = Deviation {
            max_abs_error: 0.5,
            max_rel_error: 0.25,
            ..Deviation::default()
        };
        let lossy = Outcome::example_judged(
            "extended/lossy",
            Verdict::Passed {
                bit_exact: false,
                deviation: Some(Box::new(deviation.clone())),
            },
        )
        .with_measured(Measured::of(false, Some(&deviation), 0))
        .with_graph_nodes(Some(13))
        .with_input(Some(DataType::Float16), Some(vec![2, 3]))
        .with_duration(Duration::from_millis(125));
        let mismatch = Outcome::example_judged(
            "extended/mismatch",
            Verdict::Mismatch {
                shape: false,
                report: "output 0 \"y\": 1 of 6 elements differ".into(),
                deviation: Some(Box::new(deviation.clone())),
            },
        )
        .with_measured(Measured::of(false, Some(&deviation), 1))
        .with_difference(Some(Pattern::Values {
            region: Region::Padding(Some(PadMode::Reflect)),
            flavour: Flavour::SignOfZero,
        }))
        .with_setup(Some(Setup {
            inputs: vec![InputNote {
                name: "pads".into(),
                dtype: DataType::Int64,
                shape: vec![4],
                values: Some("[0, 1, 0, 1]".into()),
            }],
            attributes: Vec::new(),
        }))
        .with_node(Some(
            serde_json::from_value(serde_json::json!({
                "mode": "reflect",
                "pads": {"from": "input", "value": [0, 1, 0, 1]},
                "constant_value": {"from": "absent"},
                "axes": {"from": "initializer", "value": [-1]}
            }))
            .unwrap(),
        ))
        .with_basis(BasisNote {
            kind: Basis::Rule,
            section: "docs/semantics.md#reflect-mode".into(),
        })
        .with_gates(false);
        let retried = Outcome::example_judged(
            "extended/retried",
            Verdict::Passed {
                bit_exact: true,
                deviation: None,
            },
        )
        .with_measured(Measured::of(true, None, 0))
        .with_retry(Retry {
            after: Failure::Timeout,
            tries: 3,
            first: "backend x timed out: after 5 s".into(),
        })
        .with_answer(Some("ab12".into()));
        let coded = Outcome::example_judged(
            "extended/coded",
            Verdict::Failed {
                failure: Failure::Reported,
                detail: "ValueError: pads".into(),
                must_refuse: true,
            },
        )
        .with_code(Some("ValueError".into()))
        .with_rewritten_model(true);
        let old = Outcome::example_said("onnx-1.12.0/old", Status::Errored, "boom\n  at src/x.rs:1:2");
        let unverified = Outcome::example_judged(
            "extended/refused",
            Verdict::RefusalNotVerified {
                refusal: "no axes".into(),
                rule: Some(crate::operators::Rule::AxisRepeated),
                expected: vec![crate::operators::Rule::AxisRepeated],
                twin: crate::judge::verdict::TwinEnd {
                    name: "extended/refused_twin/0".into(),
                    status: Some(Status::Errored),
                    cause: Some(crate::judge::verdict::Cause::RefusesValid),
                },
            },
        )
        .with_twin(Some("extended/refused_twin/0".into()));
        vec![lossy, mismatch, retried, coded, old, unverified]
    }

    fn json(report: &RunReport) -> String {
        let mut out = Vec::new();
        write_json(report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_report_read_back_writes_the_same_bytes() {
        let mut report = RunReport::of("x", outcomes());
        let known = GateResult::KnownFailure {
            reason: "reflects the edge".into(),
            tracking: Some("https://bugs.example/3".into()),
        };
        report.gates.insert("extended/coded/0".into(), known.clone());
        let written = json(&report);
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, &written).unwrap();
        let mut read = read_json_report(&path).unwrap();
        // The gate result is never read back; weighed again, it is written as it was.
        assert!(read.gates.is_empty());
        read.gates.insert("extended/coded/0".into(), known);
        read.duration = report.duration;
        assert_eq!(json(&read), written);
        let refused = read.outcomes.iter().find(|o| o.id() == "extended/refused").unwrap();
        assert_eq!(
            (refused.status(), refused.twin()),
            (Status::NotVerified, Some("extended/refused_twin/0"))
        );
        assert!(
            written.contains(
                r#""twin": {
          "name": "extended/refused_twin/0",
          "status": "errored",
          "cause": "refuses-valid"
        }"#
            ) && written.contains(r#""twin": "extended/refused_twin/0","#),
            "{written}"
        );
        // The node's values read back as written, for a bug report.
        let mismatch = read.outcomes.iter().find(|o| o.id() == "extended/mismatch").unwrap();
        assert_eq!(
            serde_json::to_value(mismatch.node().unwrap()).unwrap()["pads"],
            serde_json::json!({"from": "input", "value": [0, 1, 0, 1]})
        );
        assert!(written.contains(r#""node": {"#), "{written}");
        // And the entries are worded from their verdicts, with every field in its place.
        let coded = written.find(r#""id": "extended/coded""#).unwrap();
        let entry = &written[coded..written[coded..].find("\n    }").unwrap() + coded];
        assert_eq!(
            entry,
            r#""id": "extended/coded",
      "data_set": 0,
      "op": "Pad",
      "domain": "ai.onnx",
      "version": 19,
      "mode": "constant",
      "dtype": "float",
      "shape": null,
      "status": "errored",
      "verdict": {
        "verdict": "failed",
        "failure": "reported",
        "detail": "ValueError: pads",
        "must_refuse": true
      },
      "basis": {
        "kind": "spec",
        "section": "the ONNX project's own node test"
      },
      "gates": true,
      "message": "backend x failed (it reported an internal failure, kind failed), which is not a refusal: ValueError: pads",
      "bit_exact": null,
      "max_abs_error": null,
      "max_rel_error": null,
      "mismatches": 0,
      "gate": {
        "result": "known-failure",
        "reason": "reflects the edge",
        "tracking": "https://bugs.example/3"
      },
      "code": "ValueError",
      "rewritten_model": true,
      "duration": 0.0"#
        );
    }

    #[test]
    fn a_message_read_back_is_its_verdicts_and_one_without_a_verdict_is_as_written() {
        let written = json(&RunReport::of("w", outcomes()));
        // An entry whose message was edited: the verdict words it again for the backend.
        let edited = written.replace(
            "backend x failed (it reported an internal failure, kind failed)",
            "all is well",
        );
        assert_ne!(edited, written);
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, &edited).unwrap();
        let read = read_json_report(&path).unwrap();
        let coded = read.outcomes.iter().find(|o| o.id() == "extended/coded").unwrap();
        assert_eq!(
            coded.message(),
            "backend w failed (it reported an internal failure, kind failed), which is not a refusal: ValueError: pads"
        );
        // Format 1 recorded no verdict: its status and message stand.
        let old = read.outcomes.iter().find(|o| o.id() == "onnx-1.12.0/old").unwrap();
        assert_eq!(
            (old.verdict(), old.status(), old.message()),
            (None, Status::Errored, "boom\n  at src/x.rs:1:2".to_owned())
        );
    }
}
