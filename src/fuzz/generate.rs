//! Random Pad-family configurations, drawn from the operator table (src/operators): every
//! version, element type and mode it allows, ranks 0–6, mostly small extents with a share of
//! large inner ones, pads from −extent−2 to 2·extent+2, axes subsets with negative and
//! unsorted values, the constant absent, rank 0 or [1], attribute forms for Pad-1/2 — and a
//! configurable share of configurations that must be refused.

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::case::FuzzCase;
use super::values::{random_constant, random_tensor};
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::tensor::DataType;

/// What the generator draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// The most elements a data input or output may have.
    pub max_elements: usize,
    /// The share of configurations that must be refused (0 to 1).
    pub refusals: f64,
}

impl Shape {
    /// The largest `max_elements` a run accepts: 16 Mi elements, a tensor of 256 MiB at
    /// most (complex128), so that no case drawn is an allocation the machine cannot make.
    pub const MAX_ELEMENTS: usize = 1 << 24;
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            max_elements: 65_536,
            refusals: 0.15,
        }
    }
}

/// One random configuration.
pub(super) fn generate(rng: &mut ChaCha8Rng, shape: &Shape) -> FuzzCase {
    let operators: Vec<OpVersion> = OpVersion::all().collect();
    let operator = operators[rng.random_range(0..operators.len())];
    let dtypes: Vec<DataType> = operator.data_types().collect();
    let dtype = dtypes[rng.random_range(0..dtypes.len())];
    let dims = random_shape(rng, shape.max_elements);
    let mut case = match operator.op {
        PadOp::CenterCropPad => center_crop_pad(rng, operator, dtype, &dims),
        _ => pad(rng, operator, dtype, &dims),
    };
    bound_output(&mut case, shape.max_elements);
    if rng.random_bool(shape.refusals) {
        invalidate(rng, &mut case);
    }
    case
}

/// Ranks 0–6, extents 0–8 mostly, and now and then one large inner extent.
fn random_shape(rng: &mut ChaCha8Rng, max_elements: usize) -> Vec<usize> {
    let rank = match rng.random_range(0..20) {
        0 => 0,
        1..=5 => 1,
        6..=11 => 2,
        12..=15 => 3,
        16..=17 => 4,
        18 => 5,
        _ => 6,
    };
    let mut dims: Vec<usize> = (0..rank)
        .map(|_| {
            if rng.random_bool(0.05) {
                0
            } else {
                rng.random_range(1..=8)
            }
        })
        .collect();
    if rank > 0 && rng.random_bool(0.05) {
        let others: usize = dims[..rank - 1].iter().product::<usize>().max(1);
        let room = (max_elements / others).max(1);
        dims[rank - 1] = rng.random_range(1..=room);
    }
    dims
}

/// A pad for an axis of `extent`: small mostly, from −extent−2 to 2·extent+2.
fn random_pad(rng: &mut ChaCha8Rng, extent: usize) -> i64 {
    let extent = extent as i64;
    if rng.random_bool(0.6) {
        rng.random_range(0..=2)
    } else {
        rng.random_range(-extent - 2..=2 * extent + 2)
    }
}

fn pad(rng: &mut ChaCha8Rng, operator: OpVersion, dtype: DataType, dims: &[usize]) -> FuzzCase {
    let modes = operator.modes();
    let mode = modes[rng.random_range(0..modes.len())];
    let rank = dims.len();
    let has_axes_input = operator.inputs().contains(&"axes");
    let axes = (has_axes_input && rank > 0 && rng.random_bool(0.3)).then(|| {
        let mut all: Vec<usize> = (0..rank).collect();
        all.shuffle(rng);
        let count = rng.random_range(1..=rank);
        all[..count]
            .iter()
            .map(|&a| {
                if rng.random_bool(0.5) {
                    a as i64 - rank as i64
                } else {
                    a as i64
                }
            })
            .collect::<Vec<i64>>()
    });
    let padded: Vec<usize> = match &axes {
        Some(axes) => axes.iter().map(|&a| a.rem_euclid(rank as i64) as usize).collect(),
        None => (0..rank).collect(),
    };
    let begins: Vec<i64> = padded.iter().map(|&a| random_pad(rng, dims[a])).collect();
    let ends: Vec<i64> = padded.iter().map(|&a| random_pad(rng, dims[a])).collect();
    let attribute_style = operator.op == PadOp::Pad && operator.version <= 2;
    let constant = match rng.random_range(0..5) {
        0 | 1 => None,
        2 | 3 => Some(random_constant(dtype, &[], rng)),
        _ if attribute_style => Some(random_constant(dtype, &[], rng)),
        _ => Some(random_constant(dtype, &[1], rng)),
    };
    FuzzCase {
        operator,
        // constant is the default: sometimes said, sometimes left out.
        mode: (mode != PadMode::Constant || rng.random_bool(0.5)).then(|| mode.name().to_owned()),
        data: random_tensor(dtype, dims, rng),
        pads: [begins, ends].concat(),
        pads_2d: operator.op == PadOp::MicrosoftPad && rng.random_bool(0.3),
        constant,
        axes,
        int32_indices: rng.random_bool(0.3),
    }
}

