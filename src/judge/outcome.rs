//! The outcome of one data set, as a record: built in one place (the judge's constructor and
//! its builder methods), read through accessors. Its status and message are functions of the
//! verdict, computed when asked for (a report computes them when it is written), never stored
//! beside it; only a report of format 1, read back, has no verdict, and then the record keeps
//! the status and message that report wrote ([`Judgement::Recorded`]).
//!
//! How a baseline weighs an outcome (the gate's `GateResult`, a layer above) is not part of
//! it: a run keeps that beside its outcomes (`RunReport::gates`), so that judging knows
//! nothing of baselines.

use std::time::Duration;

use crate::backend::NodeValues;
use crate::case::TestCase;
use crate::data::basis::{BasisNote, Gating};
use crate::judge::cause_key::{CauseKey, Pattern};
use crate::judge::deviation::Deviation;
use crate::judge::retried::Retry;
use crate::judge::setup::Setup;
use crate::judge::status::Status;
use crate::judge::survival::{self, Survival};
use crate::judge::verdict::Verdict;
use crate::model::opset::{graph_label, operator_label};
use crate::operators::{ModeAttribute, PadOp};
use crate::tensor::DataType;

/// The outcome of one data set, as reports show it.
///
/// Its fields are read through accessors named as the JSON report names them
/// (docs/report-format.md): [`Outcome::status`], [`Outcome::verdict`], [`Outcome::message`], …
#[derive(Clone, Debug)]
pub struct Outcome {
    id: String,
    data_set: usize,
    op: Option<PadOp>,
    version: Option<i64>,
    mode: Option<ModeAttribute>,
    graph_nodes: Option<usize>,
    dtype: Option<DataType>,
    shape: Option<Vec<usize>>,
    judgement: Judgement,
    /// The backend that answered: the name its verdict's message words.
    backend: String,
    /// Where a panic happened while the data set was checked, when the harness saw one: an
    /// errored outcome's message ends with it.
    panicked_at: Option<String>,
    basis: BasisNote,
    gates: bool,
    measured: Measured,
    setup: Option<Setup>,
    /// The Pad-family node's mode and parameters with their values, as the runner read them
    /// from the model and the data set's inputs.
    node: Option<NodeValues>,
    difference: Option<Pattern>,
    retry: Option<Retry>,
    answer: Option<String>,
    code: Option<String>,
    rewritten_model: bool,
    /// For a data set that must be refused, the name of its valid twin: its refusal counts
    /// only when the twin passes in the same run ([`super::twin_check`]).
    twin: Option<String>,
    duration: Duration,
}

/// What the outcome's status and message come from.
#[derive(Clone, Debug)]
enum Judgement {
    /// The verdict, decided once (here, or by the run whose report was read back): status
    /// and message are its own.
    Verdict(Verdict),
    /// A report of format 1 read back: it recorded no verdict, only what it came to.
    Recorded {
        /// The status it wrote.
        status: Status,
        /// The message it wrote.
        message: String,
    },
}

/// What comparing the outputs measured: set by the judge when it compares, absent (`None`,
/// 0) when no outputs were compared.
///
/// Not derived from the verdict, because the verdict does not hold them: a bit-exact pass over
/// floating outputs measures errors of 0 and carries no deviation; a mismatch in the number of
/// outputs compares nothing, yet its verdict reads like one of shapes; an unstable verdict
/// keeps the figures of the answer it was confirmed against.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Measured {
    /// Whether every output was bit-identical to the expected one.
    pub bit_exact: Option<bool>,
    /// The largest absolute error over floating outputs.
    pub max_abs_error: Option<f64>,
    /// The largest relative error over floating outputs.
    pub max_rel_error: Option<f64>,
    /// Elements differing under the comparison rule, over all outputs.
    pub mismatches: usize,
}

impl Measured {
    /// The figures of a comparison: whether it was bit for bit, the deviation measured over
    /// its floating outputs (when any was compared), the elements that differ.
    pub(crate) fn of(bit_exact: bool, deviation: Option<&Deviation>, mismatches: usize) -> Measured {
        Measured {
            bit_exact: Some(bit_exact),
            max_abs_error: deviation.map(|d| d.max_abs_error),
            max_rel_error: deviation.map(|d| d.max_rel_error),
            mismatches,
        }
    }
}

