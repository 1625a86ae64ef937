//! `pad-conformance bench`: the reference kernels' speed as a ratio to a plain copy of the
//! same bytes, timed the same way in the same process, so the figure survives noisy machines.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytemuck::Pod;
use bytes::Bytes;
use prost::Message;
use serde::Serialize;

use crate::operators::PadMode;
use crate::operators::params::centered_pads;
use crate::reference::pad_kernel::{PadPlan, PlanError, pad_pod_into};
use crate::tensor::{DEFAULT_MAX_BYTES, DataType, DecodeOptions, Element, Tensor, decode_tensor, encode_tensor};

/// What to pad and how often.
#[derive(Clone, Debug)]
pub struct BenchOptions {
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
    pub fn default_pads(rank: usize) -> Vec<(i64, i64)> {
        (0..rank).map(|i| if i + 2 >= rank { (2, 2) } else { (0, 0) }).collect()
    }

    /// Pads given in ONNX layout `[x1_begin, x2_begin, ..., x1_end, x2_end, ...]`, as
    /// (begin, end) per axis of `shape`.
    pub fn pads_from_onnx(shape: &[usize], pads: &[i64]) -> Result<Vec<(i64, i64)>, BenchError> {
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
    pub fn default_center_crop(shape: &[usize]) -> Result<Vec<usize>, BenchError> {
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

/// A configuration the benchmark refuses before allocating anything.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A tensor over the byte limit.
    #[error("{what} of shape {shape:?} needs {bytes} bytes, over the limit of {limit} bytes (--max-tensor-bytes)")]
    TooLarge {
        /// `the input`, `the Pad edge output`.
        what: String,
        /// Its shape.
        shape: Vec<usize>,
        /// The bytes it needs.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// A tensor whose size does not even fit the address space.
    #[error(
        "{what} of shape {shape:?} overflows the addressable size, over the limit of {limit} bytes (--max-tensor-bytes)"
    )]
    Overflow {
        /// `the input`, `the Pad edge output`.
        what: String,
        /// Its shape.
        shape: Vec<usize>,
        /// The limit.
        limit: u64,
    },
    /// An input with no elements.
    #[error("the input shape {0:?} has no elements: there is nothing to time")]
    EmptyInput(Vec<usize>),
    /// An output with no elements.
    #[error(
        "{what} has shape {shape:?}, with no elements: there is nothing to time (change --shape, --pads or --center-crop-shape)"
    )]
    EmptyOutput {
        /// `the Pad edge output`.
        what: String,
        /// Its shape.
        shape: Vec<usize>,
    },
    /// Pads that do not fit the shape.
    #[error("shape {shape:?} has {} axes but {pairs} pad pairs were given", shape.len())]
    PadsMismatch {
        /// The input shape.
        shape: Vec<usize>,
        /// The (begin, end) pairs given.
        pairs: usize,
    },
    /// `--pads` of the wrong length for the shape.
    #[error("--pads has {values} values; shape {shape:?} needs {}", 2 * shape.len())]
    OnnxPadsMismatch {
        /// The input shape.
        shape: Vec<usize>,
        /// How many values were given.
        values: usize,
    },
    /// The default CenterCropPad target leaves an axis empty.
    #[error(
        "its default target {target:?} for shape {shape:?} has an empty axis (give --center-crop-shape to time it)"
    )]
    EmptyDefaultCrop {
        /// The default target.
        target: Vec<usize>,
        /// The input shape.
        shape: Vec<usize>,
    },
    /// A CenterCropPad target of another rank.
    #[error("center-crop shape {target:?} must have {axes} axes")]
    CropRank {
        /// The target shape.
        target: Vec<usize>,
        /// The input's rank.
        axes: usize,
    },
    /// A CenterCropPad target or input too large for pads.
    #[error("center-crop shape {target:?} or input shape {shape:?} is too large")]
    CropTooLarge {
        /// The target shape.
        target: Vec<usize>,
        /// The input shape.
        shape: Vec<usize>,
    },
    /// A padding the kernel refuses to plan.
    #[error("{op}: {source}")]
    Plan {
        /// `Pad edge`, `CenterCropPad`.
        op: String,
        /// Why.
        #[source]
        source: PlanError,
    },
    /// An element type the benchmark does not time.
    #[error("bench supports float, double, float16, int8, uint8, int32 and int64, not {0}")]
    UnsupportedType(DataType),
    /// `--decode-mib 0`.
    #[error("--decode-mib 0: there is nothing to time")]
    NoDecodeSize,
    /// A decode size over the limit.
    #[error("--decode-mib {megabytes} is over the limit of {limit} bytes (--max-tensor-bytes)")]
    DecodeTooLarge {
        /// The size asked for.
        megabytes: usize,
        /// The limit.
        limit: u64,
    },
    /// The scratch case for `--end-to-end` could not be written.
    #[error("writing the end-to-end case: {0}")]
    Scratch(String),
    /// The reference did not pass its own end-to-end case: there is nothing honest to time.
    #[error("the end-to-end case did not pass: {0}")]
    NotPassed(String),
    /// Timings that give no finite positive figure.
    #[error("{}: the timings gave no meaningful figure (GB/s {}, fresh {}, copy {}, ratio {})", .0.label(), .0.gbps, .0.fresh_gbps, .0.copy_gbps, .0.ratio)]
    Meaningless(Box<BenchResult>),
}

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// `Pad`, `CenterCropPad` or `decode`.
    pub op: String,
    /// The mode, `-` for CenterCropPad, `raw_data` for decoding.
    pub mode: String,
    /// The element type.
    pub dtype: String,
    /// The input shape.
    pub shape: Vec<usize>,
    /// Median output bytes per second (in GB/s), writing into a reused buffer.
    pub gbps: f64,
    /// The same with a fresh output allocation per call.
    pub fresh_gbps: f64,
    /// Median GB/s of a plain copy of as many bytes into a reused buffer.
    pub copy_gbps: f64,
    /// `gbps / copy_gbps`: always a finite number, since configurations with nothing to
    /// time are refused.
    pub ratio: f64,
}

