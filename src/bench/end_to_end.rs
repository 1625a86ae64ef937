//! A whole data set end to end: the files read, decoded, padded by the reference and
//! compared, as a run takes it.

use std::hint::black_box;

use prost::Message;

use super::copies::{memcpy_into, stream_copy_into};
use super::{BenchError, BenchResult, Measured, checked_bytes, median_of_each};
use crate::backend::{Backend, RefBackend};
use crate::case::{Patterns, discover};
use crate::check::{CheckOptions, Status, check_data_set};
use crate::fuzz::FuzzCase;
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::reference::pad_kernel::PadPlan;
use crate::tensor::{DataType, DecodeOptions, Tensor, encode_tensor};

/// The least ratio a whole data set is meant to reach: reading two files, decoding, padding
/// and comparing move the case's bytes several times.
pub const END_TO_END_GOAL: f64 = 0.25;

/// A whole data set as a user runs one — read the files, decode, pad with the reference,
/// compare — for a float input of `shape` padded by `pads` in `mode`, against copies of the
/// case's bytes (input file, expected output file, and the output produced) in the same
/// process. The case is written to a scratch directory first.
pub fn bench_end_to_end(
    shape: &[usize],
    pads: &[(i64, i64)],
    mode: PadMode,
    repetitions: usize,
    max_bytes: u64,
) -> Result<BenchResult, BenchError> {
    if shape.len() != pads.len() {
        return Err(BenchError::PadsMismatch {
            shape: shape.to_vec(),
            pairs: pads.len(),
        });
    }
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    checked_bytes("the input", shape, count, 4, max_bytes)?;
    let count = count.expect("checked above");
    if count == 0 {
        return Err(BenchError::EmptyInput(shape.to_vec()));
    }
    let plan = PadPlan::new(shape, pads, mode, 4).map_err(|source| BenchError::Plan {
        op: format!("Pad {}", mode.name()),
        source,
    })?;
    checked_bytes("the output", plan.out_shape(), Some(plan.out_len()), 4, max_bytes)?;
    let values: Vec<f32> = (0..count).map(|i| (i % 1024) as f32).collect();
    let case = FuzzCase {
        operator: OpVersion {
            op: PadOp::Pad,
            version: 19,
        },
        mode: Some(mode.name().to_owned()),
        data: Tensor::from_vec(shape, values).expect("count elements"),
        pads: pads.iter().map(|p| p.0).chain(pads.iter().map(|p| p.1)).collect(),
        pads_2d: false,
        constant: None,
        axes: None,
        int32_indices: false,
    };
    let scratch = tempfile::tempdir().map_err(|e| BenchError::Scratch(e.to_string()))?;
    let dir = scratch.path().join("test_end_to_end_pad");
    let data_dir = dir.join("test_data_set_0");
    let (model, inputs) = case.build("test_end_to_end_pad");
    let expected = {
        let loaded = crate::model::Model::from_proto(&dir.join("model.onnx"), model.clone(), &DecodeOptions::default())
            .map_err(|e| BenchError::Scratch(e.to_string()))?;
        RefBackend
            .run(&loaded, &inputs)
            .map_err(|e| BenchError::NotPassed(e.to_string()))?
    };
    let mut case_bytes = 0usize;
    let mut write = |path: std::path::PathBuf, bytes: Vec<u8>| -> Result<(), BenchError> {
        case_bytes += bytes.len();
        std::fs::create_dir_all(path.parent().expect("inside the case"))
            .and_then(|()| std::fs::write(&path, bytes))
            .map_err(|e| BenchError::Scratch(format!("{}: {e}", path.display())))
    };
    write(dir.join("model.onnx"), model.encode_to_vec())?;
    let names = ["x", "pads"];
    for (k, (tensor, name)) in inputs.iter().zip(names).enumerate() {
        write(
            data_dir.join(format!("input_{k}.pb")),
            encode_tensor(tensor, name).encode_to_vec(),
        )?;
    }
    write(
        data_dir.join("output_0.pb"),
        encode_tensor(&expected[0], "y").encode_to_vec(),
    )?;
    // The output the run produces moves through memory too.
    case_bytes += expected[0].len() * 4;
    let cases =
        discover(&[scratch.path().to_owned()], &Patterns::default()).map_err(|e| BenchError::Scratch(e.to_string()))?;
    let options = CheckOptions {
        max_tensor_bytes: max_bytes,
        ..CheckOptions::default()
    };
    let first = check_data_set(&RefBackend, &cases[0], 0, &options);
    if first.status != Status::Passed {
        return Err(BenchError::NotPassed(first.message));
    }
    let source = vec![7u8; case_bytes];
    let (mut memcpy_target, mut stream_target) = (Vec::new(), Vec::new());
    let times = median_of_each(
        repetitions,
        &mut [
            &mut || {
                black_box(check_data_set(&RefBackend, &cases[0], 0, &options));
            },
            &mut || memcpy_into(&mut memcpy_target, &source),
            &mut || stream_copy_into(&mut stream_target, &source),
        ],
    );
    Measured {
        op: "end-to-end".to_owned(),
        mode: mode.name().to_owned(),
        dtype: DataType::Float,
        shape: shape.to_vec(),
        bytes: case_bytes as f64,
        operation: times[0],
        memcpy: times[1],
        stream_copy: times[2],
        goal: Some(END_TO_END_GOAL),
    }
    .result(None)
}
