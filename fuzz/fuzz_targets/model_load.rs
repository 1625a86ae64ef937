//! ModelProto loading: any bytes through prost, then the conversion to a Model with its
//! limits (graph size, attributes, initializers).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pad_conformance::testing::{DecodeOptions, ModelProto};
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let Ok(proto) = ModelProto::decode(data) else { return };
    let options = DecodeOptions {
        base_dir: None,
        max_bytes: 1 << 20,
    };
    if let Ok(model) = pad_conformance::testing::model_from_proto(Path::new("fuzz/model.onnx"), proto, &options) {
        let _ = model.op_types();
        let _ = pad_conformance::testing::applicability(&model);
    }
});
