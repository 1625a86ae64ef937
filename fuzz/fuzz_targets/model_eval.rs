//! Evaluation of a loaded model by the ref backend, on decoded inputs, within a 64 MiB run
//! budget. The input is a sequence of length-prefixed messages: a ModelProto, then one
//! TensorProto per graph input (missing ones are scalar int64 zeros).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pad_conformance::Tensor;
use pad_conformance::testing::{Budget, DecodeOptions, ModelProto, TensorProto, decode_tensor, run_model_within};
use prost::Message;

/// Splits `data` into messages, each after a 2-byte little-endian length.
fn messages(mut data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while data.len() >= 2 {
        let len = u16::from_le_bytes([data[0], data[1]]) as usize;
        let end = (2 + len).min(data.len());
        out.push(&data[2..end]);
        data = &data[end..];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let parts = messages(data);
    let Some(first) = parts.first() else { return };
    let Ok(proto) = ModelProto::decode(*first) else { return };
    let options = DecodeOptions {
        base_dir: None,
        max_bytes: 1 << 20,
    };
    let Ok(model) = pad_conformance::testing::model_from_proto(Path::new("fuzz/model.onnx"), proto, &options) else {
        return;
    };
    let mut inputs = Vec::new();
    for i in 0..model.graph.inputs.len() {
        let decoded = parts
            .get(i + 1)
            .and_then(|bytes| TensorProto::decode(*bytes).ok())
            .and_then(|proto| decode_tensor(&proto, &options).ok());
        inputs.push(decoded.unwrap_or_else(|| Tensor::from_vec(&[], vec![0i64]).unwrap()));
    }
    let _ = run_model_within(&model, &inputs, Budget::new(64 << 20));
});
