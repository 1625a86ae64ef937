//! Differential fuzzing: random Pad-family configurations drawn from the operator table, the
//! reference backend as the oracle, any backend as the subject. Disagreements are grouped by
//! root cause ([`CauseKey`]): the first case showing a cause is shrunk to a small case that
//! still shows that cause on the same or a stronger basis, and can be written as a node-test
//! case that `pad-conformance` runs as it stands. Case `i` of seed `s` is drawn by a
//! generator of its own ([`generate_case`]), so runs split into shards.
//!
//! ```no_run
//! use pad_conformance::RefBackend;
//! use pad_conformance::testing::{FuzzOptions, fuzz};
//!
//! let report = fuzz(&RefBackend, &FuzzOptions { cases: Some(1000), ..FuzzOptions::default() }, &mut |_| {}).unwrap();
//! assert!(report.findings.is_empty());
//! ```

mod basis;
mod case;
pub(crate) mod encoding;
mod generate;
pub(crate) mod reproducer;
mod shrink;
mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use prost::Message;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::backend::{Backend, ErrorKind, RefBackend, error_kind, refusal_rules};
use crate::cancel::Cancel;
use crate::case::{Expected, LoadedDataSet};
use crate::data::basis::{Basis, BasisNote, Gating};
use crate::data::shard::Shard;
use crate::judge::cause_key::{CauseKey, values_pattern};
use crate::judge::check::{Answer, CheckOptions, judge_answer, run};
use crate::judge::profile::Subject;
use crate::judge::survival::{self, Survival};
use crate::model::Model;
use crate::model::constant_inputs::named_inputs_as_constants;
use crate::operators::{OpVersion, Rule};
use crate::proto::ModelProto;
use crate::tensor::{DataType, DecodeOptions, Tensor};

pub(crate) use case::FuzzCase;
#[doc(hidden)]
pub(crate) use case::encoded_inputs;
use encoding::Encoding;
pub use generate::Shape;
use generate::generate;

/// How a run is driven.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// The seed: the same seed gives the same cases on any machine.
    pub seed: u64,
    /// Stop after this many cases; with neither this nor `time`, after 10,000.
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
    /// Threads evaluating cases. Findings are shrunk in order of case index on the calling
    /// thread, so the result does not depend on it.
    pub threads: usize,
    /// Stops the run once tripped: the cases finished by then are reported, a case under
    /// way is dropped.
    pub cancel: Cancel,
    /// The most tensor elements the findings kept may hold (their cases, as drawn and
    /// shrunk, and the expected outputs); further distinct findings are counted as
    /// [`FuzzReport::dropped`]. Default 16 Mi: at most 256 MiB.
    pub stored_elements: usize,
    /// The share of the cases this run takes: part K of N draws the cases whose index is
    /// K − 1 modulo N. Shards of one seed draw disjoint cases; their reports
    /// [merged](FuzzReport::merge) are the unsharded run's.
    pub shard: Shard,
    /// The share of cases, 0 to 1, that a backend reading model files is also handed in
    /// another legal wire form when it answers the plain form correctly: one of
    /// [`Encoding::OTHERS`] that changes the model, drawn from the seed and the case's index.
    /// What changes is reported apart ([`FuzzReport::encodings`]). 0 turns the dimension off.
    pub encodings: f64,
}

/// The cases a run draws when given neither a number of cases nor a time budget.
pub(crate) const DEFAULT_CASES: u64 = 10_000;

/// The share of cases re-encoded by default: one in ten costs a tenth more subject runs.
pub(crate) const DEFAULT_ENCODINGS: f64 = 0.1;

impl FuzzOptions {
    /// The most cases the run draws: `cases`, else 10,000 unless a time budget
    /// bounds it.
    pub fn case_limit(&self) -> Option<u64> {
        self.cases.or(self.time.is_none().then_some(DEFAULT_CASES))
    }

