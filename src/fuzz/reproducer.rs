//! Findings as node-test cases: `test_fuzz_<cause>_pad/` with model.onnx,
//! test_data_set_0/input_K.pb and output_0.pb (or expected_error.txt), case.json with the
//! basis, and description.txt — a case `pad-conformance` discovers and runs as it stands.
//! An encoding finding is written in the form that showed it: its model.onnx the file the
//! backend read, its tensors in that form, and `test_fuzz_<form>_<cause>_pad` its name.

use std::path::{Path, PathBuf};

use prost::Message;

use super::Finding;
use super::case::FuzzCase;
use super::encoding::Encoding;
use super::twin::{Twin, repair_list};
use crate::case::EXPECTED_ERROR_FILE;
use crate::case::info::{CASE_INFO_FILE, CaseInfo};
use crate::data::basis::BasisNote;
use crate::operators::{PadOp, Rule};
use crate::proto::ModelProto;
use crate::tensor::{FileError, FileProblem, Tensor};

/// The data set a reproducer holds.
const DATA_SET: &str = "test_data_set_0";
/// The one-line description beside the case.
pub(crate) const DESCRIPTION_FILE: &str = "description.txt";

/// Whether `name` is a file a reproducer's data set may hold: `input_K.pb` or `output_K.pb`
/// (K of at most four digits: a reproducer has a handful of inputs) or expected_error.txt.
/// The binary reads reproducer directories as hostile input (`fuzz --out`, `promote`) and
/// takes nothing else.
pub(crate) fn is_data_set_file(name: &str) -> bool {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(".pb"))
            .is_some_and(|k| !k.is_empty() && k.len() <= 4 && k.bytes().all(|b| b.is_ascii_digit()))
    };
    name == EXPECTED_ERROR_FILE || numbered("input_") || numbered("output_")
}

/// Writes `finding` under `dir` and returns the case directory: `test_fuzz_<cause>_pad`, or
/// `test_fuzz_<cause>_2_pad` (and on) when another finding of `dir` already took that name
/// (a gating and a non-gating cause, say, whose keys read alike): two findings never share
/// one directory.
pub fn write_reproducer(finding: &Finding, dir: &Path) -> Result<PathBuf, FileError> {
    let stem = match finding.encoding {
        Encoding::Onnx => format!("test_fuzz_{}", finding.key.slug()),
        encoding => format!("test_fuzz_{encoding}_{}", finding.key.slug()),
    };
    let name = (1u64..)
        .map(|n| match n {
            1 => format!("{stem}_pad"),
            n => format!("{stem}_{n}_pad"),
        })
        .find(|name| std::fs::symlink_metadata(dir.join(name)).is_err())
        .expect("some suffix is free");
    let case_dir = dir.join(&name);
    for (file, bytes) in reproducer_files(finding, &name) {
        let path = case_dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| FileProblem::Io(e).writing(parent))?;
        }
        std::fs::write(&path, bytes).map_err(|e| FileProblem::Io(e).writing(&path))?;
    }
    Ok(case_dir)
}

/// The files of `finding`'s reproducer named `name`, by path relative to its directory.
fn reproducer_files(finding: &Finding, name: &str) -> Vec<(String, Vec<u8>)> {
    let encoding = finding.encoding;
    // The model declares the output the reference computed, as the backend read it.
    let output = finding
        .expected
        .as_ref()
        .ok()
        .and_then(|o| o.first())
        .map(|t| t.shape());
    let (model, inputs) = finding.case.build_declaring(name, output);
    let model_bytes = match &finding.encoded_model {
        Some(bytes) => bytes.clone(),
        None => encoding.encode_model(&model),
    };
    // The model the backend read may hold some inputs as initializers: the others are fed.
    let fed: Option<Vec<String>> = finding.encoded_model.as_ref().map(|bytes| {
        ModelProto::decode(&bytes[..])
            .ok()
            .and_then(|m| m.graph)
            .map(|g| g.input.into_iter().map(|v| v.name).collect())
            .unwrap_or_default()
    });
    let mut files = test_files(
        &model,
        model_bytes,
        &inputs,
        fed.as_deref(),
        &finding.expected,
        encoding,
    );
    let info = case_info(&finding.case, finding.expected.is_ok(), &finding.basis, &finding.rules);
    let json = serde_json::to_string_pretty(&info).expect("case.json serializes");
    files.push((CASE_INFO_FILE.to_owned(), format!("{json}\n").into_bytes()));
    let description = match encoding {
        Encoding::Onnx => format!("{}: {}\n", finding.key, finding.case),
        _ => format!(
            "encoding {encoding} ({}): {}: {}\nThe same case written as onnx's writer writes it is answered correctly.\n",
            encoding.describe(),
            finding.key,
            finding.case
        ),
    };
    files.push((DESCRIPTION_FILE.to_owned(), description.into_bytes()));
    files
}