fn center_crop_pad(rng: &mut ChaCha8Rng, operator: OpVersion, dtype: DataType, dims: &[usize]) -> FuzzCase {
    let rank = dims.len();
    let axes = (rank > 0 && rng.random_bool(0.3)).then(|| {
        let mut all: Vec<i64> = (0..rank as i64).collect();
        all.shuffle(rng);
        let count = rng.random_range(1..=rank);
        all.truncate(count);
        all.iter_mut().for_each(|a| {
            if rng.random_bool(0.5) {
                *a -= rank as i64;
            }
        });
        all
    });
    let listed: Vec<usize> = match &axes {
        Some(axes) => axes.iter().map(|&a| a.rem_euclid(rank as i64) as usize).collect(),
        None => (0..rank).collect(),
    };
    let targets = listed
        .iter()
        .map(|&a| rng.random_range(0..=2 * dims[a] as i64 + 2))
        .collect();
    FuzzCase {
        operator,
        mode: None,
        data: random_tensor(dtype, dims, rng),
        pads: targets,
        pads_2d: false,
        constant: None,
        axes,
        int32_indices: rng.random_bool(0.5),
    }
}

/// Halves positive pads (or targets) until the output holds at most `max_elements`, so that
/// a case stays cheap whatever the draw; pads of 1 go to 0 last, when halving is done and the
/// output is still too large (an empty axis padded by 1 beside a large extent).
fn bound_output(case: &mut FuzzCase, max_elements: usize) {
    for _ in 0..64 {
        if output_elements(case) <= max_elements as u128 {
            return;
        }
        let halving = case.pads.iter().any(|&p| p > 1);
        for pad in &mut case.pads {
            if *pad > 1 || (*pad == 1 && !halving) {
                *pad /= 2;
            }
        }
    }
}

/// The output's element count, by the pads or targets as given (cases that must be refused
/// may give nonsense: count it as large).
fn output_elements(case: &FuzzCase) -> u128 {
    let dims = case.data.shape();
    let rank = dims.len();
    let mut out: Vec<i128> = dims.iter().map(|&d| d as i128).collect();
    let listed: Vec<usize> = match &case.axes {
        Some(axes) if rank > 0 => axes.iter().map(|&a| a.rem_euclid(rank as i64) as usize).collect(),
        _ => (0..rank).collect(),
    };
    if case.operator.op == PadOp::CenterCropPad {
        for (&axis, &target) in listed.iter().zip(&case.pads) {
            out[axis] = target as i128;
        }
    } else if case.pads.len() == 2 * listed.len() {
        for (i, &axis) in listed.iter().enumerate() {
            out[axis] += case.pads[i] as i128 + case.pads[i + listed.len()] as i128;
        }
    }
    out.iter().map(|&d| d.max(0) as u128).product()
}

