//! Findings as node-test cases: `test_fuzz_<cause>_pad/` with model.onnx,
//! test_data_set_0/input_K.pb and output_0.pb (or expected_error.txt), case.json with the
//! basis, and description.txt — a case `pad-conformance` discovers and runs as it stands.

use std::path::{Path, PathBuf};

use prost::Message;

use super::Finding;
use super::case::encoded_inputs;
use crate::case::EXPECTED_ERROR_FILE;
use crate::case::info::{CASE_INFO_FILE, CaseInfo};
use crate::operators::PadOp;
use crate::tensor::{FileError, FileProblem, encode_tensor};

/// Writes `finding` under `dir` and returns the case directory.
pub fn write_reproducer(finding: &Finding, dir: &Path) -> Result<PathBuf, FileError> {
    let name = format!("test_fuzz_{}_pad", finding.key.slug());
    let case_dir = dir.join(&name);
    let data_dir = case_dir.join("test_data_set_0");
    let write = |path: PathBuf, bytes: &[u8]| -> Result<(), FileError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| FileProblem::Io(e).at(parent))?;
        }
        std::fs::write(&path, bytes).map_err(|e| FileProblem::Io(e).at(&path))
    };
    let (model, inputs) = finding.case.build(&name);
    write(case_dir.join("model.onnx"), &model.encode_to_vec())?;
    for (k, tensor) in encoded_inputs(&model, &inputs).iter().enumerate() {
        write(data_dir.join(format!("input_{k}.pb")), &tensor.encode_to_vec())?;
    }
    match &finding.expected {
        Ok(outputs) => {
            for (k, output) in outputs.iter().enumerate() {
                write(
                    data_dir.join(format!("output_{k}.pb")),
                    &encode_tensor(output, "y").encode_to_vec(),
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
    };
    let json = serde_json::to_string_pretty(&info).expect("case.json serializes");
    write(case_dir.join(CASE_INFO_FILE), format!("{json}\n").as_bytes())?;
    let description = format!("{}: {}\n", finding.key, finding.case);
    write(case_dir.join("description.txt"), description.as_bytes())?;
    Ok(case_dir)
}
