//! Checking one data set of one case against a backend, as a straight pipeline: load the case
//! and data set, run the backend (a panic is caught), judge its answer. The CLI and the
//! libtest harness both call [`check_data_set`], so they cannot disagree.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::backend::{Backend, BackendError, RefBackend};
use crate::case::{CaseError, Expected, ListingProblem, LoadedDataSet, TestCase};
use crate::data::basis::{BasisNote, Gating};
use crate::judge::cause_key::{CauseKey, Pattern, values_pattern};
use crate::judge::compare::compare_in;
use crate::judge::deviation::Deviation;
use crate::judge::gate_result::GateResult;
use crate::judge::profile::{Profile, Subject};
use crate::judge::retried::{Retry, answer_digest};
use crate::judge::setup::Setup;
use crate::judge::survival::{self, Survival};
use crate::judge::tolerance::Tolerance;
use crate::judge::verdict::{Expectation, Failure, UnsupportedBy, Verdict, judge_error};
// Where reports and the command line have always taken it from, beside `Outcome`.
pub(crate) use crate::judge::status::Status;
use crate::model::Model;
use crate::model::constant_inputs::named_inputs_as_constants;
use crate::model::opset::{graph_label, operator_label};
use crate::operators::regions::pad_regions;
use crate::operators::{ModeAttribute, PadMode, PadOp, Rule};
use crate::tensor::{DEFAULT_MAX_BYTES, DataType, Tensor};

/// How cases are checked.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// How outputs are compared.
    pub tolerance: Tolerance,
    /// The largest tensor a file may declare, in bytes.
    pub max_tensor_bytes: u64,
    /// The bases whose failures fail the run (docs/semantics.md#basis).
    pub gating: Gating,
    /// What the backend claims to support; data sets outside it are unsupported.
    pub profile: Profile,
    /// Hand the backend a model whose graph inputs after the data are initializers holding
    /// the data set's values (also when the profile says the backend needs that).
    pub inputs_as_constants: bool,
    /// A refusal that names another spec rule than the data set breaks fails, instead of
    /// passing with a note (docs/semantics.md#refusal-rules).
    pub strict_rules: bool,
    /// Record the sha256 of the backend's outputs in [`Outcome::answer`], so that two tries
    /// of a retried data set can be compared byte for byte.
    pub digest_answers: bool,
}

impl CheckOptions {
    /// The graph inputs of `model` the backend is handed as initializers: every one after the
    /// data in constant-input mode, else those the profile's input forms name.
    pub(crate) fn constant_inputs(&self, model: &Model) -> Vec<String> {
        if self.inputs_as_constants {
            return model.graph.inputs.iter().skip(1).cloned().collect();
        }
        self.profile.initializer_inputs(model)
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            tolerance: Tolerance::default(),
            max_tensor_bytes: DEFAULT_MAX_BYTES,
            gating: Gating::default(),
            profile: Profile::everything(),
            inputs_as_constants: false,
            strict_rules: false,
            digest_answers: false,
        }
    }
}

