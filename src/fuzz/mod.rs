//! Differential fuzzing: random Pad-family configurations drawn from the operator table, the
//! reference backend as the oracle, any backend as the subject. A disagreement is shrunk to a
//! small case that still shows it, de-duplicated by signature, and can be written as a
//! node-test case that `pad-conformance` runs as it stands.
//!
//! ```no_run
//! use pad_conformance::backend::RefBackend;
//! use pad_conformance::fuzz::{FuzzOptions, fuzz};
//!
//! let report = fuzz(&RefBackend, &FuzzOptions { cases: Some(1000), ..FuzzOptions::default() }, &mut |_| {}).unwrap();
//! assert!(report.findings.is_empty());
//! ```

mod basis;
mod case;
mod generate;
pub mod reproducer;
mod shrink;
mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use prost::Message;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::backend::{Backend, ErrorKind, RefBackend, error_kind, refusal_rules};
use crate::cancel::Cancel;
use crate::case::{Expected, LoadedDataSet};
use crate::data::basis::BasisNote;
use crate::judge::check::{Answer, CheckOptions, judge_answer, run};
use crate::judge::profile::Subject;
use crate::judge::verdict::{Cause, Verdict};
use crate::model::Model;
use crate::model::constant_inputs::named_inputs_as_constants;
use crate::operators::{PadOp, Rule};
use crate::proto::ModelProto;
use crate::tensor::{DataType, DecodeOptions, Tensor};

pub use case::FuzzCase;
#[doc(hidden)]
pub use case::encoded_inputs;
pub use generate::Shape;
// One case drawn: for the tests of the generator.
#[doc(hidden)]
pub use generate::generate;

/// How a run is driven.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// The seed: the same seed gives the same cases on any machine.
    pub seed: u64,
    /// Stop after this many cases; with neither this nor `time`, after [`DEFAULT_CASES`].
    pub cases: Option<u64>,
    /// Stop after this long: a time budget alone bounds the run. It becomes `cancel`'s
    /// deadline, so that a backend stopped by the same token has its case in flight then cut
    /// short, its worker killed.
    pub time: Option<Duration>,
    /// What the generator draws.
    pub shape: Shape,
    /// The comparison, the bases that gate, the backend's profile, constant-input mode.
    pub check: CheckOptions,
    /// The most subject runs shrinking one finding may take.
    pub shrink_runs: usize,
    /// Threads evaluating cases. Cases are drawn and findings shrunk in order on the calling
    /// thread, so the result does not depend on it.
    pub threads: usize,
    /// Stops the run once tripped: the cases finished by then are reported, a case under
    /// way is dropped.
    pub cancel: Cancel,
    /// The most tensor elements the findings kept may hold (their cases, as drawn and
    /// shrunk, and the expected outputs); further distinct findings are counted as
    /// [`FuzzReport::dropped`]. Default 16 Mi: at most 256 MiB.
    pub stored_elements: usize,
}

/// The cases a run draws when given neither a number of cases nor a time budget.
pub const DEFAULT_CASES: u64 = 10_000;

impl FuzzOptions {
    /// The most cases the run draws: `cases`, else [`DEFAULT_CASES`] unless a time budget
    /// bounds it.
    pub fn case_limit(&self) -> Option<u64> {
        self.cases.or(self.time.is_none().then_some(DEFAULT_CASES))
    }
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            seed: 1,
            cases: None,
            time: None,
            shape: Shape::default(),
            check: CheckOptions::default(),
            shrink_runs: 400,
            threads: crate::run::runner::default_threads(),
            cancel: Cancel::new(),
            stored_elements: 1 << 24,
        }
    }
}