/// The record's one constructor and its builder: every outcome starts judged (or, read back
/// from a report of format 1, recorded) and gains what was read and measured of its data set.
impl Outcome {
    fn new(id: String, data_set: usize, basis: BasisNote, judgement: Judgement, backend: &str) -> Outcome {
        Outcome {
            id,
            data_set,
            op: None,
            version: None,
            mode: None,
            graph_nodes: None,
            dtype: None,
            shape: None,
            judgement,
            backend: backend.to_owned(),
            panicked_at: None,
            basis,
            gates: false,
            measured: Measured::default(),
            setup: None,
            node: None,
            difference: None,
            retry: None,
            answer: None,
            code: None,
            rewritten_model: false,
            twin: None,
            duration: Duration::ZERO,
        }
    }

    /// Data set `data_set` of case `id`, on `basis`, judged `verdict` for a backend named
    /// `backend`; nothing read or measured yet, and not gating until [`Outcome::with_gates`].
    pub(crate) fn judged(id: String, data_set: usize, basis: BasisNote, verdict: Verdict, backend: &str) -> Outcome {
        Outcome::new(id, data_set, basis, Judgement::Verdict(verdict), backend)
    }

    /// Data set `data_set` of case `id` as a report of format 1 recorded it, without a
    /// verdict: the `status` and `message` it wrote stand for one.
    pub(crate) fn recorded(
        id: String,
        data_set: usize,
        basis: BasisNote,
        (status, message): (Status, String),
        backend: &str,
    ) -> Outcome {
        Outcome::new(id, data_set, basis, Judgement::Recorded { status, message }, backend)
    }

    /// The outcome of data set `index` of `case` when `backend` never answered it: the
    /// `verdict` says how it failed (a child process that crashed or timed out) or that it
    /// could not be loaded. The operator is not named: nothing read the model. (Every
    /// outcome of a check starts as this one, and adds what it read and measured.) A data set
    /// that must be refused names its case's twin.
    pub fn unanswered(case: &TestCase, index: usize, verdict: Verdict, gating: &Gating, backend: &str) -> Outcome {
        let outcome = Outcome::judged(
            case.id.clone(),
            case.data_number(index),
            case.basis_of(index).clone(),
            verdict,
            backend,
        );
        let gates = outcome.gates_under(gating);
        let must_refuse = case.data_sets.get(index).is_some_and(|d| d.expected_error.is_some());
        let twin = case.twin_of(index).filter(|_| must_refuse);
        outcome.with_gates(gates).with_twin(twin)
    }

    /// The same data set judged `verdict` instead (a retry's unstable answers): its status
    /// and message follow.
    pub(crate) fn with_verdict(self, verdict: Verdict) -> Outcome {
        Outcome {
            judgement: Judgement::Verdict(verdict),
            ..self
        }
    }

    /// Named as the data set `data_set` of case `id` (the parent's name for what a child
    /// process checked).
    pub(crate) fn with_id(self, id: String, data_set: usize) -> Outcome {
        Outcome { id, data_set, ..self }
    }

    /// On `basis` instead.
    pub(crate) fn with_basis(self, basis: BasisNote) -> Outcome {
        Outcome { basis, ..self }
    }

    /// Whether a failure of it fails the run (decided by [`Outcome::gates_under`], or by
    /// what the listing of its case showed).
    pub(crate) fn with_gates(self, gates: bool) -> Outcome {
        Outcome { gates, ..self }
    }

    /// With the Pad-family operator checked: operator, its version, the node's mode.
    pub(crate) fn with_operator(
        self,
        (op, version, mode): (Option<PadOp>, Option<i64>, Option<ModeAttribute>),
    ) -> Outcome {
        Outcome {
            op,
            version,
            mode,
            ..self
        }
    }

    /// With the number of nodes of the model's graph, when it has more than one.
    pub(crate) fn with_graph_nodes(self, graph_nodes: Option<usize>) -> Outcome {
        Outcome { graph_nodes, ..self }
    }

    /// With the element type and shape of the data input, when the data set loaded.
    pub(crate) fn with_input(self, dtype: Option<DataType>, shape: Option<Vec<usize>>) -> Outcome {
        Outcome { dtype, shape, ..self }
    }

    /// With what comparing the outputs measured.
    pub(crate) fn with_measured(self, measured: Measured) -> Outcome {
        Outcome { measured, ..self }
    }

    /// With how a mismatch's outputs differ.
    pub(crate) fn with_difference(self, difference: Option<Pattern>) -> Outcome {
        Outcome { difference, ..self }
    }

