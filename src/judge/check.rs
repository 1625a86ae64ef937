//! Checking one data set of one case against a backend, as a straight pipeline: load the case
//! and data set, run the backend (a panic is caught), judge its answer. The CLI and the
//! libtest harness both call [`check_data_set`], so they cannot disagree.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use crate::backend::{Backend, BackendError, Driven, NodeValues, RefBackend};
use crate::case::{CaseError, Expected, ListingProblem, LoadedDataSet, TestCase};
use crate::data::basis::Gating;
use crate::judge::cause_key::{Pattern, values_pattern};
use crate::judge::compare::compare_in;
use crate::judge::deviation::Deviation;
use crate::judge::outcome::Measured;
// Where reports and the command line have always taken them from.
pub(crate) use crate::judge::outcome::Outcome;
use crate::judge::profile::Profile;
use crate::judge::retried::answer_digest;
use crate::judge::setup::Setup;
pub(crate) use crate::judge::status::Status;
use crate::judge::tolerance::Tolerance;
use crate::judge::verdict::{Expectation, Failure, UnsupportedBy, Verdict, judge_error};
use crate::model::Model;
use crate::model::constant_inputs::named_inputs_as_constants;
use crate::operators::regions::pad_regions;
use crate::operators::{ModeAttribute, PadOp, Rule};
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

/// The verdict on one data set, with what the comparison measured.
#[derive(Clone, Debug)]
struct Judged {
    verdict: Verdict,
    /// The pattern of a value mismatch, for its cause key.
    values: Option<Pattern>,
    /// What the comparison measured, when outputs were compared.
    measured: Measured,
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
            measured: Measured::default(),
            answer: None,
            code: None,
        }
    }
}

/// Checks data set `index` (an index into `case.data_sets`) of `case` against `backend`:
/// load, run, judge. The CLI and the harness both check every data set through it.
pub fn check_data_set(backend: &dyn Driven, case: &TestCase, index: usize, options: &CheckOptions) -> Outcome {
    let model = case.runnable_model(&case.decode_options(options.max_tensor_bytes));
    check_data_set_with(backend, case, index, &model, options)
}

/// [`check_data_set`] with the case's model already read by [`TestCase::runnable_model`]
/// (with the same `options.max_tensor_bytes`), so that a case's data sets share one decoding
/// (the runner and the harness share one per case).
pub(crate) fn check_data_set_with(
    backend: &dyn Driven,
    case: &TestCase,
    index: usize,
    model: &Result<Model, CaseError>,
    options: &CheckOptions,
) -> Outcome {
    let start = Instant::now();
    let decode = case.decode_options(options.max_tensor_bytes);
    let mut setup = None;
    let mut node = None;
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
            // What a bug report about any data set cites.
            node = NodeValues::of_model(model, &data.inputs);
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
    let outcome = judged_outcome(backend.name(), case, index, model, (dtype, shape), verdict, options)
        .with_setup(setup)
        .with_node(node)
        .with_rewritten_model(ran && backend.answers_with_rewritten_model())
        .with_duration(start.elapsed());
    let gates = outcome.gates() || broken;
    outcome.with_gates(gates)
}

