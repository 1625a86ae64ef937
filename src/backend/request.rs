//! A `run` request to a worker (docs/backend-protocol.md#run): the model, the input files and
//! the output directory, and what the worker's hello accepted on top — the node description,
//! the raw files' element types and shapes. A worker that accepted nothing gets the request of
//! the protocol's first version, byte for byte.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::accepts::{Accepts, TensorFormat};
use super::node_description::describe;
use crate::model::Model;
use crate::tensor::{Tensor, dtype_name};

/// The request `id` for `model` run on `inputs`, written to `input_paths`, its outputs to `dir`.
pub(super) fn run_request(
    id: u64,
    model_path: &Path,
    model: &Model,
    inputs: &[Tensor],
    input_paths: &[PathBuf],
    dir: &Path,
    accepts: Accepts,
) -> Value {
    let mut request = json!({
        "type": "run", "id": id, "model": model_path, "inputs": input_paths, "output_dir": dir,
    });
    let fields = request.as_object_mut().expect("a JSON object");
    if accepts.node {
        fields.insert("node".into(), describe(model, inputs));
    }
    if accepts.tensors == TensorFormat::Raw {
        let descriptors = input_paths
            .iter()
            .zip(inputs)
            .map(|(path, tensor)| json!({"path": path, "dtype": dtype_name(tensor.data_type()), "shape": tensor.shape()}))
            .collect();
        fields.insert("input_tensors".into(), Value::Array(descriptors));
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DecodeOptions;

    fn wrap_pad() -> (Model, Vec<Tensor>) {
        let dir = crate::data::data_dir().join("onnx-1.22.0/node/test_wrap_pad");
        let options = DecodeOptions {
            base_dir: Some(dir.clone()),
            ..DecodeOptions::default()
        };
        let model = Model::read(&dir.join("model.onnx"), &options).unwrap();
        let inputs = vec![
            Tensor::from_vec(&[2, 3], vec![1.0f32; 6]).unwrap(),
            Tensor::from_vec(&[4], vec![0i64, 1, 0, 1]).unwrap(),
        ];
        (model, inputs)
    }

    /// Request 7 of model /m.onnx, its outputs to /s/1.
    fn request_of(model: &Model, inputs: &[Tensor], paths: &[PathBuf], accepts: Accepts) -> Value {
        run_request(
            7,
            Path::new("/m.onnx"),
            model,
            inputs,
            paths,
            Path::new("/s/1"),
            accepts,
        )
    }

    #[test]
    fn a_worker_that_accepted_nothing_gets_the_first_versions_request_byte_for_byte() {
        let (model, inputs) = wrap_pad();
        let paths = [PathBuf::from("/s/1-input_0.pb"), PathBuf::from("/s/1-input_1.pb")];
        let request = request_of(&model, &inputs, &paths, Accepts::default());
        assert_eq!(
            request.to_string(),
            json!({"type": "run", "id": 7, "model": "/m.onnx", "inputs": ["/s/1-input_0.pb", "/s/1-input_1.pb"], "output_dir": "/s/1"})
                .to_string()
        );
        assert!(request.get("node").is_none() && request.get("input_tensors").is_none());
    }

    #[test]
    fn a_worker_gets_the_node_and_the_raw_descriptors_it_accepted() {
        let (model, inputs) = wrap_pad();
        let paths = [PathBuf::from("/s/1-input_0.bin"), PathBuf::from("/s/1-input_1.bin")];
        let both = Accepts {
            node: true,
            tensors: TensorFormat::Raw,
            model: false,
        };
        let request = request_of(&model, &inputs, &paths, both);
        assert_eq!(request["node"]["mode"], json!("wrap"));
        assert_eq!(request["node"]["pads"], json!({"from": "input", "value": [0, 1, 0, 1]}));
        assert_eq!(
            request["input_tensors"],
            json!([
                {"path": "/s/1-input_0.bin", "dtype": "float32", "shape": [2, 3]},
                {"path": "/s/1-input_1.bin", "dtype": "int64", "shape": [4]},
            ])
        );
        assert_eq!(request["inputs"], json!(["/s/1-input_0.bin", "/s/1-input_1.bin"]));
        let node_only = Accepts {
            node: true,
            tensors: TensorFormat::TensorProto,
            model: false,
        };
        let request = request_of(&model, &inputs, &paths, node_only);
        assert!(request.get("node").is_some() && request.get("input_tensors").is_none());
    }
}