    /// Whether case `index` is also handed over in another form, and which first: drawn
    /// from a generator of its own (the case's draws stay as they are), so a case is
    /// re-encoded the same way in any run. Only a backend that reads the model file can see
    /// a form.
    fn reencoding_for(&self, index: u64, backend: &dyn Backend) -> Reencode {
        use rand::RngExt;
        if self.encodings <= 0.0 || !backend.reads_model_file() {
            return Reencode::No;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ ENCODING_STREAMS);
        rng.set_stream(index);
        if !rng.random_bool(self.encodings.min(1.0)) {
            return Reencode::No;
        }
        Reencode::Drawn(rng.random())
    }
}

/// Which other form a case is also handed over in.
#[derive(Clone, Copy, Debug)]
enum Reencode {
    /// None.
    No,
    /// One of the forms of [`Encoding::OTHERS`] that change the model, picked by this draw
    /// (modulo their number): a form the model holds nothing of (no list, no tensor) is never
    /// picked.
    Drawn(u64),
    /// This one (shrinking an encoding finding).
    Exactly(Encoding),
}

impl Reencode {
    /// The forms to pick from, and the draw that picks.
    fn forms(self) -> (Vec<Encoding>, u64) {
        match self {
            Reencode::No | Reencode::Exactly(Encoding::Onnx) => (Vec::new(), 0),
            Reencode::Drawn(draw) => (Encoding::OTHERS.to_vec(), draw),
            Reencode::Exactly(form) => (vec![form], 0),
        }
    }
}

/// Sets the encodings' generators apart from the cases' (`"encodin"` in ASCII).
const ENCODING_STREAMS: u64 = 0x0065_6e63_6f64_696e;

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
            shard: Shard::ALL,
            cancel: Cancel::new(),
            stored_elements: 1 << 24,
            encodings: DEFAULT_ENCODINGS,
        }
    }
}

/// Where a cause was seen: the operator version and the class of element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// The operator and version.
    pub operator: OpVersion,
    /// `float`, `float8`, `float4`, `int`, `subbyte_int`, `string`, `bool`, `complex`.
    pub dtype_class: &'static str,
}

impl Site {
    /// Where `case` lies.
    pub fn of(case: &FuzzCase) -> Site {
        Site {
            operator: case.operator,
            dtype_class: dtype_class(case.data.data_type()),
        }
    }
}

impl fmt::Display for Site {
    /// `Pad-18 float`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = self.operator;
        write!(
            f,
            "{} {}",
            crate::model::opset::operator_label(op.op.domain(), op.op.op_type(), op.version),
            self.dtype_class
        )
    }
}

/// One root cause, with its smallest case.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The root cause: every drawn case that shows it counts here.
    pub key: CauseKey,
    /// [`Encoding::Onnx`] for a Pad finding; for an encoding finding, the form whose model
    /// shows `key` when the plain form is answered correctly — a protobuf conformance defect
    /// that never gates (docs/semantics.md#encodings).
    pub encoding: Encoding,
    /// For an encoding finding, the model file the backend read (with the inputs it
    /// folds, when it folds them): the reproducer's model.onnx.
    pub encoded_model: Option<Vec<u8>>,
    /// The smallest case found that shows it, on the same or a stronger basis.
    pub case: FuzzCase,
    /// The drawn case it was shrunk from: the first that showed the cause on the strongest
    /// basis any did.
    pub original: FuzzCase,
    /// That case's index: [`generate_case`] with the run's seed draws it again.
    pub case_index: u64,
    /// That case's basis (the shrunk case's is the same or stronger).
    pub drawn_basis: Basis,
    /// What the reference expects of the shrunk case: its outputs, or its refusal.
    pub expected: Result<Vec<Tensor>, String>,
    /// The basis of that expectation.
    pub basis: BasisNote,
    /// The rules the reference refuses the shrunk case by, when it refuses it (the one its
    /// message states first).
    pub rules: Vec<Rule>,
    /// What the subject did, in the runner's words.
    pub message: String,
    /// How many drawn cases showed this cause.
    pub hits: u64,
    /// Those cases by operator version and class of element type.
    pub seen_in: BTreeMap<Site, u64>,
}

impl Finding {
    /// Counts one more drawn case showing this cause.
    fn hit(&mut self, site: Site) {
        self.hits += 1;
        *self.seen_in.entry(site).or_default() += 1;
    }

    /// Whether a drawn case on `basis` would show this cause on a stronger basis.
    fn weaker_than(&self, basis: Basis) -> bool {
        basis < self.drawn_basis
    }