/// The outcome of one data set, as reports show it.
///
/// The JSON report writes it and reads it back as it is (docs/report-format.md); the fields
/// added after format 1 default when absent, so older reports still read.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The case id: `onnx-1.22.0/node/test_wrap_pad`.
    pub id: String,
    /// The N of `test_data_set_N`.
    pub data_set: usize,
    /// The Pad-family operator checked, when the model was read; JSON writes it as `op`
    /// (`Pad`, `CenterCropPad`) and `domain` (`ai.onnx`, `com.microsoft`).
    #[serde(flatten, with = "crate::family::op_fields")]
    pub op: Option<PadOp>,
    /// The operator version the model's opset selects.
    pub version: Option<i64>,
    /// The Pad node's `mode` (`constant` when absent); none for CenterCropPad.
    pub mode: Option<ModeAttribute>,
    /// How many nodes the model's graph has, when it has more than one (a graph of helper
    /// ops, as the upstream `*_expanded` cases); absent from older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_nodes: Option<usize>,
    /// The element type of the data input, when the data set loaded.
    pub dtype: Option<DataType>,
    /// The shape of the data input, when the data set loaded: how big the data set is.
    #[serde(default)]
    pub shape: Option<Vec<usize>>,
    /// What happened: the verdict's status.
    pub status: Status,
    /// The verdict, decided once; `None` only in a report of format 1, read back.
    #[serde(default)]
    pub verdict: Option<Verdict>,
    /// What the expected result rests on.
    pub basis: BasisNote,
    /// Whether a failure or error of this data set fails the run: its basis is one the run
    /// gates on, or the backend did not survive it (a panic, a crash, a protocol break, a
    /// timeout the retry rule confirmed), which gates on every basis. Others are reported
    /// and counted apart.
    pub gates: bool,
    /// Why it failed, errored or was skipped, as the verdict words it; empty when it passed.
    #[serde(default)]
    pub message: String,
    /// Whether every output was bit-identical to the expected one.
    pub bit_exact: Option<bool>,
    /// The largest absolute error over floating outputs.
    pub max_abs_error: Option<f64>,
    /// The largest relative error over floating outputs.
    pub max_rel_error: Option<f64>,
    /// Elements differing under the comparison rule, over all outputs.
    #[serde(default)]
    pub mismatches: usize,
    /// What the data set handed the backend (inputs, their small values, the node's
    /// attributes), for data sets that did not pass: what reproduces the failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<Setup>,
    /// How a mismatch's outputs differ, as the judge measured it: where the failing elements
    /// lie and how they differ, or which of number, type and shape differ. With the verdict,
    /// the root cause the failure groups under ([`Outcome::cause_key`]), in a report read
    /// back or a child process's result too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<Pattern>,
    /// How the verdict weighs against the run's baseline, when it was judged against one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateResult>,
    /// Run again after a crash or timeout: how the first try failed and how many tries were
    /// made. A passing outcome with it "passed after a crash" (absent from older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
    /// The sha256 of the backend's outputs, when the run compares tries
    /// ([`CheckOptions::digest_answers`]).
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "answer_sha256")]
    pub answer: Option<String>,
    /// The backend's own code for its error (a worker's `code`, a `CodedError`'s), when it
    /// gave one: failure groups split by it; it never decides the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The answer judged is the reference's evaluation of a model the backend rewrote (a
    /// graph optimizer's): a mismatch is the rewrite's, a wrong fold (absent, false, from
    /// older reports and other backends).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rewritten_model: bool,
    /// How long loading, running and comparing took.
    #[serde(serialize_with = "seconds", deserialize_with = "from_seconds", default)]
    pub duration: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// A duration in seconds, within the one bound (a hand-edited `1e19` would overflow a sum).
fn from_seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let seconds = <f64 as serde::Deserialize>::deserialize(d)?;
    crate::data::seconds::bounded_seconds(seconds).map_err(|e| serde::de::Error::custom(format!("duration {e}")))
}

impl Outcome {
    /// `onnx-1.22.0/node/test_wrap_pad/0`: the name trials and reports use.
    pub fn name(&self) -> String {
        format!("{}/{}", self.id, self.data_set)
    }

    /// A Pad-19 float outcome of data set 0 of `id` with `status`, on the spec, for tests
    /// of reports and tools to adjust with struct update syntax.
    pub fn example(id: &str, status: Status) -> Outcome {
        Outcome {
            id: id.to_owned(),
            data_set: 0,
            op: Some(PadOp::Pad),
            version: Some(19),
            mode: Some(PadMode::Constant.into()),
            graph_nodes: None,
            dtype: Some(DataType::Float),
            shape: None,
            status,
            verdict: None,
            basis: BasisNote::upstream(),
            gates: true,
            message: String::new(),
            bit_exact: None,
            max_abs_error: None,
            max_rel_error: None,
            mismatches: 0,
            setup: None,
            difference: None,
            gate: None,
            retry: None,
            answer: None,
            code: None,
            rewritten_model: false,
            duration: Duration::ZERO,
        }
    }

