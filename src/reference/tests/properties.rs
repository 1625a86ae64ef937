//! The kernel against a plain per-element reading of docs/semantics.md, over random shapes
//! (zero-size included), pads (negative and oversized included), modes, axes and dtypes.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

use super::*;
use crate::reference::pad_kernel::{PadMode, PadPlan, PlanError, pad_into};
use crate::tensor::Int4;

/// Why the definition says a padding cannot be done, by the axis that fails first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Refusal {
    NegativeExtent { axis: usize },
    NothingToCopy { axis: usize },
}

impl Refusal {
    fn of(error: &PlanError) -> Refusal {
        match *error {
            PlanError::NegativeExtent { axis, .. } => Refusal::NegativeExtent { axis },
            PlanError::NothingToCopy { axis, .. } => Refusal::NothingToCopy { axis },
            PlanError::TooLarge { .. } | PlanError::TooManyBytes { .. } | PlanError::PlanTooLarge { .. } => {
                panic!("small cases are never too large: {error}")
            }
        }
    }

    /// What an `OpError` message says for this refusal.
    fn message(self) -> String {
        match self {
            Refusal::NegativeExtent { axis } => format!("axis {axis}: extent"),
            Refusal::NothingToCopy { axis } => format!("axis {axis}: "),
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Refusal::NegativeExtent { .. } => "below 0",
            Refusal::NothingToCopy { .. } => "has none left",
        }
    }
}

/// An axis's output extent, or why it has none: extent + begin + end must be ≥ 0, and a
/// mode other than constant needs data left after the removals if it is to produce anything.
fn out_extent(axis: usize, extent: usize, (begin, end): (i64, i64), mode: PadMode) -> Result<usize, Refusal> {
    let out = extent as i64 + begin + end;
    if out < 0 {
        return Err(Refusal::NegativeExtent { axis });
    }
    let remaining = extent as i64 - (-begin).max(0) - (-end).max(0);
    if remaining <= 0 && (begin > 0 || end > 0) && mode != PadMode::Constant {
        return Err(Refusal::NothingToCopy { axis });
    }
    Ok(out as usize)
}

/// The input index output coordinate `o` of an axis reads, or `None` for the constant.
/// Removal first; then the border by mode, by walking (reflect bounces off the ends, wrap
/// goes round) rather than by the kernel's modular arithmetic.
fn source(extent: usize, (begin, end): (i64, i64), mode: PadMode, o: usize) -> Option<usize> {
    let first = (-begin).max(0);
    let n = extent as i64 - first - (-end).max(0);
    if n <= 0 {
        return None;
    }
    let mut j = o as i64 - begin.max(0);
    if !(0..n).contains(&j) {
        match mode {
            PadMode::Constant => return None,
            PadMode::Edge => j = if j < 0 { 0 } else { n - 1 },
            PadMode::Wrap => {
                while j < 0 {
                    j += n;
                }
                while j >= n {
                    j -= n;
                }
            }
            PadMode::Reflect if n == 1 => j = 0,
            PadMode::Reflect => {
                while !(0..n).contains(&j) {
                    j = if j < 0 { -j } else { 2 * (n - 1) - j };
                }
            }
        }
    }
    Some((first + j) as usize)
}

/// Pads element by element: each output element is the input element its coordinates map
/// to, or the constant when any axis maps to nothing.
fn naive_pad<T: Clone>(
    shape: &[usize],
    data: &[T],
    pads: &[(i64, i64)],
    mode: PadMode,
    constant: &T,
) -> Result<(Vec<usize>, Vec<T>), Refusal> {
    let out_shape = (0..shape.len())
        .map(|axis| out_extent(axis, shape[axis], pads[axis], mode))
        .collect::<Result<Vec<_>, _>>()?;
    let total: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(total);
    for flat in 0..total {
        let mut rest = flat;
        let mut index = vec![0; shape.len()];
        for axis in (0..shape.len()).rev() {
            index[axis] = rest % out_shape[axis];
            rest /= out_shape[axis];
        }
        let mut from = Some(0);
        for axis in 0..shape.len() {
            from = from
                .zip(source(shape[axis], pads[axis], mode, index[axis]))
                .map(|(f, i)| f * shape[axis] + i);
        }
        out.push(from.map_or_else(|| constant.clone(), |f| data[f].clone()));
    }
    Ok((out_shape, out))
}