    /// Adds `other`'s counts (the same cause, from another shard or a case on a stronger
    /// basis), keeping the finding whose case shows it on the strongest basis, drawn first:
    /// what an unsharded run keeps.
    fn absorb(&mut self, other: Finding) {
        let (hits, seen_in) = (other.hits, other.seen_in.clone());
        if (other.drawn_basis, other.case_index) < (self.drawn_basis, self.case_index) {
            let (mine, mine_seen) = (self.hits, std::mem::take(&mut self.seen_in));
            *self = Finding {
                hits: mine,
                seen_in: mine_seen,
                ..other
            };
        }
        self.hits += hits;
        for (site, n) in seen_in {
            *self.seen_in.entry(site).or_default() += n;
        }
    }
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    /// The cases drawn (this shard's).
    pub cases: u64,
    /// How long it took.
    pub duration: Duration,
    /// Root causes on a basis the run gates on, in order of cause.
    pub findings: Vec<Finding>,
    /// Root causes on other bases (a project rule, an undefined corner).
    pub not_gating: Vec<Finding>,
    /// Root causes shown only when the model is written in another legal wire form
    /// ([`FuzzOptions::encodings`]): protobuf conformance defects, never gating, counted
    /// apart from the Pad findings whatever their basis.
    pub encodings: Vec<Finding>,
    /// Cases outside the backend's profile, or that the backend reports unsupported.
    pub unsupported: u64,
    /// Cases also handed to the backend in another wire form ([`FuzzOptions::encodings`]; a
    /// form that changes no byte of the model is not handed over).
    pub reencoded: u64,
    /// Distinct disagreements found but not kept: the findings kept had filled
    /// [`FuzzOptions::stored_elements`], so that memory stays bounded however long the run.
    pub dropped: u64,
}

impl FuzzReport {
    /// Cases per second.
    pub fn cases_per_second(&self) -> f64 {
        self.cases as f64 / self.duration.as_secs_f64().max(1e-9)
    }

    /// The shards of one run (same seed, options and backend) as one report: each cause
    /// with the smallest case of the shard that drew it first, counts summed, the slowest
    /// shard's duration.
    pub fn merge(shards: Vec<FuzzReport>, gating: &Gating) -> FuzzReport {
        let mut merged = FuzzReport::default();
        let mut causes: BTreeMap<(Encoding, CauseKey), Finding> = BTreeMap::new();
        for shard in shards {
            merged.cases += shard.cases;
            merged.unsupported += shard.unsupported;
            merged.reencoded += shard.reencoded;
            merged.duration = merged.duration.max(shard.duration);
            for finding in shard
                .findings
                .into_iter()
                .chain(shard.not_gating)
                .chain(shard.encodings)
            {
                match causes.get_mut(&(finding.encoding, finding.key.clone())) {
                    Some(known) => known.absorb(finding),
                    None => {
                        causes.insert((finding.encoding, finding.key.clone()), finding);
                    }
                }
            }
        }
        merged.split(causes.into_values(), gating);
        merged
    }

    /// Files each finding as an encoding finding, or as gating or not: by its basis, or
    /// always when the backend did not survive it (docs/semantics.md#basis).
    fn split(&mut self, findings: impl Iterator<Item = Finding>, gating: &Gating) {
        for finding in findings {
            if finding.encoding != Encoding::Onnx {
                self.encodings.push(finding);
            } else if survival::gates(gating, finding.basis.kind, Survival::of_pattern(&finding.key.pattern)) {
                self.findings.push(finding);
            } else {
                self.not_gating.push(finding);
            }
        }
    }
}

/// Where a run stands, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Cases so far.
    pub cases: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Root causes so far (gating or not).
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
    disagreement: Option<(CauseKey, String)>,
    unsupported: bool,
    /// Whether the subject was also handed the model re-encoded.
    reencoded: bool,
    /// The plain form agreed and the model re-encoded did not: how, and the model file.
    encoded: Option<Encoded>,
}

/// The disagreement of a re-encoded model whose plain form the subject answers correctly.
struct Encoded {
    encoding: Encoding,
    key: CauseKey,
    message: String,
    model: Vec<u8>,
}

