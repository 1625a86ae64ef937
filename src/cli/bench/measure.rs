//! What every figure of `bench` is made of: timed rounds and their medians, the operation's
//! speed against the faster of two copies of as many bytes, the goals, and the configurations
//! refused before anything is allocated.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::reference::pad_kernel::PlanError;
use crate::tensor::DataType;

/// A configuration the benchmark refuses before allocating anything.
#[derive(Debug, thiserror::Error)]
pub(super) enum BenchError {
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
    /// A generated case (`--end-to-end`, `--scaling`) could not be written.
    #[error("writing the generated case: {0}")]
    Scratch(String),
    /// A signal stopped the rounds before they were done; nothing was measured.
    #[error("interrupted before the rounds were done")]
    Interrupted,
    /// The reference did not pass its own generated case: there is nothing honest to time.
    #[error("the generated case did not pass: {0}")]
    NotPassed(String),
    /// Timings that give no finite positive figure.
    #[error("{}: the timings gave no meaningful figure ({})", .0.label(), .0.figures_text())]
    Meaningless(Box<BenchResult>),
    /// The scratch corpus for `--scaling` could not be written or run.
    #[error("the scaling corpus: {0}")]
    Scaling(String),
}

/// One measured configuration: the operation's speed, the copies it is measured against,
/// and the goal its ratio should reach.
#[derive(Clone, Debug, Serialize)]
pub(super) struct BenchResult {
    /// `Pad`, `CenterCropPad`, `end-to-end` or `decode`.
    pub op: String,
    /// The mode, `-` for CenterCropPad, `raw_data` for decoding.
    pub mode: String,
    /// The element type.
    pub dtype: String,
    /// The input shape.
    pub shape: Vec<usize>,
    /// Median bytes per second (in GB/s) of the operation: output bytes written into a reused
    /// buffer for the kernels, the case's bytes for a whole data set, the file's for decoding.
    pub gbps: f64,
    /// Median GB/s of a memcpy of as many bytes (into a reused buffer; into a fresh one for
    /// decoding, which allocates its array).
    pub memcpy_gbps: f64,
    /// Median GB/s of a copy of as many bytes with streaming stores, into the same kind of
    /// buffer (a memcpy where the kernel does not stream: off x86_64).
    pub stream_copy_gbps: f64,
    /// The faster of the two copies: the baseline.
    pub copy_gbps: f64,
    /// `gbps / copy_gbps`.
    pub ratio: f64,
    /// The least `ratio` this configuration is meant to reach, if it has a goal.
    pub goal: Option<f64>,
    /// For the kernels: the same operation with a fresh output allocation per call.
    pub fresh: Option<FreshFigures>,
}

/// The kernels' figures with a fresh output per call, where page faults count.
#[derive(Clone, Copy, Debug, Serialize)]
pub(super) struct FreshFigures {
    /// Median GB/s of the operation into a fresh output.
    pub gbps: f64,
    /// Median GB/s of a memcpy into a fresh buffer advised for huge pages.
    pub copy_gbps: f64,
    /// `gbps / copy_gbps`.
    pub ratio: f64,
    /// The least `ratio` it is meant to reach.
    pub goal: f64,
}

/// The goal for a kernel's ratio with a fresh output.
pub(super) const FRESH_GOAL: f64 = 0.8;

impl BenchResult {
    /// `Pad edge float`.
    pub(super) fn label(&self) -> String {
        format!("{} {} {}", self.op, self.mode, self.dtype)
    }

    /// Whether every goal this result has is met.
    pub(super) fn meets_goals(&self) -> bool {
        self.goal.is_none_or(|goal| self.ratio >= goal) && self.fresh.is_none_or(|f| f.ratio >= f.goal)
    }

    fn figures(&self) -> Vec<(&'static str, f64)> {
        let mut figures = vec![
            ("GB/s", self.gbps),
            ("memcpy", self.memcpy_gbps),
            ("stream copy", self.stream_copy_gbps),
            ("ratio", self.ratio),
        ];
        if let Some(fresh) = &self.fresh {
            figures.extend([
                ("fresh", fresh.gbps),
                ("fresh copy", fresh.copy_gbps),
                ("fresh ratio", fresh.ratio),
            ]);
        }
        figures
    }