    /// The outcome of data set `index` of `case` when `backend` never answered it: the
    /// `verdict` says how it failed (a child process that crashed or timed out) or that it
    /// could not be loaded. The operator is not named: nothing read the model. (Every
    /// outcome starts as this one; [`check_data_set`] adds what it read and measured.)
    pub fn unanswered(case: &TestCase, index: usize, verdict: Verdict, gating: &Gating, backend: &str) -> Outcome {
        let outcome = Outcome {
            id: case.id.clone(),
            data_set: case.data_number(index),
            op: None,
            version: None,
            mode: None,
            graph_nodes: None,
            dtype: None,
            shape: None,
            status: verdict.status(),
            message: verdict.message(backend),
            verdict: Some(verdict),
            gates: false,
            basis: case.basis_of(index).clone(),
            bit_exact: None,
            max_abs_error: None,
            max_rel_error: None,
            mismatches: 0,
            setup: None,
            difference: None,
            gate: None,
            retry: None,
            answer: None,
            code: None,
            rewritten_model: false,
            duration: Duration::ZERO,
        };
        Outcome {
            gates: outcome.gates_under(gating),
            ..outcome
        }
    }

    /// The root cause the failure groups under: the verdict's cause and, for a mismatch, how
    /// the outputs differ; `None` when it passed, or in a report of format 1 (no verdict).
    pub fn cause_key(&self) -> Option<CauseKey> {
        CauseKey::of(self.verdict.as_ref()?, self.difference.clone())
    }

    /// How the backend survived this data set, from the verdict and the retry rule.
    pub(crate) fn survival(&self) -> Survival {
        self.verdict
            .as_ref()
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
        self.gates && matches!(self.status, Status::Failed | Status::Errored)
    }

    /// Failed or errored on a basis the run does not gate on: reported, counted apart.
    pub fn is_non_gating_failure(&self) -> bool {
        !self.gates && matches!(self.status, Status::Failed | Status::Errored)
    }

    /// `passed after a crash` (or `after a timeout`): it passed on a retry.
    pub fn passed_after(&self) -> Option<&'static str> {
        self.retry
            .as_ref()
            .filter(|_| self.status == Status::Passed)
            .map(Retry::passed_after)
    }

    /// Passed, but not bit for bit: within tolerance only.
    pub fn is_lossy_pass(&self) -> bool {
        self.status == Status::Passed && self.bit_exact == Some(false)
    }

    /// How far apart the floating values were, when not all bit for bit (the verdict's).
    pub fn deviation(&self) -> Option<&Deviation> {
        self.verdict.as_ref().and_then(Verdict::deviation)
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

/// The verdict on one data set, with what the comparison measured.
#[derive(Clone, Debug)]
struct Judged {
    verdict: Verdict,
    /// The pattern of a value mismatch, for its cause key.
    values: Option<Pattern>,
    bit_exact: Option<bool>,
    /// Over the floating outputs, when any was compared.
    deviation: Option<Box<Deviation>>,
    mismatches: usize,
    /// The sha256 of the outputs, under [`CheckOptions::digest_answers`].
    answer: Option<String>,
    /// The backend's own code for its error, when it gave one.
    code: Option<String>,
}

/// The sha256 of the outputs in `answer`, when `options` ask for it.
fn digest_of(answer: &Answer, options: &CheckOptions) -> Option<String> {
    match answer {
        Answer::Outputs(outputs) if options.digest_answers => Some(answer_digest(outputs)),
        _ => None,
    }
}

impl From<Verdict> for Judged {
    fn from(verdict: Verdict) -> Judged {
        Judged {
            verdict,
            values: None,
            bit_exact: None,
            deviation: None,
            mismatches: 0,
            answer: None,
            code: None,
        }
    }
}

/// Checks data set `index` (an index into `case.data_sets`) of `case` against `backend`:
/// load, run, judge. The CLI and the harness both check every data set through it.
///
/// ```
/// use pad_conformance::RefBackend;
/// use pad_conformance::testing::{Patterns, discover};
/// use pad_conformance::testing::{CheckOptions, Status, check_data_set};
/// use pad_conformance::testing::Verdict;
///
/// let case = &discover(&[], &Patterns::new(&["test_wrap_pad"])?)?[0];
/// let outcome = check_data_set(&RefBackend, case, 0, &CheckOptions::default());
/// assert_eq!(outcome.status, Status::Passed);
/// assert!(matches!(outcome.verdict, Some(Verdict::Passed { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_data_set(backend: &dyn Backend, case: &TestCase, index: usize, options: &CheckOptions) -> Outcome {
    let model = case.runnable_model(&case.decode_options(options.max_tensor_bytes));
    check_data_set_with(backend, case, index, &model, options)
}