    /// With what the data set handed the backend.
    pub(crate) fn with_setup(self, setup: Option<Setup>) -> Outcome {
        Outcome { setup, ..self }
    }

    /// With the node's values, read from its model and inputs.
    pub(crate) fn with_node(self, node: Option<NodeValues>) -> Outcome {
        Outcome { node, ..self }
    }

    /// Run again after a crash or timeout, as `retry` says.
    pub(crate) fn with_retry(self, retry: Retry) -> Outcome {
        Outcome {
            retry: Some(retry),
            ..self
        }
    }

    /// With the sha256 of the backend's outputs.
    pub(crate) fn with_answer(self, answer: Option<String>) -> Outcome {
        Outcome { answer, ..self }
    }

    /// With the backend's own code for its error.
    pub(crate) fn with_code(self, code: Option<String>) -> Outcome {
        Outcome { code, ..self }
    }

    /// Whether the answer judged is the reference's evaluation of a model the backend rewrote.
    pub(crate) fn with_rewritten_model(self, rewritten_model: bool) -> Outcome {
        Outcome {
            rewritten_model,
            ..self
        }
    }

    /// With the name of its valid twin, for a data set that must be refused.
    pub(crate) fn with_twin(self, twin: Option<String>) -> Outcome {
        Outcome { twin, ..self }
    }

    /// Taking `duration` to load, run and compare.
    pub(crate) fn with_duration(self, duration: Duration) -> Outcome {
        Outcome { duration, ..self }
    }

    /// With where a panic happened while it was checked (the harness's quiet panics).
    pub(crate) fn with_panic_location(self, location: String) -> Outcome {
        Outcome {
            panicked_at: Some(location),
            ..self
        }
    }
}

/// What the JSON report writes, field by field (docs/report-format.md).
impl Outcome {
    /// The case id: `onnx-1.22.0/node/test_wrap_pad`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The N of `test_data_set_N`.
    pub fn data_set(&self) -> usize {
        self.data_set
    }

    /// The Pad-family operator checked, when the model was read; JSON writes it as `op`
    /// (`Pad`, `CenterCropPad`) and `domain` (`ai.onnx`, `com.microsoft`).
    pub fn op(&self) -> Option<PadOp> {
        self.op
    }

    /// The operator version the model's opset selects.
    pub fn version(&self) -> Option<i64> {
        self.version
    }

    /// The Pad node's `mode` (`constant` when absent); none for CenterCropPad.
    pub fn mode(&self) -> Option<&ModeAttribute> {
        self.mode.as_ref()
    }

    /// How many nodes the model's graph has, when it has more than one (a graph of helper
    /// ops, as the upstream `*_expanded` cases).
    pub fn graph_nodes(&self) -> Option<usize> {
        self.graph_nodes
    }

    /// The element type of the data input, when the data set loaded.
    pub fn dtype(&self) -> Option<DataType> {
        self.dtype
    }

    /// The shape of the data input, when the data set loaded: how big the data set is.
    pub fn shape(&self) -> Option<&[usize]> {
        self.shape.as_deref()
    }

    /// What happened: the verdict's status (in a report of format 1 read back, the one it
    /// wrote).
    pub fn status(&self) -> Status {
        match &self.judgement {
            Judgement::Verdict(verdict) => verdict.status(),
            Judgement::Recorded { status, .. } => *status,
        }
    }

    /// The verdict, decided once; `None` only in a report of format 1, read back.
    pub fn verdict(&self) -> Option<&Verdict> {
        match &self.judgement {
            Judgement::Verdict(verdict) => Some(verdict),
            Judgement::Recorded { .. } => None,
        }
    }

    /// What the expected result rests on.
    pub fn basis(&self) -> &BasisNote {
        &self.basis
    }

    /// Whether a failure or error of this data set fails the run: its basis is one the run
    /// gates on, or the backend did not survive it (a panic, a crash, a protocol break, a
    /// timeout the retry rule confirmed), which gates on every basis. Others are reported
    /// and counted apart.
    pub fn gates(&self) -> bool {
        self.gates
    }

    /// Why it failed, errored or was skipped, as the verdict words it for the backend that
    /// answered (with where a panic happened, for an error the harness saw panic); empty
    /// when it passed. In a report of format 1 read back, the message it wrote.
    pub fn message(&self) -> String {
        match &self.judgement {
            Judgement::Verdict(verdict) => {
                let message = verdict.message(&self.backend);
                match &self.panicked_at {
                    Some(location) if verdict.status() == Status::Errored => format!("{message}\n  at {location}"),
                    _ => message,
                }
            }
            Judgement::Recorded { message, .. } => message.clone(),
        }
    }