    fn figures_text(&self) -> String {
        self.figures()
            .iter()
            .map(|(name, value)| format!("{name} {value}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Measured times of an operation and of its two copies, turned into a result: the baseline
/// is the faster copy. Refuses figures that are not finite positive numbers, rather than
/// printing NaN (or JSON null) as if it were a measurement.
pub(super) struct Measured {
    pub op: String,
    pub mode: String,
    pub dtype: DataType,
    pub shape: Vec<usize>,
    pub bytes: f64,
    pub operation: Duration,
    pub memcpy: Duration,
    pub stream_copy: Duration,
    pub goal: Option<f64>,
}

impl Measured {
    pub(super) fn result(self, fresh: Option<(Duration, Duration, f64)>) -> Result<BenchResult, BenchError> {
        let bytes = self.bytes;
        let (memcpy, stream) = (gbps(bytes, self.memcpy), gbps(bytes, self.stream_copy));
        let operation = gbps(bytes, self.operation);
        let copy = memcpy.max(stream);
        let result = BenchResult {
            op: self.op,
            mode: self.mode,
            dtype: self.dtype.name().to_owned(),
            shape: self.shape,
            gbps: operation,
            memcpy_gbps: memcpy,
            stream_copy_gbps: stream,
            copy_gbps: copy,
            ratio: operation / copy,
            goal: self.goal,
            fresh: fresh.map(|(pad, copy, goal)| {
                let (pad, copy) = (gbps(bytes, pad), gbps(bytes, copy));
                FreshFigures {
                    gbps: pad,
                    copy_gbps: copy,
                    ratio: pad / copy,
                    goal,
                }
            }),
        };
        if result.figures().iter().all(|(_, f)| f.is_finite() && *f > 0.0) {
            Ok(result)
        } else {
            Err(BenchError::Meaningless(Box::new(result)))
        }
    }
}

/// `count` elements of `element_size` bytes, refused (before any allocation) when the count
/// overflows or the bytes exceed `limit`; `what` names the tensor in the message.
pub(super) fn checked_bytes(
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

/// The median time of each closure over `repetitions` rounds, after one warm-up round; each
/// round runs every closure once, in order, so that a change of clock or of load on the
/// machine hits them all.
pub(super) fn median_of_each(repetitions: usize, runs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    median_of_each_until(repetitions, &crate::cancel::Cancel::new(), runs).expect("never cancelled")
}

/// [`median_of_each`], stopping between rounds once `cancel` trips: `None` then. For what holds
/// a scratch directory, which a signal leaves to its holder to remove.
pub(super) fn median_of_each_until(
    repetitions: usize,
    cancel: &crate::cancel::Cancel,
    runs: &mut [&mut dyn FnMut()],
) -> Option<Vec<Duration>> {
    let mut times = vec![Vec::with_capacity(repetitions); runs.len()];
    for round in 0..=repetitions.max(1) {
        if cancel.is_cancelled() {
            return None;
        }
        for (run, samples) in runs.iter_mut().zip(&mut times) {
            let start = Instant::now();
            run();
            if round > 0 {
                samples.push(start.elapsed());
            }
        }
    }
    Some(
        times
            .into_iter()
            .map(|mut samples| {
                samples.sort();
                samples[samples.len() / 2]
            })
            .collect(),
    )
}

fn gbps(bytes: f64, time: Duration) -> f64 {
    bytes / time.as_secs_f64().max(1e-12) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(operation_ms: u64, memcpy_ms: u64, stream_ms: u64) -> Measured {
        Measured {
            op: "Pad".to_owned(),
            mode: "wrap".to_owned(),
            dtype: DataType::Float,
            shape: vec![4],
            bytes: 1e9,
            operation: Duration::from_millis(operation_ms),
            memcpy: Duration::from_millis(memcpy_ms),
            stream_copy: Duration::from_millis(stream_ms),
            goal: Some(0.85),
        }
    }

    #[test]
    fn the_baseline_is_the_faster_copy_and_goals_are_judged_against_it() {
        // 1 GB: the operation at 4 GB/s, memcpy at 5 GB/s, the streaming copy at 8 GB/s.
        let result = measured(250, 200, 125).result(None).unwrap();
        assert_eq!(
            (result.memcpy_gbps, result.stream_copy_gbps, result.copy_gbps),
            (5.0, 8.0, 8.0)
        );
        assert_eq!(result.ratio, 0.5);
        assert!(
            !result.meets_goals(),
            "0.5 of the faster copy misses 0.85, though it is 0.8 of memcpy"
        );
        let result = measured(130, 200, 125).result(None).unwrap();
        assert!(result.meets_goals(), "{result:?}");
    }

    #[test]
    fn a_fresh_figure_under_its_goal_is_a_missed_goal() {
        // The reused-buffer figure meets its goal; the fresh one (0.5 of its copy) does not.
        let fresh = Some((Duration::from_millis(400), Duration::from_millis(200), FRESH_GOAL));
        let result = measured(100, 200, 125).result(fresh).unwrap();
        assert_eq!(result.fresh.unwrap().ratio, 0.5);
        assert!(!result.meets_goals());
    }

    #[test]
    fn a_figure_of_zero_is_refused_not_printed() {
        // Nothing moved gives 0 GB/s: no measurement.
        let mut zero = measured(100, 200, 125);
        zero.bytes = 0.0;
        assert!(matches!(zero.result(None), Err(BenchError::Meaningless(_))));
    }
}