/// [`check_data_set`] with the case's model already read by [`TestCase::runnable_model`]
/// (with the same `options.max_tensor_bytes`), so that a case's data sets share one decoding
/// (the runner and the harness share one per case).
pub(crate) fn check_data_set_with(
    backend: &dyn Backend,
    case: &TestCase,
    index: usize,
    model: &Result<Model, CaseError>,
    options: &CheckOptions,
) -> Outcome {
    let start = Instant::now();
    let decode = case.decode_options(options.max_tensor_bytes);
    let mut setup = None;
    let case_model = model;
    let mut ran = false;
    let (model, (dtype, shape), verdict) = match load(case, index, model, &decode) {
        Loaded::Stopped(model, verdict) => (model, (None, None), verdict),
        Loaded::Ready(model, data) => {
            let input = data.inputs.first();
            let described = (input.map(|t| t.data_type()), input.map(|t| t.shape().to_vec()));
            let verdict = match excluded_by_profile(model, &data, options) {
                Some(unsupported) => unsupported,
                None if !options.constant_inputs(model).is_empty() => {
                    ran = true;
                    run_with_constant_inputs(backend, model, &data, (case, index), &decode, options)
                }
                None => {
                    ran = true;
                    let answer = run(backend, model, &data.inputs);
                    let rules = expected_rules(case, index, model, &data, &answer);
                    let digest = digest_of(&answer, options);
                    Judged {
                        answer: digest,
                        ..judge(model, &data, &rules, answer, options)
                    }
                }
            };
            // What reproduces a failure; a pass needs none.
            if verdict.verdict.status() != Status::Passed {
                setup = Some(Setup::of(model, &data.inputs));
            }
            (Some(model), described, verdict)
        }
    };
    // A broken case (its listing at fault: a case.json contradicting its model, files that
    // do not make a data set) gates whatever basis it claims: its claim is what is broken. So
    // does a copy of a bundled data set whose bundled expectation cannot be read: the basis
    // it would otherwise be judged on is the copy's own claim.
    let bundled_unreadable = case
        .data_sets
        .get(index)
        .is_some_and(|d| matches!(d.problem, Some(ListingProblem::Bundled(_))));
    let broken = matches!(case_model, Err(CaseError::Listing(_))) || bundled_unreadable;
    let outcome = Outcome {
        setup,
        rewritten_model: ran && backend.answers_with_rewritten_model(),
        duration: start.elapsed(),
        ..judged_outcome(backend.name(), case, index, model, (dtype, shape), verdict, options)
    };
    Outcome {
        gates: outcome.gates || broken,
        ..outcome
    }
}

/// The verdict of a data set outside `options.profile`: unsupported, never run.
fn excluded_by_profile(model: &Model, data: &LoadedDataSet, options: &CheckOptions) -> Option<Judged> {
    let unsupported = Subject::of(model, &data.inputs).and_then(|s| options.profile.excludes(&s))?;
    Some(Judged::from(Verdict::Unsupported {
        by: UnsupportedBy::Profile,
        detail: unsupported.to_string(),
    }))
}

/// What `options.profile` does to data set `index` of `case`, decided from the data set alone
/// (no backend runs): how a run made without the profile is judged with it afterwards.
#[derive(Debug)]
pub(crate) enum UnderProfile {
    /// Outside the profile: the outcome a run with it gives, unsupported.
    Excluded(Box<Outcome>),
    /// Run as a run without the profile runs it (or not loaded, the same way): that run's
    /// outcome stands.
    Unchanged,
    /// Run otherwise: the profile hands these inputs to the backend as initializers, so only
    /// a run made with it says what the backend answers.
    Initializers(Vec<String>),
}