/// How a backend disagrees with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Outputs of the right type and shape with other values.
    WrongValues,
    /// Outputs of another type, shape or number.
    WrongShape,
    /// Refused a configuration the reference computes.
    RefusedValid,
    /// Answered a configuration that must be refused.
    AcceptedInvalid,
    /// Refused a configuration that must be refused, naming another spec rule (under
    /// strict rules).
    OtherReason,
    /// Crashed, panicked, broke the protocol, or reported a failure (never a refusal).
    Crashed,
    /// Did not answer in time.
    TimedOut,
}

impl Kind {
    /// The kind of disagreement a verdict shows; `None` when it shows none.
    pub fn of(verdict: &Verdict) -> Option<Kind> {
        Some(match verdict.cause()? {
            Cause::WrongValues => Kind::WrongValues,
            Cause::WrongShape => Kind::WrongShape,
            Cause::RefusesValid => Kind::RefusedValid,
            Cause::AcceptsForbidden => Kind::AcceptedInvalid,
            Cause::OtherReason => Kind::OtherReason,
            Cause::Timeout => Kind::TimedOut,
            Cause::Crash | Cause::Runner | Cause::NotLoadable => Kind::Crashed,
        })
    }

    /// `wrong-values`, `refused-valid`, …
    pub fn name(self) -> &'static str {
        match self {
            Kind::WrongValues => "wrong-values",
            Kind::WrongShape => "wrong-shape",
            Kind::RefusedValid => "refused-valid",
            Kind::AcceptedInvalid => "accepted-invalid",
            Kind::OtherReason => "other-reason",
            Kind::Crashed => "crashed",
            Kind::TimedOut => "timed-out",
        }
    }
}

/// What makes two findings the same defect: the operator (any version), the mode, the class
/// of element type and the kind of disagreement. A missing element type or mode counts once.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Signature {
    /// `pad`, `center_crop_pad` or `ms_pad`.
    pub op: &'static str,
    /// The mode attribute as written (`-` when absent).
    pub mode: String,
    /// `float`, `float8`, `float4`, `int`, `subbyte_int`, `string`, `bool`, `complex`.
    pub dtype_class: &'static str,
    /// How it disagrees.
    pub kind: Kind,
}

impl fmt::Display for Signature {
    /// `pad_edge_float_wrong-values`: safe as a directory name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode: String = self
            .mode
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        write!(f, "{}_{}_{}_{}", self.op, mode, self.dtype_class, self.kind.name())
    }
}

/// One distinct disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// What makes it distinct.
    pub signature: Signature,
    /// The smallest case found that shows it.
    pub case: FuzzCase,
    /// The case as first drawn.
    pub original: FuzzCase,
    /// What the reference expects of the shrunk case: its outputs, or its refusal.
    pub expected: Result<Vec<Tensor>, String>,
    /// The basis of that expectation.
    pub basis: BasisNote,
    /// The rules the reference refuses the shrunk case by, when it refuses it (the one its
    /// message states first).
    pub rules: Vec<Rule>,
    /// What the subject did, in the runner's words.
    pub message: String,
    /// How many drawn cases showed this signature.
    pub hits: u64,
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    /// The cases drawn.
    pub cases: u64,
    /// How long it took.
    pub duration: Duration,
    /// Distinct disagreements on a basis the run gates on, in order of signature.
    pub findings: Vec<Finding>,
    /// Distinct disagreements on other bases (a project rule, an undefined corner).
    pub not_gating: Vec<Finding>,
    /// Cases outside the backend's profile, or that the backend reports unsupported.
    pub unsupported: u64,
    /// Distinct disagreements found but not kept: the findings kept had filled
    /// [`FuzzOptions::stored_elements`], so that memory stays bounded however long the run.
    pub dropped: u64,
}

/// Where a run stands, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Cases so far.
    pub cases: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Distinct findings so far (gating or not).
    pub findings: usize,
}