impl Evaluation {
    /// The root cause it shows: a Pad cause, or the re-encoded form's.
    fn shows(&self) -> Option<(Encoding, &CauseKey)> {
        match (&self.disagreement, &self.encoded) {
            (Some((key, _)), _) => Some((Encoding::Onnx, key)),
            (None, Some(encoded)) => Some((encoded.encoding, &encoded.key)),
            (None, None) => None,
        }
    }
}

/// Fuzzes `backend` against the reference. `progress` is called now and then.
///
/// ```
/// use pad_conformance::RefBackend;
/// use pad_conformance::testing::{FuzzOptions, fuzz};
///
/// let options = FuzzOptions { seed: 7, cases: Some(300), ..FuzzOptions::default() };
/// let report = fuzz(&RefBackend, &options, &mut |_progress| {})?;
/// assert_eq!(report.cases, 300);
/// assert!(report.findings.is_empty()); // the reference agrees with itself
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    let batch_size = (BATCH_ELEMENTS / max_elements).clamp(threads, BATCH);
    // Model files, one per case for backends that read them: on a memory file system where
    // one has room (a case's largest tensor, complex128, and its folded model, per thread).
    let room = (max_elements as u64).saturating_mul(64).saturating_mul(threads as u64);
    let scratches = (0..threads)
        .map(|_| crate::data::scratch::private_dir("pad-conformance-fuzz-", room))
        .collect::<Result<Vec<_>, _>>()
        .map_err(FuzzError::Scratch)?;
    let start = Instant::now();
    if let Some(time) = options.time {
        options.cancel.cancel_at(start + time);
    }
    let mut report = FuzzReport::default();
    let mut seen: BTreeMap<(Encoding, CauseKey), Finding> = BTreeMap::new();
    let mut dropped: BTreeSet<(Encoding, CauseKey)> = BTreeSet::new();
    let mut stored = 0;
    let mut last_progress = Instant::now();
    let mut indices = options.shard.indices(options.case_limit());
    loop {
        if options.cancel.is_cancelled() {
            break;
        }
        let batch: Vec<u64> = indices.by_ref().take(batch_size).collect();
        if batch.is_empty() {
            break;
        }
        let evaluations = evaluate_all(backend, &batch, &scratches, options);
        for (index, evaluation) in batch.into_iter().zip(evaluations) {
            // Not evaluated, or cut short by the cancellation: not a case of the run.
            let Some(evaluation) = evaluation else { continue };
            let (case, evaluation) = evaluation?;
            report.cases += 1;
            report.unsupported += u64::from(evaluation.unsupported);
            report.reencoded += u64::from(evaluation.reencoded);
            let Some((encoding, key)) = evaluation.shows() else {
                continue;
            };
            let key = (encoding, key.clone());
            match seen.get_mut(&key) {
                Some(finding) if !finding.weaker_than(evaluation.basis.kind) => finding.hit(Site::of(&case)),
                None if stored >= options.stored_elements => {
                    dropped.insert(key);
                }
                // The first case of a cause, or the first on a stronger basis: it is shrunk and
                // reported, the counts so far kept.
                _ => {
                    let scratch = scratches[0].path();
                    let mut finding = shrink::shrink(backend, (index, case), evaluation, &key, scratch, options)?;
                    if let Some(known) = seen.remove(&key) {
                        stored -= elements_of(&known);
                        finding.absorb(known);
                    }
                    stored += elements_of(&finding);
                    seen.insert(key, finding);
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
    report.split(seen.into_values(), &options.check.gating);
    Ok(report)
}

/// Case `index` of the run seeded `seed`: each case draws from a generator of its own, so any
/// case can be drawn again alone and a run split into shards.
pub fn generate_case(seed: u64, index: u64, shape: &Shape) -> FuzzCase {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    generate(&mut rng, shape)
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

/// Draws and evaluates the cases `indices` on `scratches.len()` threads, each with its own
/// scratch directory, each taking the next case left as it finishes one (cases differ in cost
/// a thousandfold: fixed shares would leave a thread idle); results come back in the order of
/// `indices`, `None` for those the cancellation stopped.
fn evaluate_all(
    backend: &dyn Backend,
    indices: &[u64],
    scratches: &[crate::data::scratch::Scratch],
    options: &FuzzOptions,
) -> Vec<Option<Result<(FuzzCase, Evaluation), FuzzError>>> {
    let next = AtomicUsize::new(0);
    let mut results: Vec<_> = indices.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = scratches
            .iter()
            .take(indices.len())
            .map(|scratch| {
                let next = &next;
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let position = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&index) = indices.get(position) else { break };
                        if options.cancel.is_cancelled() {
                            break;
                        }
                        let case = generate_case(options.seed, index, &options.shape);
                        let reencode = options.reencoding_for(index, backend);
                        let evaluation = evaluate(backend, &case, scratch.path(), &options.check, reencode);
                        if options.cancel.is_cancelled() {
                            break;
                        }
                        done.push((position, evaluation.map(|e| (case, e))));
                    }
                    done
                })
            })
            .collect();
        for handle in handles {
            for (position, result) in handle.join().expect("evaluation catches the backend's panics") {
                results[position] = Some(result);
            }
        }
    });
    results
}

