//! TensorProto decoding: any bytes, every dtype, raw and typed fields, and external data
//! resolved against a directory holding one small file (and nothing the fuzzer may escape to).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pad_conformance::testing::{DecodeOptions, TensorProto, decode_tensor};
use prost::Message;

fn base_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("pad-conformance-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("data.bin"), (0..=255u8).cycle().take(4096).collect::<Vec<_>>()).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(proto) = TensorProto::decode(data) else { return };
    let options = DecodeOptions {
        base_dir: Some(base_dir().clone()),
        max_bytes: 1 << 20,
    };
    if let Ok(tensor) = decode_tensor(&proto, &options) {
        // What decoded must describe itself and re-encode without panicking.
        let _ = tensor.describe();
        let _ = pad_conformance::testing::encode_tensor(&tensor, "t");
    }
});