/// A run that cannot go on: options out of range, the scratch directory, or the generator
/// producing a model the reference cannot even load (a bug of this crate, reported rather
/// than hidden).
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// `shape.max_elements` is 0 or over [`Shape::MAX_ELEMENTS`].
    #[error("max_elements {0} is not from 1 to {max}", max = Shape::MAX_ELEMENTS)]
    MaxElements(usize),
    /// The scratch directory for model files.
    #[error("making a scratch directory: {0}")]
    Scratch(#[source] std::io::Error),
    /// The reference panicked: a bug of this crate, never hidden as a finding.
    #[error("the reference panicked on {case}: {message}")]
    ReferencePanicked {
        /// The case.
        case: String,
        /// The panic's message.
        message: String,
    },
    /// A generated model that does not load.
    #[error("the generator made a model that does not load ({case}): {source}")]
    Generator {
        /// The case.
        case: String,
        /// Why.
        #[source]
        source: Box<crate::model::constant_inputs::RewriteError>,
    },
}

/// The reference's verdict and the subject's disagreement on one case, if any.
struct Evaluation {
    expected: Result<Vec<Tensor>, String>,
    basis: BasisNote,
    rules: Vec<Rule>,
    /// `None`: the subject agrees (or the case is outside its profile, or it reports the case
    /// unsupported).
    disagreement: Option<(Kind, String)>,
    unsupported: bool,
}

