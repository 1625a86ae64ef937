//! Tensor files as a run reads them: a file over 64 KiB has its raw_data read straight into
//! the tensor's buffer after only the fields around it are decoded. Whatever surrounds a large
//! raw_data field, the file must read as the same bytes decoded in memory: the same tensor,
//! bit for bit, or an error both ways.
//!
//! Input: two bytes placing the raw_data field in the message, one byte sizing its payload
//! (64 KiB to about 320 KiB), then the message's other bytes.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pad_conformance::testing::{DecodeOptions, TensorProto, decode_tensor, read_tensor_file};
use prost::Message;

fn scratch_file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("pad-conformance-fuzz-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("input_0.pb")
    })
}

fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fuzz_target!(|data: &[u8]| {
    let [a, b, size, rest @ ..] = data else { return };
    let at = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
    let payload = (64 << 10) + usize::from(*size) * 1024 + usize::from(*a % 16);
    let mut file = rest[..at].to_vec();
    file.push(9 << 3 | 2);
    varint(payload as u64, &mut file);
    file.extend((0..payload).map(|i| (i * 31 % 251) as u8));
    file.extend_from_slice(&rest[at..]);
    let path = scratch_file();
    std::fs::write(path, &file).unwrap();
    let options = DecodeOptions {
        base_dir: None,
        max_bytes: 1 << 20,
    };
    let read = read_tensor_file(path, &options);
    let in_memory = TensorProto::decode(&file[..])
        .ok()
        .and_then(|proto| decode_tensor(&proto, &options).ok());
    match (read, in_memory) {
        (Ok(read), Some(expected)) => {
            assert_eq!(read.data_type(), expected.data_type());
            assert_eq!(read.shape(), expected.shape());
            assert_eq!(read.raw_bytes(), expected.raw_bytes());
        }
        (Err(_), None) => {}
        (read, expected) => panic!("read from the file: {read:?}; decoded in memory: {expected:?}"),
    }
});