/// The verdict of a data set outside `options.profile`: unsupported, never run. What the
/// data set is comes first; then its values, which a declared storage may not hold.
fn excluded_by_profile(model: &Model, data: &LoadedDataSet, options: &CheckOptions) -> Option<Judged> {
    let profile = &options.profile;
    let expected = match &data.expected {
        Expected::Outputs(outputs) => &outputs[..],
        Expected::Error(_) => &[],
    };
    let unsupported = profile.excludes_data_set(model, &data.inputs, expected)?;
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
        let outcome = judged_outcome(backend, case, index, Some(model), described, unsupported, options)
            // Unsupported is no pass: it lists what the data set hands the backend.
            .with_setup(Some(Setup::of(model, &data.inputs)))
            .with_node(NodeValues::of_model(model, &data.inputs))
            .with_duration(start.elapsed());
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
    Outcome::unanswered(case, index, verdict.verdict, &options.gating, backend)
        .with_operator(describe_operator(model))
        .with_graph_nodes(model.and_then(Model::graph_nodes))
        .with_input(dtype, shape)
        .with_measured(verdict.measured)
        .with_difference(verdict.values)
        .with_answer(verdict.answer)
        .with_code(verdict.code)
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
        measured: Measured::of(bit_exact, deviation.as_ref(), mismatches),
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
    use crate::operators::PadMode;

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

    impl Driven for Echo {}

    #[test]
    fn outcomes_name_the_operator_typed_and_only_failures_carry_their_setup() {
        let cases = discover(&[data_dir().join("onnx-1.22.0/node")], &Patterns::default()).unwrap();
        let case = cases.iter().find(|c| c.dir.ends_with("test_edge_pad")).unwrap();
        let options = CheckOptions::default();
        let passed = check_data_set(&RefBackend, case, 0, &options);
        assert_eq!(passed.status(), Status::Passed, "{}", passed.message());
        assert_eq!(
            (passed.op(), passed.mode().cloned()),
            (Some(PadOp::Pad), Some(PadMode::Edge.into()))
        );
        assert_eq!(passed.dtype(), Some(DataType::Int32));
        assert!(passed.setup().is_none(), "{:?}", passed.setup());
        // Every data set, a pass too, carries its node's values for a bug report.
        assert_eq!(
            serde_json::to_value(passed.node().expect("the node's values")).unwrap(),
            serde_json::json!({
                "mode": "edge",
                "pads": {"from": "input", "value": [0, 0, 1, 1, 0, 0, 1, 1]},
                "constant_value": {"from": "absent"},
                "axes": {"from": "absent"}
            })
        );

        let failed = check_data_set(&Echo, case, 0, &options);
        assert_eq!(failed.status(), Status::Failed);
        let setup = failed.setup().expect("a failure carries what reproduces it");
        assert_eq!(setup.inputs[0].dtype, DataType::Int32);
        assert_eq!(Some(setup.inputs[0].shape.as_slice()), failed.shape());
        assert_eq!(setup.inputs[1].name, "pads");
    }

    #[test]
    fn a_value_the_declared_storage_cannot_hold_makes_the_data_set_unsupported_unrun() {
        let root = data_dir();
        let patterns = Patterns::new(&[
            "test_edge_pad",
            "test_ext_pad11_constant_int64_narrow_beyond_32_bits",
            "test_ext_pad11_constant_float_narrow_pads_beyond_int32",
            "test_ext_pad11_constant_double_narrow_double_beyond_f32_precision",
        ])
        .unwrap();
        let cases = discover(&[root.join("onnx-1.22.0/node"), root.join("extended")], &patterns).unwrap();
        let case = |name: &str| cases.iter().find(|c| c.dir.ends_with(name)).unwrap();
        let narrowing = CheckOptions {
            profile: Profile::everything()
                .storage(DataType::Int64, DataType::Int32)
                .storage(DataType::Double, DataType::Float),
            ..CheckOptions::default()
        };
        let unsupported = |name: &str| {
            // Without the declaration the reference passes it; with it, no backend runs.
            assert_eq!(
                check_data_set(&RefBackend, case(name), 0, &CheckOptions::default()).status(),
                Status::Passed
            );
            let outcome = check_data_set(&Echo, case(name), 0, &narrowing);
            match outcome.verdict() {
                Some(Verdict::Unsupported {
                    by: UnsupportedBy::Profile,
                    detail,
                }) => detail.clone(),
                other => panic!("{name}: {other:?}"),
            }
        };
        assert_eq!(
            unsupported("test_ext_pad11_constant_int64_narrow_beyond_32_bits"),
            "outside the backend's profile: value range: input \"x\" holds 4294967296 at index 0, \
             which int32 storage cannot hold exactly"
        );
        // pads are int64 too: a runtime that keeps int64 as int32 keeps them so.
        assert!(
            unsupported("test_ext_pad11_constant_float_narrow_pads_beyond_int32")
                .contains("input \"pads\" holds 4294967297 at index 0, which int32 storage")
        );
        assert!(
            unsupported("test_ext_pad11_constant_double_narrow_double_beyond_f32_precision")
                .contains("input \"x\" holds 1.0000000000009095 at index 0, which float storage")
        );
        // int32 data with int64 pads that fit: run and judged as without the declaration.
        let fits = check_data_set(&RefBackend, case("test_edge_pad"), 0, &narrowing);
        assert_eq!(fits.status(), Status::Passed, "{}", fits.message());
        assert_eq!(
            check_data_set(&Echo, case("test_edge_pad"), 0, &narrowing).status(),
            Status::Failed
        );
    }
}
