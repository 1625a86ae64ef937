//! Findings as node-test cases: `test_fuzz_<cause>_pad/` with model.onnx,
//! test_data_set_0/input_K.pb and output_0.pb (or expected_error.txt), case.json with the
//! basis, and description.txt — a case `pad-conformance` discovers and runs as it stands.
//! An encoding finding is written in the form that showed it: its model.onnx the file the
//! backend read, its tensors in that form, and `test_fuzz_<form>_<cause>_pad` its name.

use std::path::{Path, PathBuf};

use prost::Message;

use super::Finding;
use super::encoding::Encoding;
use crate::case::EXPECTED_ERROR_FILE;
use crate::case::info::{CASE_INFO_FILE, CaseInfo};
use crate::operators::PadOp;
use crate::proto::ModelProto;
use crate::tensor::{FileError, FileProblem};

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
    let data_dir = case_dir.join("test_data_set_0");
    let write = |path: PathBuf, bytes: &[u8]| -> Result<(), FileError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| FileProblem::Io(e).writing(parent))?;
        }
        std::fs::write(&path, bytes).map_err(|e| FileProblem::Io(e).writing(&path))
    };
    let encoding = finding.encoding;
    // The model declares the output the reference computed, as the backend read it.
    let output = finding
        .expected
        .as_ref()
        .ok()
        .and_then(|o| o.first())
        .map(|t| t.shape());
    let (model, inputs) = finding.case.build_declaring(&name, output);
    let names: Vec<String> = model
        .graph
        .iter()
        .flat_map(|g| &g.input)
        .map(|v| v.name.clone())
        .collect();
    let model_bytes = match &finding.encoded_model {
        Some(bytes) => bytes.clone(),
        None => encoding.encode_model(&model),
    };
    // The model the backend read may hold some inputs as initializers: the others are fed.
    let fed: Vec<String> = match &finding.encoded_model {
        Some(bytes) => ModelProto::decode(&bytes[..])
            .ok()
            .and_then(|m| m.graph)
            .map(|g| g.input.into_iter().map(|v| v.name).collect())
            .unwrap_or_default(),
        None => names.clone(),
    };
    write(case_dir.join("model.onnx"), &model_bytes)?;
    let fed_inputs = names.iter().zip(&inputs).filter(|(n, _)| fed.contains(n));
    for (k, (name, tensor)) in fed_inputs.enumerate() {
        write(
            data_dir.join(format!("input_{k}.pb")),
            &encoding.encode_tensor(tensor, name),
        )?;
    }
    match &finding.expected {
        Ok(outputs) => {
            for (k, output) in outputs.iter().enumerate() {
                write(
                    data_dir.join(format!("output_{k}.pb")),
                    &encoding.encode_tensor(output, "y"),
                )?;
            }
        }
        Err(reason) => write(data_dir.join(EXPECTED_ERROR_FILE), format!("{reason}\n").as_bytes())?,
    }
    let operator = finding.case.operator;
    let info = CaseInfo {
        op: operator.op.op_type().into(),
        domain: operator.op.domain().into(),
        version: operator.version,
        mode: match operator.op {
            PadOp::CenterCropPad => None,
            _ => Some(finding.case.mode.clone().unwrap_or_else(|| "constant".into())),
        },
        dtype: finding.case.data.data_type().name().into(),
        expect: if finding.expected.is_ok() { "output" } else { "error" }.into(),
        basis: finding.basis.clone(),
        rules: finding.rules.clone(),
        narrowing: None,
        twin: None,
    };
    let json = serde_json::to_string_pretty(&info).expect("case.json serializes");
    write(case_dir.join(CASE_INFO_FILE), format!("{json}\n").as_bytes())?;
    let description = match encoding {
        Encoding::Onnx => format!("{}: {}\n", finding.key, finding.case),
        _ => format!(
            "encoding {encoding} ({}): {}: {}\nThe same case written as onnx's writer writes it is answered correctly.\n",
            encoding.describe(),
            finding.key,
            finding.case
        ),
    };
    write(case_dir.join("description.txt"), description.as_bytes())?;
    Ok(case_dir)
}