/// What `options.profile` (with `options.inputs_as_constants`) does to data set `index` of
/// `case`, its model read as [`check_data_set_with`] takes it, for a backend named `backend`.
pub(crate) fn under_profile(
    backend: &str,
    case: &TestCase,
    index: usize,
    model: &Result<Model, CaseError>,
    options: &CheckOptions,
) -> UnderProfile {
    let start = Instant::now();
    let decode = case.decode_options(options.max_tensor_bytes);
    let Loaded::Ready(model, data) = load(case, index, model, &decode) else {
        return UnderProfile::Unchanged;
    };
    if let Some(unsupported) = excluded_by_profile(model, &data, options) {
        let input = data.inputs.first();
        let described = (input.map(|t| t.data_type()), input.map(|t| t.shape().to_vec()));
        let outcome = Outcome {
            // Unsupported is no pass: it lists what the data set hands the backend.
            setup: Some(Setup::of(model, &data.inputs)),
            duration: start.elapsed(),
            ..judged_outcome(backend, case, index, Some(model), described, unsupported, options)
        };
        return UnderProfile::Excluded(Box::new(outcome));
    }
    match options.constant_inputs(model) {
        names if names.is_empty() => UnderProfile::Unchanged,
        names => UnderProfile::Initializers(names),
    }
}

/// The outcome of data set `index` of `case` judged `verdict`, with what was read of it (the
/// model, the data input's element type and shape) and measured; no setup, no duration.
fn judged_outcome(
    backend: &str,
    case: &TestCase,
    index: usize,
    model: Option<&Model>,
    (dtype, shape): (Option<DataType>, Option<Vec<usize>>),
    verdict: Judged,
    options: &CheckOptions,
) -> Outcome {
    let (op, version, mode) = describe_operator(model);
    Outcome {
        op,
        version,
        mode,
        graph_nodes: model.and_then(Model::graph_nodes),
        dtype,
        shape,
        bit_exact: verdict.bit_exact,
        max_abs_error: verdict.deviation.as_ref().map(|d| d.max_abs_error),
        max_rel_error: verdict.deviation.as_ref().map(|d| d.max_rel_error),
        mismatches: verdict.mismatches,
        difference: verdict.values.clone(),
        answer: verdict.answer.clone(),
        code: verdict.code.clone(),
        ..Outcome::unanswered(case, index, verdict.verdict, &options.gating, backend)
    }
}

/// A data set, loaded or not.
enum Loaded<'a> {
    /// The model and the data set's tensors.
    Ready(&'a Model, LoadedDataSet),
    /// The verdict when they cannot be had, with the model when it loaded, so the report
    /// still names the operator.
    Stopped(Option<&'a Model>, Judged),
}

fn load<'a>(
    case: &TestCase,
    index: usize,
    model: &'a Result<Model, CaseError>,
    decode: &crate::tensor::DecodeOptions,
) -> Loaded<'a> {
    let model = match model {
        Ok(model) => model,
        Err(e) => {
            let verdict = match e {
                CaseError::NotApplicable(reason) => Verdict::NotApplicable { reason: reason.clone() },
                CaseError::Listing(_) | CaseError::Model(_) => Verdict::NotLoadable { detail: e.to_string() },
            };
            return Loaded::Stopped(None, verdict.into());
        }
    };
    let errored = |detail: String| Judged::from(Verdict::NotLoadable { detail });
    let Some(data_set) = case.data_sets.get(index) else {
        let message = format!("{}: no data set {index}", case.dir.display());
        return Loaded::Stopped(Some(model), errored(message));
    };
    if let Some(problem) = data_set.problem_with(model) {
        return Loaded::Stopped(Some(model), errored(problem.to_string()));
    }
    match case.load_data_set(data_set, decode) {
        Ok(data) => Loaded::Ready(model, data),
        Err(e) => Loaded::Stopped(Some(model), errored(e.to_string())),
    }
}