/// Fuzzes `backend` against the reference. `progress` is called now and then.
pub fn fuzz(
    backend: &dyn Backend,
    options: &FuzzOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<FuzzReport, FuzzError> {
    let max_elements = options.shape.max_elements;
    if !(1..=Shape::MAX_ELEMENTS).contains(&max_elements) {
        return Err(FuzzError::MaxElements(max_elements));
    }
    let threads = options.threads.max(1);
    // A batch's cases, expected outputs and answers are all held at once: fewer cases of a
    // larger shape, so that a batch holds about as many elements whatever the shape.
    let batch_size = (BATCH_ELEMENTS / max_elements).clamp(threads, BATCH) as u64;
    let scratches = (0..threads)
        .map(|_| tempfile::tempdir())
        .collect::<Result<Vec<_>, _>>()
        .map_err(FuzzError::Scratch)?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let start = Instant::now();
    if let Some(time) = options.time {
        options.cancel.cancel_at(start + time);
    }
    let mut report = FuzzReport::default();
    let mut seen: BTreeMap<Signature, Finding> = BTreeMap::new();
    let mut dropped: BTreeSet<Signature> = BTreeSet::new();
    let mut stored = 0;
    let mut last_progress = Instant::now();
    loop {
        let left = options
            .case_limit()
            .map_or(batch_size, |n| n.saturating_sub(report.cases).min(batch_size));
        if left == 0 || options.cancel.is_cancelled() {
            break;
        }
        let batch: Vec<FuzzCase> = (0..left).map(|_| generate(&mut rng, &options.shape)).collect();
        let evaluations = evaluate_all(backend, &batch, &scratches, &options.check, &options.cancel);
        for (case, evaluation) in batch.into_iter().zip(evaluations) {
            // Not evaluated, or cut short by the cancellation: not a case of the run.
            let Some(evaluation) = evaluation else { continue };
            let evaluation = evaluation?;
            report.cases += 1;
            report.unsupported += u64::from(evaluation.unsupported);
            let Some((kind, _)) = &evaluation.disagreement else {
                continue;
            };
            let signature = signature(&case, *kind);
            match seen.get_mut(&signature) {
                Some(finding) => finding.hits += 1,
                None if stored >= options.stored_elements => {
                    dropped.insert(signature);
                }
                None => {
                    let scratch = scratches[0].path();
                    let finding = shrink::shrink(backend, case, evaluation, &signature, scratch, options)?;
                    stored += elements_of(&finding);
                    seen.insert(signature, finding);
                }
            }
        }
        if last_progress.elapsed() >= Duration::from_millis(200) {
            last_progress = Instant::now();
            progress(&Progress {
                cases: report.cases,
                elapsed: start.elapsed(),
                findings: seen.len(),
            });
        }
    }
    report.duration = start.elapsed();
    report.dropped = dropped.len() as u64;
    for finding in seen.into_values() {
        if options.check.gating.gates(finding.basis.kind) {
            report.findings.push(finding);
        } else {
            report.not_gating.push(finding);
        }
    }
    Ok(report)
}

/// Cases drawn at a time, at most: evaluated in parallel, then taken in order.
const BATCH: usize = 256;
/// The elements of the largest cases a batch draws, together: 4 Mi.
const BATCH_ELEMENTS: usize = 1 << 22;

/// The tensor elements `finding` holds.
fn elements_of(finding: &Finding) -> usize {
    let outputs = finding.expected.as_ref().map_or(0, |o| o.iter().map(Tensor::len).sum());
    finding.case.data.len() + finding.original.data.len() + outputs
}

/// Evaluates `cases` on `scratches.len()` threads, each with its own scratch directory;
/// results come back in the order of `cases`, `None` for those `cancel` stopped.
fn evaluate_all(
    backend: &dyn Backend,
    cases: &[FuzzCase],
    scratches: &[tempfile::TempDir],
    check: &CheckOptions,
    cancel: &Cancel,
) -> Vec<Option<Result<Evaluation, FuzzError>>> {
    let chunk = cases.len().div_ceil(scratches.len()).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .zip(scratches)
            .map(|(cases, scratch)| {
                scope.spawn(move || {
                    cases
                        .iter()
                        .map(|case| {
                            if cancel.is_cancelled() {
                                return None;
                            }
                            let evaluation = evaluate(backend, case, scratch.path(), check);
                            (!cancel.is_cancelled()).then_some(evaluation)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("evaluation catches the backend's panics"))
            .collect()
    })
}

/// Runs the reference and the subject on `case` and says how they disagree.
fn evaluate(
    backend: &dyn Backend,
    case: &FuzzCase,
    scratch: &Path,
    check: &CheckOptions,
) -> Result<Evaluation, FuzzError> {
    let write = backend.reads_model_file() || check.inputs_as_constants || check.profile.folds_inputs();
    // Every case gets a directory of its own: workers may cache a model by its path.
    let dir = write.then(|| scratch.join(CASE_NUMBER.fetch_add(1, Ordering::Relaxed).to_string()));
    if let Some(dir) = &dir {
        std::fs::create_dir(dir).map_err(FuzzError::Scratch)?;
    }
    let result = evaluate_in(backend, case, dir.as_deref().unwrap_or(scratch), write, check);
    if let Some(dir) = &dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

/// Numbers the cases' scratch directories.
static CASE_NUMBER: AtomicU64 = AtomicU64::new(0);

fn evaluate_in(
    backend: &dyn Backend,
    case: &FuzzCase,
    scratch: &Path,
    write: bool,
    check: &CheckOptions,
) -> Result<Evaluation, FuzzError> {
    let (proto, inputs) = case.build("test_fuzz");
    let model = load(proto, scratch, write).map_err(|source| FuzzError::Generator {
        case: case.to_string(),
        source: Box::new(source),
    })?;
    let mut rules = Vec::new();
    let expected = match run(&RefBackend, &model, &inputs) {
        Answer::Outputs(outputs) => Ok(outputs),
        Answer::Refused(refusal) => {
            rules = refusal_rules(&refusal);
            Err(refusal.to_string())
        }
        Answer::Panicked(message) => {
            return Err(FuzzError::ReferencePanicked {
                case: case.to_string(),
                message,
            });
        }
    };
    // A refusal rests on the strongest of the rules the reference refuses by (one spec rule
    // broken is enough for the spec to require it); one that names none (a graph the
    // reference cannot evaluate) is a project rule.
    let strongest = rules.iter().min_by_key(|r| r.basis().0);
    let basis = match (&expected, strongest) {
        (Ok(_), _) => basis::of_output(case),
        (Err(_), Some(rule)) => rule.basis_note(),
        (Err(_), None) => Rule::UnsupportedOp.basis_note(),
    };
    let mut evaluation = Evaluation {
        expected,
        basis,
        rules,
        disagreement: None,
        unsupported: false,
    };
    if Subject::of(&model, &inputs).is_some_and(|s| check.profile.excludes(&s).is_some()) {
        evaluation.unsupported = true;
        return Ok(evaluation);
    }
    let constants = check.constant_inputs(&model);
    let answer = if !constants.is_empty() {
        let folded_dir = scratch.join("constants");
        std::fs::create_dir_all(&folded_dir).map_err(FuzzError::Scratch)?;
        match named_inputs_as_constants(&model, &inputs, &constants, &folded_dir, &DecodeOptions::default()) {
            Ok((folded, data)) => run(backend, &folded, &data),
            Err(source) => {
                return Err(FuzzError::Generator {
                    case: case.to_string(),
                    source: Box::new(source),
                });
            }
        }
    } else {
        run(backend, &model, &inputs)
    };
    // A case the backend itself reports unsupported counts as one outside its profile.
    if matches!(&answer, Answer::Refused(e) if error_kind(e) == ErrorKind::Unsupported) {
        evaluation.unsupported = true;
        return Ok(evaluation);
    }
    let expected = (&evaluation.expected, &evaluation.rules[..]);
    evaluation.disagreement = disagreement(backend.name(), &model, &inputs, expected, answer, check);
    Ok(evaluation)
}

/// Loads the model as the runner would, writing it where file-reading backends find it
/// (only for those: a file per case is most of the cost of an in-process run).
fn load(proto: ModelProto, scratch: &Path, write: bool) -> Result<Model, crate::model::constant_inputs::RewriteError> {
    let path = scratch.join("model.onnx");
    if write {
        std::fs::write(&path, proto.encode_to_vec()).map_err(|e| crate::tensor::FileProblem::Io(e).at(&path))?;
    }
    Ok(Model::from_proto(&path, proto, &DecodeOptions::default())?)
}

/// How `answer` disagrees with the reference's `expected`: the runner's own judge
/// ([`judge_answer`]), its verdict's cause as the kind, its message as the runner words it.
fn disagreement(
    backend: &str,
    model: &Model,
    inputs: &[Tensor],
    (expected, rules): (&Result<Vec<Tensor>, String>, &[Rule]),
    answer: Answer,
    check: &CheckOptions,
) -> Option<(Kind, String)> {
    let data = LoadedDataSet {
        inputs: inputs.to_vec(),
        expected: match expected {
            Ok(outputs) => Expected::Outputs(outputs.clone()),
            Err(reason) => Expected::Error(reason.clone()),
        },
    };
    let verdict = judge_answer(model, data, rules, answer, check);
    Kind::of(&verdict).map(|kind| (kind, verdict.message(backend)))
}

/// The signature of a disagreement of `kind` on `case`.
fn signature(case: &FuzzCase, kind: Kind) -> Signature {
    Signature {
        op: match case.operator.op {
            PadOp::Pad => "pad",
            PadOp::CenterCropPad => "center_crop_pad",
            PadOp::MicrosoftPad => "ms_pad",
        },
        mode: case.mode.clone().unwrap_or_else(|| "-".into()),
        dtype_class: dtype_class(case.data.data_type()),
        kind,
    }
}

/// The classes a missing element type usually comes in.
fn dtype_class(dtype: DataType) -> &'static str {
    use DataType::*;
    match dtype {
        Float | Double | Float16 | Bfloat16 => "float",
        Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0 => "float8",
        Float4E2M1 => "float4",
        Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 => "int",
        Int4 | Uint4 | Int2 | Uint2 => "subbyte_int",
        String => "string",
        Bool => "bool",
        Complex64 | Complex128 => "complex",
    }
}