#[test]
fn the_definition_agrees_with_semantics_md() {
    // A check of the checker, on the examples docs/semantics.md spells out.
    let row = |values: &[i32], pads, mode| naive_pad(&[values.len()], values, &[pads], mode, &0).map(|r| r.1);
    assert_eq!(row(&[1, 2, 3, 4], (1, -1), PadMode::Wrap), Ok(vec![3, 1, 2, 3]));
    assert_eq!(row(&[1, 2, 3], (2, 0), PadMode::Reflect), Ok(vec![3, 2, 1, 2, 3]));
    assert_eq!(
        row(&[1, 2, 3], (4, 3), PadMode::Reflect),
        Ok(vec![1, 2, 3, 2, 1, 2, 3, 2, 1, 2])
    );
    assert_eq!(row(&[7], (2, 1), PadMode::Reflect), Ok(vec![7; 4]));
    assert_eq!(row(&[1, 2], (5, 0), PadMode::Wrap), Ok(vec![2, 1, 2, 1, 2, 1, 2]));
    assert_eq!(row(&[1, 2, 3], (-5, 4), PadMode::Constant), Ok(vec![0, 0]));
    assert_eq!(
        row(&[1, 2, 3], (-5, 4), PadMode::Wrap),
        Err(Refusal::NothingToCopy { axis: 0 })
    );
    assert_eq!(
        row(&[1, 2, 3], (-2, -2), PadMode::Constant),
        Err(Refusal::NegativeExtent { axis: 0 })
    );
}

/// A pad amount from removing 5 to adding 7. None is likelier at higher ranks, and a removal
/// rarer than an addition: otherwise outputs at rank 5 and 6 are mostly too large to check
/// or refused.
fn amount(rank: usize) -> impl Strategy<Value = i64> {
    prop_oneof![1 + rank as u32 => Just(0i64), 2 => 1i64..=7, 1 => -5i64..=-1]
}

fn mode() -> impl Strategy<Value = PadMode> {
    prop_oneof![
        Just(PadMode::Constant),
        Just(PadMode::Reflect),
        Just(PadMode::Edge),
        Just(PadMode::Wrap)
    ]
}

#[derive(Clone, Debug)]
struct Padding {
    shape: Vec<usize>,
    pads: Vec<(i64, i64)>,
    mode: PadMode,
}