/// Turns a valid configuration into one the spec or a project rule refuses: one of the
/// refusals of docs/semantics.md that applies to this operator version.
fn invalidate(rng: &mut ChaCha8Rng, case: &mut FuzzCase) {
    let op = case.operator;
    let rank = case.data.shape().len();
    for _ in 0..16 {
        let done = match rng.random_range(0..10) {
            // An element type the version does not accept.
            0 => {
                let refused: Vec<DataType> = DataType::ALL.into_iter().filter(|&t| !op.accepts(t)).collect();
                !refused.is_empty() && {
                    let dtype = refused[rng.random_range(0..refused.len())];
                    case.data = random_tensor(dtype, case.data.shape(), rng);
                    case.constant = case.constant.take().map(|c| random_constant(dtype, c.shape(), rng));
                    true
                }
            }
            // A mode the version does not know.
            1 if op.op != PadOp::CenterCropPad => {
                case.mode = Some(if op.modes().contains(&PadMode::Wrap) || rng.random_bool(0.5) {
                    "symmetric".to_owned()
                } else {
                    "wrap".to_owned()
                });
                true
            }
            // An axis out of range, or repeated.
            2 if rank > 0 && case.axes.is_some() => {
                let axes = case.axes.as_mut().expect("checked");
                if rng.random_bool(0.5) || axes.len() < 2 {
                    axes[0] = if rng.random_bool(0.5) {
                        rank as i64
                    } else {
                        -(rank as i64) - 1
                    };
                } else {
                    axes[1] = axes[0] - rank as i64 * i64::from(axes[0] >= 0);
                }
                true
            }
            // pads (or targets) of the wrong length.
            3 if op.op != PadOp::CenterCropPad || !case.pads.is_empty() => {
                if rng.random_bool(0.5) || case.pads.is_empty() {
                    case.pads.push(1);
                } else {
                    case.pads.pop();
                }
                true
            }
            // 2-D pads where only com.microsoft Pad takes them.
            4 if op.op == PadOp::Pad && op.version >= 11 => {
                case.pads_2d = true;
                true
            }
            // A constant of another type, or of more than one element.
            5 if op.op != PadOp::CenterCropPad && !(op.op == PadOp::Pad && op.version <= 2) => {
                let dtype = case.data.data_type();
                case.constant = Some(if rng.random_bool(0.5) {
                    let other = if dtype == DataType::Int64 {
                        DataType::Int32
                    } else {
                        DataType::Int64
                    };
                    random_tensor(other, &[], rng)
                } else {
                    case.mode = Some("constant".into());
                    random_tensor(dtype, if rng.random_bool(0.5) { &[2] } else { &[1, 1] }, rng)
                });
                true
            }
            // An output extent below zero.
            6 if rank > 0 && op.op != PadOp::CenterCropPad && case.axes.is_none() => {
                let axis = rng.random_range(0..rank);
                case.pads[axis] = -(case.data.shape()[axis] as i64) - 1;
                case.pads[axis + rank] = 0;
                true
            }
            // edge, reflect or wrap with an axis left empty and a positive pad.
            7 if rank > 0 && op.op != PadOp::CenterCropPad && case.axes.is_none() => {
                let modes: Vec<&PadMode> = op.modes().iter().filter(|m| **m != PadMode::Constant).collect();
                let axis = rng.random_range(0..rank);
                let extent = case.data.shape()[axis] as i64;
                case.mode = Some(modes[rng.random_range(0..modes.len())].name().to_owned());
                case.pads[axis] = 1;
                case.pads[axis + rank] = -extent - rng.random_range(0..=1);
                true
            }
            // axes before Pad-18.
            8 if op.op == PadOp::Pad && (11..18).contains(&op.version) && rank > 0 => {
                case.axes = Some((0..rank as i64).collect());
                true
            }
            // A negative CenterCropPad target.
            9 if op.op == PadOp::CenterCropPad && !case.pads.is_empty() => {
                case.pads[0] = -1 - rng.random_range(0..3);
                true
            }
            _ => false,
        };
        if done {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;

    fn pad_case(dims: &[usize], pads: Vec<i64>) -> FuzzCase {
        let elements = dims.iter().product();
        FuzzCase {
            operator: OpVersion::all()
                .find(|o| o.op == PadOp::Pad && o.version == 25)
                .expect("Pad-25"),
            mode: None,
            data: Tensor::from_vec(dims, vec![0f32; elements]).expect("the shape holds the values"),
            pads,
            pads_2d: false,
            constant: None,
            axes: None,
            int32_indices: false,
        }
    }

    #[test]
    fn pads_of_one_are_kept_when_halving_the_others_is_enough() {
        let mut case = pad_case(&[1, 30_000], vec![2, 0, 0, 0]);
        bound_output(&mut case, 65_536);
        assert_eq!(case.pads, [1, 0, 0, 0]);
    }

    #[test]
    fn an_empty_axis_padded_beside_a_large_extent_is_bounded_too() {
        // An empty input has room for any inner extent; padding its empty axis by 1 on each
        // side made outputs of gigabytes, which halving alone never brought down.
        let mut case = pad_case(&[0, 60_000], vec![1, 0, 1, 0]);
        bound_output(&mut case, 65_536);
        assert_eq!(case.pads, [0, 0, 0, 0]);
        let mut case = pad_case(&[1, 50_000], vec![4, 0, 4, 0]);
        bound_output(&mut case, 65_536);
        assert_eq!(case.pads, [0, 0, 0, 0]);
    }
}