/// Runs the backend on the model rewritten so that the inputs after the data are constants
/// (written to a scratch directory, for backends that read the file).
fn run_with_constant_inputs(
    backend: &dyn Backend,
    model: &Model,
    data: &LoadedDataSet,
    (case, index): (&TestCase, usize),
    decode: &crate::tensor::DecodeOptions,
    options: &CheckOptions,
) -> Judged {
    let scratch = match crate::data::scratch::scratch_in(&std::env::temp_dir(), "pad-conformance-") {
        Ok(dir) => dir,
        Err(e) => {
            let detail = format!("making a scratch directory: {e}");
            return Verdict::Failed {
                failure: Failure::Runner,
                detail,
                must_refuse: matches!(data.expected, Expected::Error(_)),
            }
            .into();
        }
    };
    let names = options.constant_inputs(model);
    let (folded, inputs) = match named_inputs_as_constants(model, &data.inputs, &names, scratch.path(), decode) {
        Ok(folded) => folded,
        Err(e) => {
            let detail = format!("making the inputs constants: {e}");
            return Verdict::NotLoadable { detail }.into();
        }
    };
    let answer = run(backend, &folded, &inputs);
    let rules = expected_rules(case, index, model, data, &answer);
    let digest = digest_of(&answer, options);
    // The regions of a mismatch are read off the original model and inputs.
    Judged {
        answer: digest,
        ..judge(model, data, &rules, answer, options)
    }
}