/// The files of the test itself: model.onnx (`model_bytes`, serializing `model`) and
/// test_data_set_0/ with the inputs the model does not hold (`fed` names them; `None`: all),
/// and the expected outputs or refusal, each tensor in `encoding`.
fn test_files(
    model: &ModelProto,
    model_bytes: Vec<u8>,
    inputs: &[Tensor],
    fed: Option<&[String]>,
    expected: &Result<Vec<Tensor>, String>,
    encoding: Encoding,
) -> Vec<(String, Vec<u8>)> {
    let names: Vec<&str> = model
        .graph
        .iter()
        .flat_map(|g| &g.input)
        .map(|v| v.name.as_str())
        .collect();
    let mut files = vec![("model.onnx".to_owned(), model_bytes)];
    let fed_inputs = names
        .iter()
        .zip(inputs)
        .filter(|(n, _)| fed.is_none_or(|fed| fed.iter().any(|f| f == *n)));
    for (k, (name, tensor)) in fed_inputs.enumerate() {
        files.push((format!("{DATA_SET}/input_{k}.pb"), encoding.encode_tensor(tensor, name)));
    }
    match expected {
        Ok(outputs) => {
            for (k, output) in outputs.iter().enumerate() {
                files.push((format!("{DATA_SET}/output_{k}.pb"), encoding.encode_tensor(output, "y")));
            }
        }
        Err(reason) => files.push((
            format!("{DATA_SET}/{EXPECTED_ERROR_FILE}"),
            format!("{reason}\n").into_bytes(),
        )),
    }
    files
}

/// The case.json of `case`: what it tests, whether the reference answers it (`output`), the
/// basis of that, and the rules it breaks.
fn case_info(case: &FuzzCase, output: bool, basis: &BasisNote, rules: &[Rule]) -> CaseInfo {
    let operator = case.operator;
    CaseInfo {
        op: operator.op.op_type().into(),
        domain: operator.op.domain().into(),
        version: operator.version,
        mode: match operator.op {
            PadOp::CenterCropPad => None,
            _ => Some(case.mode.clone().unwrap_or_else(|| "constant".into())),
        },
        dtype: case.data.data_type().name().into(),
        expect: if output { "output" } else { "error" }.into(),
        basis: basis.clone(),
        rules: rules.to_vec(),
        narrowing: None,
        twin: None,
    }
}

/// The files of the valid twin `twin`, named `name`, of the must-refuse case `refused` (its
/// directory's name), by path relative to its directory — the test and description.txt — and
/// its case.json's content, which the caller writes with what it records beside it.
pub(crate) fn twin_files(twin: &Twin, name: &str, refused: &str) -> (Vec<(String, Vec<u8>)>, CaseInfo) {
    let (model, inputs) = twin.case.build_declaring(name, twin.outputs.first().map(Tensor::shape));
    let model_bytes = Encoding::Onnx.encode_model(&model);
    let expected = Ok(twin.outputs.clone());
    let mut files = test_files(&model, model_bytes, &inputs, None, &expected, Encoding::Onnx);
    let description = format!(
        "the valid twin of {refused}: the same node with {}: {}\n",
        repair_list(&twin.repairs),
        twin.case
    );
    files.push((DESCRIPTION_FILE.to_owned(), description.into_bytes()));
    (files, case_info(&twin.case, true, &twin.basis, &[]))
}
