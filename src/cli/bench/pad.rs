//! The kernels: Pad in each mode and CenterCropPad on one large input, into a reused output
//! and into a fresh one.

use std::hint::black_box;

use bytemuck::Pod;

use super::copies::{fresh_memcpy, fresh_stream_copy, memcpy_into, stream_copy_into};
use super::measure::{BenchError, BenchResult, FRESH_GOAL, Measured, checked_bytes, median_of_each};
use crate::operators::PadMode;
use crate::operators::params::centered_pads;
use crate::reference::pad_kernel::{PadPlan, pad_pod_into};
use crate::tensor::{DEFAULT_MAX_BYTES, DataType, Element};

/// What to pad and how often.
#[derive(Clone, Debug)]
pub(crate) struct BenchOptions {
    /// The input's shape.
    pub shape: Vec<usize>,
    /// (begin, end) per axis.
    pub pads: Vec<(i64, i64)>,
    /// The Pad modes to time, one benchmark each.
    pub modes: Vec<PadMode>,
    /// Also time CenterCropPad (target extents from `center_crop_shape`).
    pub center_crop_shape: Option<Vec<usize>>,
    /// The element type of the input; only some numeric types are supported.
    pub data_type: DataType,
    /// Timed rounds per benchmark (after one warm-up round); the median is reported.
    pub repetitions: usize,
    /// The largest input or output, in bytes, a benchmark may allocate; larger ones are
    /// refused before anything is allocated.
    pub max_bytes: u64,
}