/// Ranks 0 to 6, extents 0 to 3, outputs of at most 4096 elements so that the per-element
/// definition stays quick.
fn padding() -> impl Strategy<Value = Padding> {
    let extent = prop_oneof![1 => Just(0usize), 4 => 1..4usize];
    (0..=6usize)
        .prop_flat_map(move |rank| {
            (
                vec(extent.clone(), rank),
                vec((amount(rank), amount(rank)), rank),
                mode(),
            )
        })
        .prop_map(|(shape, pads, mode)| Padding { shape, pads, mode })
        .prop_filter("output small enough to build element by element", |p| {
            let extents = p
                .shape
                .iter()
                .zip(&p.pads)
                .map(|(&e, &(b, en))| (e as i64 + b + en).max(0));
            extents.product::<i64>() <= 4096
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn kernel_matches_the_per_element_definition(p in padding()) {
        let len: usize = p.shape.iter().product();
        let data: Vec<i32> = (1..=len as i32).collect();
        let expected = naive_pad(&p.shape, &data, &p.pads, p.mode, &-1);
        match (PadPlan::new(&p.shape, &p.pads, p.mode, 4), expected) {
            (Ok(plan), Ok((shape, values))) => {
                // A used buffer: pad_into must clear it.
                let mut out = vec![99; 5];
                pad_into(&data, &plan, &-1, &mut out);
                prop_assert_eq!(plan.out_shape(), &shape[..]);
                prop_assert_eq!(plan.out_len(), values.len());
                prop_assert_eq!(out, values);
            }
            (Err(error), Err(refusal)) => prop_assert_eq!(Refusal::of(&error), refusal),
            (plan, expected) => prop_assert!(
                false,
                "kernel {:?}, definition {:?}",
                plan.map(|p| p.out_shape().to_vec()),
                expected.map(|e| e.0)
            ),
        }
    }
}

/// Element types of every kind: float, integer, string, bool and sub-byte.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Float,
    Int64,
    String,
    Bool,
    Int4,
}

impl Kind {
    /// The first Pad version accepting the type.
    fn since(self) -> i64 {
        match self {
            Kind::Float | Kind::Int64 => 11,
            Kind::String | Kind::Bool => 13,
            Kind::Int4 => 21,
        }
    }
}

/// Stands for "the zero of the type" among the i64 labels the definition moves.
const ZERO: i64 = i64::MIN;

/// A tensor of `kind` whose elements are labelled by `labels` (`ZERO`: the type's zero).
/// Distinct labels give distinct elements, except for bool.
fn typed(kind: Kind, shape: &[usize], labels: &[i64]) -> Tensor {
    fn each<T: Element + Default>(shape: &[usize], labels: &[i64], f: impl Fn(i64) -> T) -> Tensor {
        tensor(
            shape,
            labels
                .iter()
                .map(|&l| if l == ZERO { T::default() } else { f(l) })
                .collect(),
        )
    }
    match kind {
        Kind::Float => each(shape, labels, |l| l as f32 + 0.5),
        Kind::Int64 => each(shape, labels, |l| l),
        Kind::String => each(shape, labels, |l| format!("s{l}").into_bytes()),
        Kind::Bool => each(shape, labels, |l| l % 2 != 0),
        Kind::Int4 => each(shape, labels, |l| Int4((l.rem_euclid(15) - 7) as i8)),
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Float),
        Just(Kind::Int64),
        Just(Kind::String),
        Just(Kind::Bool),
        Just(Kind::Int4)
    ]
}

#[derive(Clone, Debug)]
struct PadCall {
    padding: Padding,
    kind: Kind,
    /// Listed axes, in the order given, as written (negative counting from the back);
    /// `None`: no axes input.
    axes: Option<Vec<i64>>,
    /// 0: no constant_value; 1: rank 0; 2: shape [1].
    constant: u8,
    version: Index,
}