/// The rules a data set that must be refused breaks: those its case.json lists, and, when the
/// backend's refusal names a rule to compare with them, every rule the reference refuses it by.
fn expected_rules(case: &TestCase, index: usize, model: &Model, data: &LoadedDataSet, answer: &Answer) -> Vec<Rule> {
    let mut rules: Vec<Rule> = case.info_of(index).map_or_else(Vec::new, |info| info.rules.clone());
    let named = matches!(answer, Answer::Refused(e) if e.rule().is_some());
    if named
        && matches!(data.expected, Expected::Error(_))
        && let Answer::Refused(reference) = run(&RefBackend, model, &data.inputs)
    {
        for &rule in reference.rules() {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    rules
}

/// What the backend answered: outputs, its error, or the message of its panic.
pub(crate) enum Answer {
    /// The outputs it returned.
    Outputs(Vec<Tensor>),
    /// The error it returned: a refusal, unless it says otherwise.
    Refused(BackendError),
    /// It panicked; the panic's message.
    Panicked(String),
}

/// Runs `backend` on `model` and `inputs`, catching a panic.
pub(crate) fn run(backend: &dyn Backend, model: &Model, inputs: &[Tensor]) -> Answer {
    match catch_unwind(AssertUnwindSafe(|| backend.run(model, inputs))) {
        Ok(Ok(outputs)) => Answer::Outputs(outputs),
        Ok(Err(e)) => Answer::Refused(e),
        // A panic's payload is `dyn Any`: its type is all there is to ask it.
        Err(panic) => Answer::Panicked(
            panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string panic payload".to_owned()),
        ),
    }
}

/// The verdict on a backend's `answer` to the data set `data` of `model`: the one judge of
/// every face — the command line, the harness, matrix and the fuzzer.
/// `rules` are the rules a data set that must be refused breaks, when known.
pub(crate) fn judge_answer(
    model: &Model,
    data: LoadedDataSet,
    rules: &[Rule],
    answer: Answer,
    options: &CheckOptions,
) -> Verdict {
    judge(model, &data, rules, answer, options).verdict
}

/// [`judge_answer`], with what the comparison measured.
fn judge(model: &Model, data: &LoadedDataSet, rules: &[Rule], answer: Answer, options: &CheckOptions) -> Judged {
    let expectation = match &data.expected {
        Expected::Outputs(outputs) => Expectation::Outputs(outputs),
        Expected::Error(reason) => Expectation::Refusal {
            reason,
            rules: rules.to_vec(),
        },
    };
    let expected = match (&data.expected, answer) {
        (_, Answer::Panicked(detail)) => {
            return Verdict::Failed {
                failure: Failure::Panic,
                detail,
                must_refuse: matches!(expectation, Expectation::Refusal { .. }),
            }
            .into();
        }
        (_, Answer::Refused(e)) => {
            return Judged {
                code: e.code().map(str::to_owned),
                ..judge_error(&e, &expectation, options.strict_rules).into()
            };
        }
        (Expected::Error(reason), Answer::Outputs(_)) => {
            return Verdict::AcceptedMustRefuse {
                reason: reason.clone(),
                rules: rules.to_vec(),
            }
            .into();
        }
        (Expected::Outputs(expected), Answer::Outputs(actual)) => (expected.as_slice(), actual),
    };
    compare_outputs(model, &data.inputs, expected, &options.tolerance)
}

/// Compares every output; the mismatch report names the padding region of each listed index.
fn compare_outputs(
    model: &Model,
    inputs: &[Tensor],
    (expected, actual): (&[Tensor], Vec<Tensor>),
    tolerance: &Tolerance,
) -> Judged {
    if expected.len() != actual.len() {
        let report = format!(
            "expected {} outputs, the backend returned {}",
            expected.len(),
            actual.len()
        );
        return Verdict::Mismatch {
            shape: true,
            report,
            deviation: None,
        }
        .into();
    }
    let regions = pad_regions(model, inputs);
    let mut reports = Vec::new();
    let mut bit_exact = true;
    let mut shape = false;
    let mut mismatches = 0;
    let mut deviation: Option<Deviation> = None;
    for (index, (e, a)) in expected.iter().zip(&actual).enumerate() {
        let comparison = compare_in(e, a, tolerance, regions.as_ref());
        bit_exact &= comparison.bit_exact;
        mismatches += comparison.differing;
        if let Some(output) = &comparison.deviation {
            deviation
                .get_or_insert_with(Deviation::default)
                .merge(output.clone().in_output(index));
        }
        if !comparison.passed {
            shape |= comparison.problem.is_some();
            let name = model.graph.outputs.get(index).map_or("", String::as_str);
            reports.push(comparison.report(index, name));
        }
    }
    let verdict = if reports.is_empty() {
        Verdict::Passed {
            bit_exact,
            deviation: deviation.clone().filter(|_| !bit_exact).map(Box::new),
        }
    } else {
        Verdict::Mismatch {
            shape,
            report: reports.join("\n"),
            deviation: deviation.clone().map(Box::new),
        }
    };
    // Where the failing elements lie and how they differ: what tells one defect from another.
    let values = matches!(verdict, Verdict::Mismatch { .. })
        .then(|| values_pattern(model, inputs, expected, &actual, tolerance))
        .flatten();
    Judged {
        verdict,
        values,
        bit_exact: Some(bit_exact),
        deviation: deviation.map(Box::new),
        mismatches,
        answer: None,
        code: None,
    }
}

/// The model's Pad-family operator as reports show it: operator, version and mode.
fn describe_operator(model: Option<&Model>) -> (Option<PadOp>, Option<i64>, Option<ModeAttribute>) {
    let Some((node, op)) = model.and_then(|m| m.pad_nodes().next()) else {
        return (None, None, None);
    };
    (Some(op), Some(node.version), node.pad_mode())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Patterns, discover};
    use crate::data::data_dir;

    /// Returns the data input as the output: the wrong shape for any data set that pads.
    struct Echo;

    impl Backend for Echo {
        fn name(&self) -> &str {
            "echo"
        }

        fn run(&self, _: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
            Ok(vec![inputs[0].clone()])
        }
    }

    #[test]
    fn outcomes_name_the_operator_typed_and_only_failures_carry_their_setup() {
        let cases = discover(&[data_dir().join("onnx-1.22.0/node")], &Patterns::default()).unwrap();
        let case = cases.iter().find(|c| c.dir.ends_with("test_edge_pad")).unwrap();
        let options = CheckOptions::default();
        let passed = check_data_set(&RefBackend, case, 0, &options);
        assert_eq!(passed.status, Status::Passed, "{}", passed.message);
        assert_eq!(
            (passed.op, passed.mode.clone()),
            (Some(PadOp::Pad), Some(PadMode::Edge.into()))
        );
        assert_eq!(passed.dtype, Some(DataType::Int32));
        assert!(passed.setup.is_none(), "{:?}", passed.setup);

        let failed = check_data_set(&Echo, case, 0, &options);
        assert_eq!(failed.status, Status::Failed);
        let setup = failed.setup.expect("a failure carries what reproduces it");
        assert_eq!(setup.inputs[0].dtype, DataType::Int32);
        assert_eq!(Some(&setup.inputs[0].shape), failed.shape.as_ref());
        assert_eq!(setup.inputs[1].name, "pads");
    }
}