    /// Whether every output was bit-identical to the expected one.
    pub fn bit_exact(&self) -> Option<bool> {
        self.measured.bit_exact
    }

    /// The largest absolute error over floating outputs.
    pub fn max_abs_error(&self) -> Option<f64> {
        self.measured.max_abs_error
    }

    /// The largest relative error over floating outputs.
    pub fn max_rel_error(&self) -> Option<f64> {
        self.measured.max_rel_error
    }

    /// Elements differing under the comparison rule, over all outputs.
    pub fn mismatches(&self) -> usize {
        self.measured.mismatches
    }

    /// What the data set handed the backend (inputs, their small values, the node's
    /// attributes), for data sets that did not pass: what reproduces the failure.
    pub fn setup(&self) -> Option<&Setup> {
        self.setup.as_ref()
    }

    /// The Pad-family node's mode and parameters with their values (`node` in the report):
    /// absent when the model or inputs could not be read, or from an older report.
    pub(crate) fn node(&self) -> Option<&NodeValues> {
        self.node.as_ref()
    }

    /// How a mismatch's outputs differ, as the judge measured it: where the failing elements
    /// lie and how they differ, or which of number, type and shape differ. With the verdict,
    /// the root cause the failure groups under ([`Outcome::cause_key`]), in a report read
    /// back or a child process's result too.
    pub fn difference(&self) -> Option<&Pattern> {
        self.difference.as_ref()
    }

    /// Run again after a crash or timeout: how the first try failed and how many tries were
    /// made. A passing outcome with it "passed after a crash".
    pub fn retry(&self) -> Option<&Retry> {
        self.retry.as_ref()
    }

    /// The sha256 of the backend's outputs, when the run compares tries
    /// ([`CheckOptions::digest_answers`](super::check::CheckOptions::digest_answers)); JSON
    /// writes it as `answer_sha256`.
    pub fn answer(&self) -> Option<&str> {
        self.answer.as_deref()
    }

    /// The backend's own code for its error (a worker's `code`, a `CodedError`'s), when it
    /// gave one: failure groups split by it; it never decides the verdict.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The answer judged is the reference's evaluation of a model the backend rewrote (a
    /// graph optimizer's): a mismatch is the rewrite's, a wrong fold.
    pub fn rewritten_model(&self) -> bool {
        self.rewritten_model
    }

    /// For a data set that must be refused, the name of its valid twin
    /// (`extended/test_ext_pad18_err_axes_repeated_twin/0`): its refusal counts only when the
    /// twin passes in the same run.
    pub fn twin(&self) -> Option<&str> {
        self.twin.as_deref()
    }

    /// How long loading, running and comparing took.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// Where a panic happened while it was checked, when the harness saw one.
    pub(crate) fn panicked_at(&self) -> Option<&str> {
        self.panicked_at.as_deref()
    }
}

/// What reports, baselines and groups make of it: functions of the fields above.
impl Outcome {
    /// `onnx-1.22.0/node/test_wrap_pad/0`: the name trials and reports use.
    pub fn name(&self) -> String {
        format!("{}/{}", self.id, self.data_set)
    }

    /// The root cause the failure groups under: the verdict's cause and, for a mismatch, how
    /// the outputs differ; `None` when it passed, or in a report of format 1 (no verdict).
    pub fn cause_key(&self) -> Option<CauseKey> {
        CauseKey::of(self.verdict()?, self.difference.clone())
    }

    /// How the backend survived this data set, from the verdict and the retry rule.
    pub(crate) fn survival(&self) -> Survival {
        self.verdict()
            .map_or(Survival::Answered, |verdict| Survival::of(verdict, self.retry.as_ref()))
    }

    /// Whether a failure of this data set fails a run gating on `gating`: the one rule
    /// ([`survival::gates`]) — its basis is one the run gates on, or the backend did not
    /// survive it (docs/semantics.md#basis).
    pub(crate) fn gates_under(&self, gating: &Gating) -> bool {
        survival::gates(gating, self.basis.kind, self.survival())
    }

    /// Failed or errored where the run gates: this fails the run.
    pub fn is_gating_failure(&self) -> bool {
        self.gates && matches!(self.status(), Status::Failed | Status::Errored)
    }