fn pad_call() -> impl Strategy<Value = PadCall> {
    padding()
        .prop_flat_map(|padding| {
            let rank = padding.shape.len();
            let order = Just((0..rank).collect::<Vec<_>>()).prop_shuffle();
            let axes = (any::<bool>(), vec(any::<bool>(), rank), vec(any::<bool>(), rank), order);
            (Just(padding), kind(), axes, 0..3u8, any::<Index>())
        })
        .prop_map(
            |(mut padding, kind, (use_axes, listed, negative, order), constant, version)| {
                let rank = padding.shape.len();
                let axes = use_axes.then(|| {
                    let axes: Vec<usize> = order.into_iter().filter(|&a| listed[a]).collect();
                    for a in (0..rank).filter(|a| !axes.contains(a)) {
                        padding.pads[a] = (0, 0);
                    }
                    axes.iter()
                        .map(|&a| if negative[a] { a as i64 - rank as i64 } else { a as i64 })
                        .collect()
                });
                PadCall {
                    padding,
                    kind,
                    axes,
                    constant,
                    version,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn run_pad_matches_the_per_element_definition(call in pad_call()) {
        let PadCall { padding: p, kind, axes, constant, version } = call;
        let rank = p.shape.len();
        let versions: Vec<i64> = [11, 13, 18, 19, 21, 23, 24, 25]
            .into_iter()
            .filter(|&v| v >= kind.since())
            .filter(|&v| p.mode != PadMode::Wrap || v >= 19)
            .filter(|&v| axes.is_none() || v >= 18)
            .collect();
        let version = versions[version.index(versions.len())];

        let len: usize = p.shape.iter().product();
        let labels: Vec<i64> = (1..=len as i64).collect();
        let data = typed(kind, &p.shape, &labels);
        let pads_in = match &axes {
            None => p.pads.iter().map(|x| x.0).chain(p.pads.iter().map(|x| x.1)).collect::<Vec<_>>(),
            Some(axes) => {
                let axis = |a: &i64| a.rem_euclid(rank.max(1) as i64) as usize;
                axes.iter().map(|a| p.pads[axis(a)].0).chain(axes.iter().map(|a| p.pads[axis(a)].1)).collect()
            }
        };
        let pads_in = ints(&pads_in);
        let fill_shape: Option<&[usize]> = match constant {
            0 => None,
            1 => Some(&[]),
            _ => Some(&[1]),
        };
        let fill = fill_shape.map(|shape| typed(kind, shape, &[-1]));
        let axes_in = axes.as_deref().map(ints);
        let node = pad_node(version, Some(p.mode.name()));
        let result = pad(&node, &[Some(&data), Some(&pads_in), fill.as_ref(), axes_in.as_ref()]);

        // The constant only counts in constant mode; the type's zero when absent.
        let fill_label = if fill.is_some() && p.mode == PadMode::Constant { -1 } else { ZERO };
        match (result, naive_pad(&p.shape, &labels, &p.pads, p.mode, &fill_label)) {
            (Ok(out), Ok((shape, expected))) => prop_assert_eq!(out, typed(kind, &shape, &expected)),
            (Err(error), Err(refusal)) => {
                let message = error.to_string();
                let start = format!("Pad-{version} \"p\": {}", refusal.message());
                prop_assert!(message.starts_with(&start), "{:?} does not start with {:?}", message, start);
                prop_assert!(message.contains(refusal.phrase()), "{:?} is not about {:?}", message, refusal);
            }
            (result, expected) => prop_assert!(
                false,
                "run_pad {:?}, definition {:?}",
                result.map(|t| t.describe()),
                expected.map(|e| e.0)
            ),
        }
    }
}

/// CenterCropPad per element: a smaller target reads from floor((extent − target) / 2) on, a
/// larger one places the data at floor((target − extent) / 2).
fn naive_center_crop_pad(shape: &[usize], data: &[i64], targets: &[usize]) -> Vec<i64> {
    let total: usize = targets.iter().product();
    (0..total)
        .map(|flat| {
            let mut rest = flat;
            let mut from = 0;
            let mut stride = 1;
            for axis in (0..shape.len()).rev() {
                let o = rest % targets[axis];
                rest /= targets[axis];
                let i = if targets[axis] <= shape[axis] {
                    o + (shape[axis] - targets[axis]) / 2
                } else {
                    match o.checked_sub((targets[axis] - shape[axis]) / 2) {
                        Some(i) if i < shape[axis] => i,
                        _ => return 0,
                    }
                };
                from += i * stride;
                stride *= shape[axis];
            }
            data[from]
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn center_crop_pad_matches_the_per_element_definition(
        (shape, targets) in (0..=4usize).prop_flat_map(|rank| (vec(0..5usize, rank), vec(0..7usize, rank)))
    ) {
        let len: usize = shape.iter().product();
        let data: Vec<i64> = (1..=len as i64).collect();
        let input = tensor(&shape, data.clone());
        let target_in = ints(&targets.iter().map(|&t| t as i64).collect::<Vec<_>>());
        let out = center_crop_pad(&ccp_node(None), &[Some(&input), Some(&target_in)]).unwrap();
        prop_assert_eq!(out, tensor(&targets, naive_center_crop_pad(&shape, &data, &targets)));
    }
}