/// Runs the reference and the subject on `case` and says how they disagree.
fn evaluate(
    backend: &dyn Backend,
    case: &FuzzCase,
    scratch: &Path,
    check: &CheckOptions,
    reencode: Reencode,
) -> Result<Evaluation, FuzzError> {
    let folding = check.inputs_as_constants || check.profile.folds_inputs();
    let write = backend.reads_model_file() || folding;
    if !write {
        return evaluate_in(backend, case, &scratch.join("model.onnx"), false, check, reencode);
    }
    // Every case gets a model file of its own (workers may cache a model by its path), and a
    // directory of its own only when the folded model needs one: a file costs less.
    let number = CASE_NUMBER.fetch_add(1, Ordering::Relaxed);
    if folding {
        let dir = scratch.join(number.to_string());
        std::fs::create_dir(&dir).map_err(FuzzError::Scratch)?;
        let result = evaluate_in(backend, case, &dir.join("model.onnx"), true, check, reencode);
        let _ = std::fs::remove_dir_all(&dir);
        result
    } else {
        let path = scratch.join(format!("{number}.onnx"));
        let result = evaluate_in(backend, case, &path, true, check, reencode);
        let _ = std::fs::remove_file(&path);
        result
    }
}

/// Numbers the cases' model files.
static CASE_NUMBER: AtomicU64 = AtomicU64::new(0);