    /// Failed or errored on a basis the run does not gate on: reported, counted apart.
    pub fn is_non_gating_failure(&self) -> bool {
        !self.gates && matches!(self.status(), Status::Failed | Status::Errored)
    }

    /// `passed after a crash` (or `after a timeout`): it passed on a retry.
    pub fn passed_after(&self) -> Option<&'static str> {
        self.retry
            .as_ref()
            .filter(|_| self.status() == Status::Passed)
            .map(Retry::passed_after)
    }

    /// Passed, but not bit for bit: within tolerance only.
    pub fn is_lossy_pass(&self) -> bool {
        self.status() == Status::Passed && self.bit_exact() == Some(false)
    }

    /// How far apart the floating values were, when not all bit for bit (the verdict's).
    pub fn deviation(&self) -> Option<&Deviation> {
        self.verdict().and_then(Verdict::deviation)
    }

    /// What a pass that is not bit for bit reports: `passed, not bit-identical: max abs
    /// error …, max 2 ulps at output 0 [1, 3]`, or the special values that differ.
    pub(crate) fn lossy_note(&self) -> String {
        match self.deviation() {
            Some(deviation) => format!("passed, not bit-identical: {}", deviation.describe()),
            None => "passed, not bit-identical".to_owned(),
        }
    }

    /// `Pad-19`, `com.microsoft.Pad-1`, `Pad-18, graph of 13 nodes`, or `-` when unknown.
    pub fn operator(&self) -> String {
        match (self.op, self.version) {
            (Some(op), Some(v)) => graph_label(operator_label(op.domain(), op.op_type(), v), self.graph_nodes),
            _ => "-".to_owned(),
        }
    }
}

#[cfg(test)]
impl Outcome {
    /// A Pad-19 float outcome of data set 0 of `id` with `status` and no verdict (as a report
    /// of format 1 reads back), on the spec, gating: for tests of reports and tools to adjust
    /// with the builder.
    pub(crate) fn example(id: &str, status: Status) -> Outcome {
        Outcome::example_said(id, status, "")
    }

    /// [`Outcome::example`] with the message a report of format 1 wrote.
    pub(crate) fn example_said(id: &str, status: Status, message: &str) -> Outcome {
        Outcome::recorded(
            id.to_owned(),
            0,
            BasisNote::upstream(),
            (status, message.to_owned()),
            "x",
        )
        .with_example_operator()
    }

    /// A Pad-19 float outcome of data set 0 of `id` judged `verdict` for backend `x`, on the
    /// spec, gating.
    pub(crate) fn example_judged(id: &str, verdict: Verdict) -> Outcome {
        Outcome::judged(id.to_owned(), 0, BasisNote::upstream(), verdict, "x").with_example_operator()
    }

    /// Answered by a backend named `backend`: its verdict's message names it.
    pub(crate) fn with_backend(self, backend: &str) -> Outcome {
        Outcome {
            backend: backend.to_owned(),
            ..self
        }
    }