/// `count` elements of `element_size` bytes, refused (before any allocation) when the count
/// overflows or the bytes exceed `limit`; `what` names the tensor in the message.
fn checked_bytes(
    what: &str,
    shape: &[usize],
    count: Option<usize>,
    element_size: usize,
    limit: u64,
) -> Result<u64, BenchError> {
    let bytes = count
        .and_then(|n| n.checked_mul(element_size))
        .and_then(|b| u64::try_from(b).ok());
    match bytes {
        Some(bytes) if bytes <= limit => Ok(bytes),
        Some(bytes) => Err(BenchError::TooLarge {
            what: what.to_owned(),
            shape: shape.to_vec(),
            bytes,
            limit,
        }),
        None => Err(BenchError::Overflow {
            what: what.to_owned(),
            shape: shape.to_vec(),
            limit,
        }),
    }
}

/// Runs the padding benchmarks.
pub fn bench_pad(options: &BenchOptions) -> Result<Vec<BenchResult>, BenchError> {
    if options.shape.len() != options.pads.len() {
        return Err(BenchError::PadsMismatch {
            shape: options.shape.clone(),
            pairs: options.pads.len(),
        });
    }
    // BENCH_TYPES lists these arms, for the command line's help.
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

/// The element types the padding benchmarks time: the widths 1, 2, 4 and 8 bytes, floating
/// and integer.
pub const BENCH_TYPES: [DataType; 7] = [
    DataType::Float,
    DataType::Double,
    DataType::Float16,
    DataType::Int8,
    DataType::Uint8,
    DataType::Int32,
    DataType::Int64,
];

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
    let input = vec![value; count];
    plans
        .iter()
        .map(|(op, mode, plan)| measure(&input, plan, op, mode, options))
        .collect()
}

/// Times the kernel the `ref` backend runs for plain data ([`pad_pod_into`]).
fn measure<T: Element + Pod + Default>(
    input: &[T],
    plan: &PadPlan,
    op: &str,
    mode: &str,
    options: &BenchOptions,
) -> Result<BenchResult, BenchError> {
    let fill = T::default();
    let bytes = (plan.out_len() * size_of::<T>()) as f64;
    let source: Vec<T> = input.iter().cycle().take(plan.out_len()).cloned().collect();
    let mut reused = Vec::new();
    let mut copy_target: Vec<T> = Vec::new();
    // Interleaved, so that a change of clock or of load on the machine hits all three.
    let times = median_of_each(
        options.repetitions,
        &mut [
            &mut || {
                pad_pod_into(input, plan, &fill, &mut reused);
                black_box(&reused);
            },
            &mut || {
                copy_target.clear();
                copy_target.extend_from_slice(&source);
                black_box(&copy_target);
            },
            &mut || {
                let mut out = Vec::new();
                pad_pod_into(input, plan, &fill, &mut out);
                black_box(out);
            },
        ],
    );
    let (pad, copy, fresh) = (gbps(bytes, times[0]), gbps(bytes, times[1]), gbps(bytes, times[2]));
    finite(BenchResult {
        op: op.to_owned(),
        mode: mode.to_owned(),
        dtype: T::DATA_TYPE.name().to_owned(),
        shape: options.shape.clone(),
        gbps: pad,
        fresh_gbps: fresh,
        copy_gbps: copy,
        ratio: pad / copy,
    })
}