/// [`evaluate`], the model at `path` (written there when `write`). When the subject answers
/// the plain form correctly, it is handed the model it read once more, in a form of
/// `reencode` that changes it.
fn evaluate_in(
    backend: &dyn Backend,
    case: &FuzzCase,
    path: &Path,
    write: bool,
    check: &CheckOptions,
    reencode: Reencode,
) -> Result<Evaluation, FuzzError> {
    let (proto, inputs) = case.build("test_fuzz");
    let model = load(proto, path, write).map_err(|source| FuzzError::Generator {
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
        reencoded: false,
        encoded: None,
    };
    if Subject::of(&model, &inputs).is_some_and(|s| check.profile.excludes(&s).is_some()) {
        evaluation.unsupported = true;
        return Ok(evaluation);
    }
    let constants = check.constant_inputs(&model);
    let generator = |source| FuzzError::Generator {
        case: case.to_string(),
        source: Box::new(source),
    };
    let folded = if !constants.is_empty() {
        let folded_dir = path.with_file_name("constants");
        std::fs::create_dir_all(&folded_dir).map_err(FuzzError::Scratch)?;
        let folded = named_inputs_as_constants(&model, &inputs, &constants, &folded_dir, &DecodeOptions::default());
        Some(folded.map_err(generator)?)
    } else {
        None
    };
    let (subject, fed) = folded
        .as_ref()
        .map_or((&model, &inputs[..]), |(m, data)| (m, &data[..]));
    let answer = run(backend, subject, fed);
    // A case the backend itself reports unsupported counts as one outside its profile.
    if matches!(&answer, Answer::Refused(e) if error_kind(e) == ErrorKind::Unsupported) {
        evaluation.unsupported = true;
        return Ok(evaluation);
    }
    let expected = (&evaluation.expected, &evaluation.rules[..]);
    evaluation.disagreement = disagreement(backend.name(), &model, &inputs, expected, answer, check);
    let (forms, draw) = reencode.forms();
    if !forms.is_empty() && write && evaluation.disagreement.is_none() {
        let Some((encoding, encoded, bytes)) = reencoded(&subject.path, &forms, draw).map_err(generator)? else {
            return Ok(evaluation);
        };
        evaluation.reencoded = true;
        let answer = run(backend, &encoded, fed);
        let _ = std::fs::remove_file(&encoded.path);
        let expected = (&evaluation.expected, &evaluation.rules[..]);
        evaluation.encoded =
            disagreement(backend.name(), &model, &inputs, expected, answer, check).map(|(key, message)| Encoded {
                encoding,
                key,
                message,
                model: bytes,
            });
    }
    Ok(evaluation)
}

/// Writes the model file at `path` in one of `forms` that change its bytes, picked by
/// `draw`, to a file of its own beside it (a worker may cache a model by its path), and loads
/// it back as the runner would; `None` when no form changes it (a model holding no list or
/// tensor those forms write otherwise).
fn reencoded(
    path: &Path,
    forms: &[Encoding],
    draw: u64,
) -> Result<Option<(Encoding, Model, Vec<u8>)>, crate::model::constant_inputs::RewriteError> {
    use crate::tensor::FileProblem;
    let plain = std::fs::read(path).map_err(|e| FileProblem::Io(e).at(path))?;
    let proto = ModelProto::decode(&plain[..]).map_err(|e| FileProblem::from(e).at(path))?;
    let mut changed: Vec<(Encoding, Vec<u8>)> = forms
        .iter()
        .map(|&form| (form, form.encode_model(&proto)))
        .filter(|(_, bytes)| *bytes != plain)
        .collect();
    if changed.is_empty() {
        return Ok(None);
    }
    let (form, bytes) = changed.swap_remove((draw % changed.len() as u64) as usize);
    let path = &path.with_extension(format!("{form}.onnx"));
    std::fs::write(path, &bytes).map_err(|e| FileProblem::Io(e).writing(path))?;
    let decoded = ModelProto::decode(&bytes[..]).map_err(|e| FileProblem::from(e).at(path))?;
    let model = Model::from_proto(path, decoded, &DecodeOptions::default())?;
    Ok(Some((form, model, bytes)))
}

/// Loads the model as the runner would, writing it where file-reading backends find it
/// (only for those: a file per case is most of the cost of an in-process run).
fn load(proto: ModelProto, path: &Path, write: bool) -> Result<Model, crate::model::constant_inputs::RewriteError> {
    if write {
        std::fs::write(path, proto.encode_to_vec()).map_err(|e| crate::tensor::FileProblem::Io(e).writing(path))?;
    }
    Ok(Model::from_proto(path, proto, &DecodeOptions::default())?)
}

/// How `answer` disagrees with the reference's `expected`: the runner's own judge
/// ([`judge_answer`]), its verdict's root cause, its message as the runner words it.
fn disagreement(
    backend: &str,
    model: &Model,
    inputs: &[Tensor],
    (expected, rules): (&Result<Vec<Tensor>, String>, &[Rule]),
    answer: Answer,
    check: &CheckOptions,
) -> Option<(CauseKey, String)> {
    let values = match (expected, &answer) {
        (Ok(expected), Answer::Outputs(actual)) => {
            let pattern = values_pattern(model, inputs, expected, actual, &check.tolerance);
            // Outputs of the expected number, types and shapes with no element failing the
            // comparison are what the judge passes: most cases, judged without copying them.
            pattern.as_ref()?;
            pattern
        }
        _ => None,
    };
    let data = LoadedDataSet {
        inputs: inputs.to_vec(),
        expected: match expected {
            Ok(outputs) => Expected::Outputs(outputs.clone()),
            Err(reason) => Expected::Error(reason.clone()),
        },
    };
    let verdict = judge_answer(model, data, rules, answer, check);
    CauseKey::of(&verdict, values).map(|key| (key, verdict.message(backend)))
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