    fn with_example_operator(self) -> Outcome {
        use crate::operators::PadMode;
        self.with_operator((Some(PadOp::Pad), Some(19), Some(PadMode::Constant.into())))
            .with_input(Some(DataType::Float), None)
            .with_gates(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::{Failure, UnsupportedBy};
    use crate::operators::Rule;

    /// One verdict of every variant, with the status and message it must come to for a
    /// backend named `w`.
    fn every_verdict() -> Vec<(Verdict, Status, &'static str)> {
        vec![
            (
                Verdict::Passed {
                    bit_exact: true,
                    deviation: None,
                },
                Status::Passed,
                "",
            ),
            (
                Verdict::RefusedAsRequired {
                    refusal: "pads too short".into(),
                    rule: None,
                    expected: vec![],
                },
                Status::Passed,
                "refused as expected: pads too short",
            ),
            (
                Verdict::RefusalNotVerified {
                    refusal: "pads too short".into(),
                    rule: None,
                    expected: vec![],
                    twin: crate::judge::verdict::TwinEnd {
                        name: "c_twin/0".into(),
                        status: Some(Status::Unsupported),
                        cause: None,
                    },
                },
                Status::NotVerified,
                "refusal not verified: its twin c_twin/0 did not pass (unsupported), so backend w may refuse what it lacks, not the rule: pads too short",
            ),
            (
                Verdict::RefusedForAnotherReason {
                    refusal: "no".into(),
                    rule: Rule::DataType,
                    expected: vec![Rule::ModeNotInVersion, Rule::AxisRepeated],
                },
                Status::Failed,
                "backend w refused for another rule (kind refused): it names data-type, the data set breaks mode-not-in-version, axis-repeated: no",
            ),
            (
                Verdict::Mismatch {
                    shape: false,
                    report: "output 0: 1 of 6 elements differ".into(),
                    deviation: None,
                },
                Status::Failed,
                "mismatch: output 0: 1 of 6 elements differ",
            ),
            (
                Verdict::AcceptedMustRefuse {
                    reason: "negative pads".into(),
                    rules: vec![],
                },
                Status::Failed,
                "backend w returned outputs, but this data set must be refused: negative pads",
            ),
            (
                Verdict::RefusedValid {
                    refusal: "no wrap".into(),
                },
                Status::Errored,
                "backend w refused a valid input (kind refused): no wrap",
            ),
            (
                Verdict::Failed {
                    failure: Failure::Timeout,
                    detail: "after 5 s".into(),
                    must_refuse: true,
                },
                Status::Errored,
                "backend w timed out, which is not a refusal: after 5 s",
            ),
            (
                Verdict::Unstable {
                    after: Failure::Crash {
                        code: None,
                        signal: Some(11),
                    },
                    tries: 3,
                    detail: "passed, then failed".into(),
                },
                Status::Failed,
                "backend w answered differently on two tries after a crash: passed, then failed",
            ),
            (
                Verdict::NotLoadable {
                    detail: "model.onnx: truncated".into(),
                },
                Status::Errored,
                "model.onnx: truncated",
            ),
            (
                Verdict::Unsupported {
                    by: UnsupportedBy::Backend,
                    detail: "no int4".into(),
                },
                Status::Unsupported,
                "backend w says unsupported (kind unsupported): no int4",
            ),
            (
                Verdict::NotApplicable {
                    reason: "ops: Conv".into(),
                },
                Status::Skipped,
                "ops: Conv",
            ),
        ]
    }

    #[test]
    fn status_and_message_are_the_verdicts_for_every_variant() {
        for (verdict, status, message) in every_verdict() {
            let outcome = Outcome::judged("c".into(), 0, BasisNote::upstream(), verdict.clone(), "w");
            assert_eq!(outcome.status(), status, "{verdict:?}");
            assert_eq!(outcome.verdict(), Some(&verdict));
            assert_eq!(outcome.message(), message, "{verdict:?}");
        }
    }

    #[test]
    fn a_new_verdict_brings_its_own_status_and_message() {
        let passed = Outcome::judged(
            "c".into(),
            0,
            BasisNote::upstream(),
            Verdict::Passed {
                bit_exact: true,
                deviation: None,
            },
            "w",
        );
        let unstable = passed.with_verdict(Verdict::Unstable {
            after: Failure::Timeout,
            tries: 3,
            detail: "a, then b".into(),
        });
        assert_eq!(unstable.status(), Status::Failed);
        assert_eq!(
            unstable.message(),
            "backend w answered differently on two tries after a timeout: a, then b"
        );
    }

    #[test]
    fn a_panic_location_ends_the_message_of_an_error_only() {
        let panicked = Verdict::Failed {
            failure: Failure::Panic,
            detail: "index out of bounds".into(),
            must_refuse: false,
        };
        let errored = Outcome::judged("c".into(), 0, BasisNote::upstream(), panicked, "w")
            .with_panic_location("src/lib.rs:3:5".into());
        assert_eq!(
            errored.message(),
            "backend w crashed (it panicked): index out of bounds\n  at src/lib.rs:3:5"
        );
        // A panic the backend caught itself before it answered right leaves a pass silent.
        let passed = errored.with_verdict(Verdict::Passed {
            bit_exact: true,
            deviation: None,
        });
        assert_eq!(passed.message(), "");
    }

    #[test]
    fn a_recorded_outcome_keeps_what_its_report_wrote() {
        let recorded = Outcome::recorded(
            "c".into(),
            1,
            BasisNote::upstream(),
            (Status::Errored, "boom".into()),
            "w",
        );
        assert_eq!(
            (recorded.status(), recorded.message(), recorded.verdict()),
            (Status::Errored, "boom".to_owned(), None)
        );
        assert_eq!(recorded.cause_key(), None);
    }
}