impl Default for BenchOptions {
    /// float [1, 64, 512, 512], 2 on each side of the last two axes, every mode, and
    /// CenterCropPad to [1, 64, 520, 504] (pad one axis, crop the other).
    fn default() -> Self {
        BenchOptions {
            shape: vec![1, 64, 512, 512],
            pads: vec![(0, 0), (0, 0), (2, 2), (2, 2)],
            modes: vec![PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Wrap],
            center_crop_shape: Some(vec![1, 64, 520, 504]),
            data_type: DataType::Float,
            repetitions: 10,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl BenchOptions {
    /// The default pads for a shape: 2 on each side of the last two axes.
    pub(crate) fn default_pads(rank: usize) -> Vec<(i64, i64)> {
        (0..rank).map(|i| if i + 2 >= rank { (2, 2) } else { (0, 0) }).collect()
    }

    /// Pads given in ONNX layout `[x1_begin, x2_begin, ..., x1_end, x2_end, ...]`, as
    /// (begin, end) per axis of `shape`.
    pub(crate) fn pads_from_onnx(shape: &[usize], pads: &[i64]) -> Result<Vec<(i64, i64)>, BenchError> {
        let rank = shape.len();
        if pads.len() != 2 * rank {
            return Err(BenchError::OnnxPadsMismatch {
                shape: shape.to_vec(),
                values: pads.len(),
            });
        }
        Ok((0..rank).map(|i| (pads[i], pads[i + rank])).collect())
    }

    /// The default CenterCropPad target: the last two axes 8 longer and 8 shorter (pad one,
    /// crop the other). Refused when that leaves an empty axis on a shape without one: there
    /// would be nothing to time.
    pub(crate) fn default_center_crop(shape: &[usize]) -> Result<Vec<usize>, BenchError> {
        let rank = shape.len();
        let target: Vec<usize> = shape
            .iter()
            .enumerate()
            .map(|(i, &d)| match rank - i {
                2 => d.saturating_add(8),
                1 => d.saturating_sub(8),
                _ => d,
            })
            .collect();
        if target.contains(&0) && !shape.contains(&0) {
            return Err(BenchError::EmptyDefaultCrop {
                target,
                shape: shape.to_vec(),
            });
        }
        Ok(target)
    }
}

/// Runs the padding benchmarks.
pub(crate) fn bench_pad(options: &BenchOptions) -> Result<Vec<BenchResult>, BenchError> {
    if options.shape.len() != options.pads.len() {
        return Err(BenchError::PadsMismatch {
            shape: options.shape.clone(),
            pairs: options.pads.len(),
        });
    }
    // BENCH_TYPES (args.rs) lists these arms, for the command line's help.
    match options.data_type {
        DataType::Float => bench_typed(options, 0.5f32),
        DataType::Double => bench_typed(options, 0.5f64),
        DataType::Float16 => bench_typed(options, half::f16::from_f32(0.5)),
        DataType::Int8 => bench_typed(options, 1i8),
        DataType::Uint8 => bench_typed(options, 1u8),
        DataType::Int32 => bench_typed(options, 1i32),
        DataType::Int64 => bench_typed(options, 1i64),
        other => Err(BenchError::UnsupportedType(other)),
    }
}

/// The padding benchmarks for one element type, on an input of `value` everywhere. Every
/// plan is made and every size checked before the input is allocated.
fn bench_typed<T: Element + Pod + Default>(options: &BenchOptions, value: T) -> Result<Vec<BenchResult>, BenchError> {
    let shape = &options.shape;
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    checked_bytes("the input", shape, count, size_of::<T>(), options.max_bytes)?;
    let count = count.expect("checked above");
    if count == 0 {
        return Err(BenchError::EmptyInput(shape.clone()));
    }
    let mut plans = Vec::new();
    for &mode in &options.modes {
        let plan = PadPlan::new(shape, &options.pads, mode, size_of::<T>()).map_err(|source| BenchError::Plan {
            op: format!("Pad {}", mode.name()),
            source,
        })?;
        plans.push(("Pad", mode.name(), plan));
    }
    if let Some(target) = &options.center_crop_shape {
        if target.len() != shape.len() {
            return Err(BenchError::CropRank {
                target: target.clone(),
                axes: shape.len(),
            });
        }
        let pads: Vec<(i64, i64)> = shape
            .iter()
            .zip(target)
            .map(|(&extent, &t)| match (i64::try_from(extent), i64::try_from(t)) {
                (Ok(extent), Ok(t)) => Ok(centered_pads(extent, t)),
                _ => Err(BenchError::CropTooLarge {
                    target: target.clone(),
                    shape: shape.clone(),
                }),
            })
            .collect::<Result<_, _>>()?;
        let plan =
            PadPlan::new(shape, &pads, PadMode::Constant, size_of::<T>()).map_err(|source| BenchError::Plan {
                op: "CenterCropPad".to_owned(),
                source,
            })?;
        plans.push(("CenterCropPad", "-", plan));
    }
    for (op, mode, plan) in &plans {
        let what = match *mode {
            "-" => format!("the {op} output"),
            mode => format!("the {op} {mode} output"),
        };
        let out_shape: Vec<usize> = plan.out_shape().to_vec();
        checked_bytes(
            &what,
            &out_shape,
            Some(plan.out_len()),
            size_of::<T>(),
            options.max_bytes,
        )?;
        if plan.out_len() == 0 {
            return Err(BenchError::EmptyOutput { what, shape: out_shape });
        }
    }
    // Advised for huge pages as a decoded input tensor is, so the kernel reads what it reads
    // in a run.
    let input = advised(std::iter::repeat_n(value, count), count);
    plans
        .iter()
        .map(|(op, mode, plan)| measure(&input, plan, op, mode, options))
        .collect()
}

/// The least ratio to the faster copy a kernel is meant to reach: constant padding and
/// CenterCropPad are one fill or copy per run; edge, reflect and wrap borders read scattered
/// elements.
fn goal(mode: &str) -> f64 {
    match mode {
        "edge" | "reflect" | "wrap" => 0.85,
        _ => 0.9,
    }
}

/// Times the kernel the `ref` backend runs for plain data ([`pad_pod_into`]) against the
/// copies of as many bytes, all interleaved.
fn measure<T: Element + Pod + Default>(
    input: &[T],
    plan: &PadPlan,
    op: &str,
    mode: &str,
    options: &BenchOptions,
) -> Result<BenchResult, BenchError> {
    let fill = T::default();
    let bytes = plan.out_len() * size_of::<T>();
    let source: Vec<u8> = bytemuck::cast_slice(input)
        .iter()
        .copied()
        .cycle()
        .take(bytes)
        .collect();
    let mut reused = Vec::new();
    let (mut memcpy_target, mut stream_target) = (Vec::new(), Vec::new());
    let times = median_of_each(
        options.repetitions,
        &mut [
            &mut || {
                pad_pod_into(input, plan, &fill, &mut reused);
                black_box(&reused);
            },
            &mut || memcpy_into(&mut memcpy_target, &source),
            &mut || stream_copy_into(&mut stream_target, &source),
            &mut || {
                let mut out = Vec::new();
                pad_pod_into(input, plan, &fill, &mut out);
                black_box(out);
            },
            &mut || fresh_memcpy(&source),
            &mut || fresh_stream_copy(&source),
        ],
    );
    Measured {
        op: op.to_owned(),
        mode: mode.to_owned(),
        dtype: T::DATA_TYPE,
        shape: options.shape.clone(),
        bytes: bytes as f64,
        operation: times[0],
        memcpy: times[1],
        stream_copy: times[2],
        goal: Some(goal(mode)),
    }
    .result(Some((times[3], times[4].min(times[5]), FRESH_GOAL)))
}

/// `len` values in a buffer advised for huge pages before it is first written.
fn advised<T>(values: impl Iterator<Item = T>, len: usize) -> Vec<T> {
    let mut buffer = Vec::with_capacity(len);
    crate::tensor::huge_pages::advise_capacity(&buffer);
    buffer.extend(values.take(len));
    buffer
}