/// Refuses a result whose figures are not finite positive numbers, rather than printing NaN
/// (or JSON null) as if it were a measurement.
fn finite(result: BenchResult) -> Result<BenchResult, BenchError> {
    let figures = [result.gbps, result.fresh_gbps, result.copy_gbps, result.ratio];
    if figures.iter().all(|f| f.is_finite() && *f > 0.0) {
        Ok(result)
    } else {
        Err(BenchError::Meaningless(Box::new(result)))
    }
}

impl BenchResult {
    /// `Pad edge float`.
    fn label(&self) -> String {
        format!("{} {} {}", self.op, self.mode, self.dtype)
    }
}

/// The median time of each closure over `repetitions` rounds, after one warm-up round; each
/// round runs every closure once, in order.
fn median_of_each(repetitions: usize, runs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut times = vec![Vec::with_capacity(repetitions); runs.len()];
    for round in 0..=repetitions.max(1) {
        for (run, samples) in runs.iter_mut().zip(&mut times) {
            let start = Instant::now();
            run();
            if round > 0 {
                samples.push(start.elapsed());
            }
        }
    }
    times
        .into_iter()
        .map(|mut samples| {
            samples.sort();
            samples[samples.len() / 2]
        })
        .collect()
}

fn gbps(bytes: f64, time: Duration) -> f64 {
    bytes / time.as_secs_f64().max(1e-12) / 1e9
}

/// A whole data set as a user runs one — read the files, decode, pad with the reference,
/// compare — for a float input of `shape` padded by `pads` in `mode`, against a memcpy of the
/// case's bytes (input file, expected output file, and the output produced) in the same
/// process. The case is written to a scratch directory first.
pub fn bench_end_to_end(
    shape: &[usize],
    pads: &[(i64, i64)],
    mode: PadMode,
    repetitions: usize,
    max_bytes: u64,
) -> Result<BenchResult, BenchError> {
    use crate::backend::{Backend, RefBackend};
    use crate::case::{Patterns, discover};
    use crate::check::{CheckOptions, Status, check_data_set};
    use crate::fuzz::FuzzCase;
    use crate::operators::{OpVersion, PadOp};

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
    let mut target = vec![0u8; case_bytes];
    let times = median_of_each(
        repetitions,
        &mut [
            &mut || {
                black_box(check_data_set(&RefBackend, &cases[0], 0, &options));
            },
            &mut || {
                target.copy_from_slice(&source);
                black_box(&target);
            },
        ],
    );
    let (run, copy) = (gbps(case_bytes as f64, times[0]), gbps(case_bytes as f64, times[1]));
    finite(BenchResult {
        op: "end-to-end".to_owned(),
        mode: mode.name().to_owned(),
        dtype: "float".to_owned(),
        shape: shape.to_vec(),
        gbps: run,
        fresh_gbps: run,
        copy_gbps: copy,
        ratio: run / copy,
    })
}

/// Decoding a serialized float TensorProto of `megabytes` MiB held in memory, against a plain
/// copy of the same bytes into a fresh buffer (decoding allocates its array too). Refuses zero
/// MiB, and tensors over `max_bytes`, before allocating.
pub fn bench_decode(megabytes: usize, repetitions: usize, max_bytes: u64) -> Result<BenchResult, BenchError> {
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
                let proto = crate::proto::TensorProto::decode(file.clone()).expect("valid encoding");
                black_box(decode_tensor(&proto, &options).expect("valid tensor"));
            },
            &mut || {
                black_box(file.to_vec());
            },
        ],
    );
    let (decode, copy) = (times[0], times[1]);
    let bytes = file.len() as f64;
    finite(BenchResult {
        op: "decode".to_owned(),
        mode: "raw_data".to_owned(),
        dtype: "float".to_owned(),
        shape: vec![count],
        gbps: gbps(bytes, decode),
        fresh_gbps: gbps(bytes, decode),
        copy_gbps: gbps(bytes, copy),
        ratio: copy.as_secs_f64().max(1e-12) / decode.as_secs_f64().max(1e-12),
    })
}
