//! `pad-conformance bench`: the reference kernels' speed as a ratio to a plain copy of the
//! same bytes, timed the same way in the same process, so the figure survives noisy machines.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytemuck::Pod;
use bytes::Bytes;
use prost::Message;
use serde::Serialize;

use crate::reference::pad_kernel::{PadMode, PadPlan, pad_pod_into};
use crate::tensor::{DataType, DecodeOptions, Element, Tensor, decode_tensor, encode_tensor};

/// What to pad and how often.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub shape: Vec<usize>,
    /// (begin, end) per axis.
    pub pads: Vec<(i64, i64)>,
    pub modes: Vec<PadMode>,
    /// Also time CenterCropPad (target extents from `center_crop_shape`).
    pub center_crop_shape: Option<Vec<usize>>,
    pub data_type: DataType,
    pub repetitions: usize,
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
        }
    }
}

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub op: String,
    pub mode: String,
    pub dtype: String,
    pub shape: Vec<usize>,
    /// Median output bytes per second (in GB/s), writing into a reused buffer.
    pub gbps: f64,
    /// The same with a fresh output allocation per call.
    pub fresh_gbps: f64,
    /// Median GB/s of a plain copy of as many bytes into a reused buffer.
    pub copy_gbps: f64,
    /// `gbps / copy_gbps`.
    pub ratio: f64,
}

/// Runs the padding benchmarks.
pub fn bench_pad(options: &BenchOptions) -> Result<Vec<BenchResult>, String> {
    if options.shape.len() != options.pads.len() {
        return Err(format!(
            "shape {:?} has {} axes but {} pad pairs were given",
            options.shape,
            options.shape.len(),
            options.pads.len()
        ));
    }
    match options.data_type {
        DataType::Float => bench_typed(options, 0.5f32),
        DataType::Double => bench_typed(options, 0.5f64),
        DataType::Float16 => bench_typed(options, half::f16::from_f32(0.5)),
        DataType::Int8 => bench_typed(options, 1i8),
        DataType::Uint8 => bench_typed(options, 1u8),
        DataType::Int32 => bench_typed(options, 1i32),
        DataType::Int64 => bench_typed(options, 1i64),
        other => Err(format!(
            "bench supports float, double, float16, int8, uint8, int32 and int64, not {other}"
        )),
    }
}

/// The padding benchmarks for one element type, on an input of `value` everywhere.
fn bench_typed<T: Element + Pod>(options: &BenchOptions, value: T) -> Result<Vec<BenchResult>, String> {
    let input = vec![value; options.shape.iter().product()];
    let mut results = Vec::new();
    for &mode in &options.modes {
        let plan = PadPlan::new(&options.shape, &options.pads, mode).map_err(|e| e.to_string())?;
        results.push(measure(&input, &plan, "Pad", mode.name(), options));
    }
    if let Some(target) = &options.center_crop_shape {
        if target.len() != options.shape.len() {
            return Err(format!(
                "center-crop shape {target:?} must have {} axes",
                options.shape.len()
            ));
        }
        let pads: Vec<(i64, i64)> = options
            .shape
            .iter()
            .zip(target)
            .map(|(&extent, &t)| {
                let diff = t as i64 - extent as i64;
                let begin = if diff >= 0 { diff / 2 } else { -((-diff) / 2) };
                (begin, diff - begin)
            })
            .collect();
        let plan = PadPlan::new(&options.shape, &pads, PadMode::Constant).map_err(|e| e.to_string())?;
        results.push(measure(&input, &plan, "CenterCropPad", "-", options));
    }
    Ok(results)
}

/// Times the kernel the `ref` backend runs for plain data ([`pad_pod_into`]).
fn measure<T: Element + Pod>(input: &[T], plan: &PadPlan, op: &str, mode: &str, options: &BenchOptions) -> BenchResult {
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
    BenchResult {
        op: op.to_owned(),
        mode: mode.to_owned(),
        dtype: T::DATA_TYPE.name().to_owned(),
        shape: options.shape.clone(),
        gbps: pad,
        fresh_gbps: fresh,
        copy_gbps: copy,
        ratio: pad / copy,
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

/// Decoding a serialized float TensorProto of `megabytes` MiB held in memory, against a plain
/// copy of the same bytes into a fresh buffer (decoding allocates its array too).
pub fn bench_decode(megabytes: usize, repetitions: usize) -> Result<BenchResult, String> {
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
    Ok(BenchResult {
        op: "decode".to_owned(),
        mode: "raw_data".to_owned(),
        dtype: "float".to_owned(),
        shape: vec![count],
        gbps: gbps(bytes, decode),
        fresh_gbps: gbps(bytes, decode),
        copy_gbps: gbps(bytes, copy),
        ratio: copy.as_secs_f64() / decode.as_secs_f64(),
    })
}
