//! One case: the reference's verdict, the subject's answer, and how they disagree (in the
//! plain form and, when asked, a re-encoded one).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use prost::Message;

use crate::backend::{Driven, ErrorKind, RefBackend};
use crate::case::{Expected, LoadedDataSet};
use crate::data::basis::BasisNote;
use crate::judge::cause_key::{CauseKey, values_pattern};
use crate::judge::check::{Answer, CheckOptions, judge_answer, run};
use crate::model::Model;
use crate::model::constant_inputs::named_inputs_as_constants;
use crate::operators::Rule;
use crate::proto::ModelProto;
use crate::tensor::{DecodeOptions, Tensor};

use super::case::FuzzCase;
use super::encoding::Encoding;
use super::error::FuzzError;
use super::options::Reencode;

/// The reference's verdict and the subject's disagreement on one case, if any.
pub(super) struct Evaluation {
    pub(super) expected: Result<Vec<Tensor>, String>,
    pub(super) basis: BasisNote,
    pub(super) rules: Vec<Rule>,
    /// `None`: the subject agrees (or the case is outside its profile, or it reports the case
    /// unsupported).
    pub(super) disagreement: Option<(CauseKey, String)>,
    pub(super) unsupported: bool,
    /// Whether the subject was also handed the model re-encoded.
    pub(super) reencoded: bool,
    /// The plain form agreed and the model re-encoded did not: how, and the model file.
    pub(super) encoded: Option<Encoded>,
}

/// The disagreement of a re-encoded model whose plain form the subject answers correctly.
pub(super) struct Encoded {
    pub(super) encoding: Encoding,
    pub(super) key: CauseKey,
    pub(super) message: String,
    pub(super) model: Vec<u8>,
}

impl Evaluation {
    /// The root cause it shows: a Pad cause, or the re-encoded form's.
    pub(super) fn shows(&self) -> Option<(Encoding, &CauseKey)> {
        match (&self.disagreement, &self.encoded) {
            (Some((key, _)), _) => Some((Encoding::Onnx, key)),
            (None, Some(encoded)) => Some((encoded.encoding, &encoded.key)),
            (None, None) => None,
        }
    }
}

/// Runs the reference and the subject on `case` and says how they disagree.
pub(super) fn evaluate(
    backend: &dyn Driven,
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
pub(super) static CASE_NUMBER: AtomicU64 = AtomicU64::new(0);

/// [`evaluate`], the model at `path` (written there when `write`). When the subject answers
/// the plain form correctly, it is handed the model it read once more, in a form of
/// `reencode` that changes it.
pub(super) fn evaluate_in(
    backend: &dyn Driven,
    case: &FuzzCase,
    path: &Path,
    write: bool,
    check: &CheckOptions,
    reencode: Reencode,
) -> Result<Evaluation, FuzzError> {
    let generator = |source| FuzzError::Generator {
        case: case.to_string(),
        source: Box::new(source),
    };
    // The reference answers first, from the model in memory, so that the model the backend
    // reads declares the output shape it computed (a symbolic one where it refuses).
    let (proto, inputs) = case.build("test_fuzz");
    let unwritten =
        Model::from_proto(path, proto.clone(), &DecodeOptions::default()).map_err(|e| generator(e.into()))?;
    let mut rules = Vec::new();
    let expected = match run(&RefBackend, &unwritten, &inputs) {
        Answer::Outputs(outputs) => Ok(outputs),
        Answer::Refused(refusal) => {
            rules = refusal.rules().to_vec();
            Err(refusal.to_string())
        }
        Answer::Panicked(message) => {
            return Err(FuzzError::ReferencePanicked {
                case: case.to_string(),
                message,
            });
        }
    };
    let model = match &expected {
        Ok(outputs) => {
            let (declared, _) = case.build_declaring("test_fuzz", outputs.first().map(Tensor::shape));
            load(declared, path, write)
        }
        Err(_) => load(proto, path, write),
    }
    .map_err(generator)?;
    // A refusal rests on the strongest of the rules the reference refuses by (one spec rule
    // broken is enough for the spec to require it); one that names none (a graph the
    // reference cannot evaluate) is a project rule.
    let strongest = rules.iter().min_by_key(|r| r.basis().0);
    let basis = match (&expected, strongest) {
        (Ok(_), _) => super::basis::of_output(case),
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
    let outputs = evaluation.expected.as_deref().unwrap_or_default();
    if check.profile.excludes_data_set(&model, &inputs, outputs).is_some() {
        evaluation.unsupported = true;
        return Ok(evaluation);
    }
    let constants = check.constant_inputs(&model);
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
    if matches!(&answer, Answer::Refused(e) if e.kind() == ErrorKind::Unsupported) {
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
pub(super) fn reencoded(
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
pub(super) fn load(
    proto: ModelProto,
    path: &Path,
    write: bool,
) -> Result<Model, crate::model::constant_inputs::RewriteError> {
    if write {
        std::fs::write(path, proto.encode_to_vec()).map_err(|e| crate::tensor::FileProblem::Io(e).writing(path))?;
    }
    Ok(Model::from_proto(path, proto, &DecodeOptions::default())?)
}

/// How `answer` disagrees with the reference's `expected`: the runner's own judge
/// ([`judge_answer`]), its verdict's root cause, its message as the runner words it.
pub(super) fn disagreement(
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
