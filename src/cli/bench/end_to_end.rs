//! A whole data set end to end: the files read, decoded, padded by the reference and
//! compared, as a run takes it.

use std::hint::black_box;

use super::copies::{memcpy_into, stream_copy_into};
use super::measure::{BenchError, BenchResult, Measured, checked_bytes, median_of_each_until};
use super::scratch_case::CaseFiles;
use crate::backend::RefBackend;
use crate::cancel::Cancel;
use crate::case::{Patterns, discover};
use crate::fuzz::FuzzCase;
use crate::judge::check::{CheckOptions, Status, check_data_set};
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::reference::pad_kernel::PadPlan;
use crate::tensor::{DataType, Tensor};

/// The least ratio a whole data set is meant to reach: reading two files, decoding, padding
/// and comparing move the case's bytes several times.
pub(super) const END_TO_END_GOAL: f64 = 0.25;

/// A whole data set as a user runs one — read the files, decode, pad with the reference,
/// compare — for a float input of `shape` padded by `pads` in `mode`, against copies of the
/// case's bytes (input file, expected output file, and the output produced) in the same
/// process. The case is written to a scratch directory first, so a signal (`cancel`) stops
/// the rounds and unwinds to remove it.
pub(crate) fn bench_end_to_end(
    shape: &[usize],
    pads: &[(i64, i64)],
    mode: PadMode,
    repetitions: usize,
    max_bytes: u64,
    cancel: &Cancel,
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
    let files = CaseFiles::new(&case, "test_end_to_end_pad")?;
    let scratch = crate::data::scratch::scratch_in(&std::env::temp_dir(), "pad-conformance-bench-")
        .map_err(|e| BenchError::Scratch(e.to_string()))?;
    files.write(&scratch.path().join("test_end_to_end_pad"))?;
    // The case's files and the output the run produces: the bytes a data set moves.
    let case_bytes = files.file_bytes() + files.output_bytes;
    let cases =
        discover(&[scratch.path().to_owned()], &Patterns::default()).map_err(|e| BenchError::Scratch(e.to_string()))?;
    let options = CheckOptions {
        max_tensor_bytes: max_bytes,
        ..CheckOptions::default()
    };
    let first = check_data_set(&RefBackend, &cases[0], 0, &options);
    if first.status() != Status::Passed {
        return Err(BenchError::NotPassed(first.message()));
    }
    let source = vec![7u8; case_bytes];
    let (mut memcpy_target, mut stream_target) = (Vec::new(), Vec::new());
    let times = median_of_each_until(
        repetitions,
        cancel,
        &mut [
            &mut || {
                black_box(check_data_set(&RefBackend, &cases[0], 0, &options));
            },
            &mut || memcpy_into(&mut memcpy_target, &source),
            &mut || stream_copy_into(&mut stream_target, &source),
        ],
    )
    .ok_or(BenchError::Interrupted)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A signal (the cancelled token) stops the rounds: an error, not figures, and the
    /// function returns, so its scratch directory is removed as it unwinds.
    #[test]
    fn a_cancelled_end_to_end_stops_before_its_rounds() {
        let cancel = Cancel::new();
        let pads = [(1, 1), (2, 0)];
        let measured = bench_end_to_end(&[3, 4], &pads, PadMode::Edge, 3, 1 << 20, &cancel);
        assert!(measured.is_ok(), "{:?}", measured.err());
        cancel.cancel();
        let stopped = bench_end_to_end(&[3, 4], &pads, PadMode::Edge, 10_000, 1 << 20, &cancel);
        assert!(
            matches!(stopped, Err(BenchError::Interrupted)),
            "{:?}",
            stopped.map(|_| ())
        );
    }
}
