//! Decoding a TensorProto held in memory.

use std::hint::black_box;

use bytes::Bytes;
use prost::Message;

use super::copies::{fresh_memcpy, fresh_stream_copy};
use super::measure::{BenchError, BenchResult, Measured, median_of_each};
use crate::proto::TensorProto;
use crate::tensor::{DataType, DecodeOptions, Tensor, decode_tensor, encode_tensor};

/// Decoding a serialized float TensorProto of `megabytes` MiB held in memory, against copies
/// of the same bytes into a fresh buffer (decoding allocates its array too). Refuses zero
/// MiB, and tensors over `max_bytes`, before allocating.
pub(crate) fn bench_decode(megabytes: usize, repetitions: usize, max_bytes: u64) -> Result<BenchResult, BenchError> {
    if megabytes == 0 {
        return Err(BenchError::NoDecodeSize);
    }
    match megabytes.checked_mul(1 << 20).and_then(|b| u64::try_from(b).ok()) {
        Some(bytes) if bytes <= max_bytes => {}
        _ => {
            return Err(BenchError::DecodeTooLarge {
                megabytes,
                limit: max_bytes,
            });
        }
    }
    let count = megabytes * (1 << 20) / 4;
    let tensor = Tensor::from_vec(&[count], vec![1.25f32; count]).expect("1-D");
    let file = Bytes::from(encode_tensor(&tensor, "x").encode_to_vec());
    let options = DecodeOptions {
        base_dir: None,
        max_bytes: u64::MAX,
    };
    let times = median_of_each(
        repetitions,
        &mut [
            &mut || {
                let proto = TensorProto::decode(file.clone()).expect("valid encoding");
                black_box(decode_tensor(&proto, &options).expect("valid tensor"));
            },
            &mut || fresh_memcpy(&file),
            &mut || fresh_stream_copy(&file),
        ],
    );
    Measured {
        op: "decode".to_owned(),
        mode: "raw_data".to_owned(),
        dtype: DataType::Float,
        shape: vec![count],
        bytes: file.len() as f64,
        operation: times[0],
        memcpy: times[1],
        stream_copy: times[2],
        goal: None,
    }
    .result(None)
}
