//! A generated Pad case written as a node-test case, its expected output the reference's:
//! what the end-to-end and scaling benchmarks run.

use std::path::Path;

use prost::Message;

use super::measure::BenchError;
use crate::backend::{Backend, RefBackend};
use crate::fuzz::{FuzzCase, encoded_inputs};
use crate::model::Model;
use crate::tensor::{DecodeOptions, encode_tensor};

/// A case's files, encoded once and written as often as wanted.
pub(super) struct CaseFiles {
    /// model.onnx.
    pub(super) model: Vec<u8>,
    /// Each data-set file's name and bytes.
    data: Vec<(String, Vec<u8>)>,
    /// The bytes of the output a run produces, which moves through memory too.
    pub(super) output_bytes: usize,
}

impl CaseFiles {
    /// Encodes `case` as the case `name`, with the output the reference computes.
    pub(super) fn new(case: &FuzzCase, name: &str) -> Result<CaseFiles, BenchError> {
        let (model, inputs) = case.build(name);
        let loaded = Model::from_proto(Path::new("model.onnx"), model.clone(), &DecodeOptions::default())
            .map_err(|e| BenchError::Scratch(e.to_string()))?;
        let expected = RefBackend
            .run(&loaded, &inputs)
            .map_err(|e| BenchError::NotPassed(format!("the reference refused the generated case: {e}")))?;
        let output = &expected[0];
        let mut data: Vec<(String, Vec<u8>)> = encoded_inputs(&model, &inputs)
            .iter()
            .enumerate()
            .map(|(k, tensor)| (format!("input_{k}.pb"), tensor.encode_to_vec()))
            .collect();
        data.push(("output_0.pb".to_owned(), encode_tensor(output, "y").encode_to_vec()));
        Ok(CaseFiles {
            model: model.encode_to_vec(),
            data,
            output_bytes: output.len() * output.max_element_bytes(),
        })
    }

    /// Writes the case into `dir` (model.onnx and test_data_set_0/).
    pub(super) fn write(&self, dir: &Path) -> Result<(), BenchError> {
        let data_dir = dir.join("test_data_set_0");
        let scratch = |e: std::io::Error| BenchError::Scratch(format!("{}: {e}", dir.display()));
        std::fs::create_dir_all(&data_dir).map_err(scratch)?;
        std::fs::write(dir.join("model.onnx"), &self.model).map_err(scratch)?;
        for (name, bytes) in &self.data {
            std::fs::write(data_dir.join(name), bytes).map_err(scratch)?;
        }
        Ok(())
    }

    /// The bytes of its files.
    pub(super) fn file_bytes(&self) -> usize {
        self.model.len() + self.data.iter().map(|(_, bytes)| bytes.len()).sum::<usize>()
    }
}
