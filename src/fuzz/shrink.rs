//! Shrinking a disagreement: simpler cases — fewer axes, smaller extents, smaller pads, no
//! optional inputs — are tried in turn, and one is kept only when it shows the same root
//! cause on the same or a stronger basis (never a spec finding shrunk into a project rule's
//! or an undefined corner's), until nothing simpler does or the run budget is spent. An
//! encoding finding shrinks in its own form, to a case whose plain form is still answered
//! correctly.

use std::collections::BTreeMap;
use std::path::Path;

use ndarray::{ArrayD, Axis, Slice};

use super::case::FuzzCase;
use super::encoding::Encoding;
use super::error::FuzzError;
use super::evaluate::{Evaluation, evaluate};
use super::finding::{Finding, Site};
use super::options::{FuzzOptions, Reencode};
use crate::backend::Driven;
use crate::judge::cause_key::CauseKey;
use crate::operators::PadOp;
use crate::tensor::{Element, Tensor, Visitor};

/// The smallest case found that shows `target` (in its encoding), starting from case
/// `index`, `case`.
pub(super) fn shrink(
    backend: &dyn Driven,
    (index, case): (u64, FuzzCase),
    evaluation: Evaluation,
    target: &(Encoding, CauseKey),
    scratch: &Path,
    options: &FuzzOptions,
) -> Result<Finding, FuzzError> {
    let (original, drawn_basis) = (case.clone(), evaluation.basis.kind);
    let (mut best, mut best_evaluation) = (case, evaluation);
    let mut runs = 0;
    // Cancelled (or past the run's time): the best case so far stands.
    'simpler: while runs < options.shrink_runs && !options.cancel.is_cancelled() {
        for candidate in simpler(&best) {
            if runs >= options.shrink_runs {
                break 'simpler;
            }
            runs += 1;
            let evaluation = evaluate(
                backend,
                &candidate,
                scratch,
                &options.check,
                Reencode::Exactly(target.0),
            )?;
            if options.cancel.is_cancelled() {
                break 'simpler;
            }
            if shows(&evaluation, target) && evaluation.basis.kind <= best_evaluation.basis.kind {
                best = candidate;
                best_evaluation = evaluation;
                continue 'simpler;
            }
        }
        break;
    }
    let (message, encoded_model) = match (best_evaluation.disagreement, best_evaluation.encoded) {
        (Some((_, message)), _) => (message, None),
        (None, Some(encoded)) => (encoded.message, Some(encoded.model)),
        (None, None) => (String::new(), None),
    };
    Ok(Finding {
        key: target.1.clone(),
        encoding: target.0,
        encoded_model,
        seen_in: BTreeMap::from([(Site::of(&original), 1)]),
        case: best,
        original,
        case_index: index,
        drawn_basis,
        expected: best_evaluation.expected,
        basis: best_evaluation.basis,
        rules: best_evaluation.rules,
        message,
        hits: 1,
    })
}

/// Whether `evaluation` shows the root cause `target` in its encoding (and, for an
/// encoding finding, nothing in the plain form).
fn shows(evaluation: &Evaluation, target: &(Encoding, CauseKey)) -> bool {
    evaluation.shows() == Some((target.0, &target.1))
}

/// Cases one step simpler than `case`, simplest steps first.
fn simpler(case: &FuzzCase) -> Vec<FuzzCase> {
    let mut out = Vec::new();
    let rank = case.data.shape().len();
    // Fewer axes.
    for axis in 0..rank {
        if let Some(smaller) = without_axis(case, axis) {
            out.push(smaller);
        }
    }
    // No optional inputs, plain forms.
    if case.constant.is_some() {
        out.push(FuzzCase {
            constant: None,
            ..case.clone()
        });
    }
    if case.int32_indices {
        out.push(FuzzCase {
            int32_indices: false,
            ..case.clone()
        });
    }
    if let Some(axes) = &case.axes
        && case.operator.op != PadOp::CenterCropPad
        && axes
            .iter()
            .enumerate()
            .all(|(i, &a)| a.rem_euclid(rank.max(1) as i64) == i as i64)
        && axes.len() == rank
    {
        out.push(FuzzCase {
            axes: None,
            ..case.clone()
        });
    }
    // Smaller extents.
    for axis in 0..rank {
        let extent = case.data.shape()[axis];
        for smaller in [extent / 2, extent.saturating_sub(1)] {
            if smaller < extent {
                out.push(FuzzCase {
                    data: truncated(&case.data, axis, smaller),
                    ..case.clone()
                });
            }
        }
    }
    // Smaller pads (or targets nearer the extent).
    for i in 0..case.pads.len() {
        let pad = case.pads[i];
        for smaller in [pad / 2, pad - pad.signum()] {
            if smaller != pad {
                let mut pads = case.pads.clone();
                pads[i] = smaller;
                out.push(FuzzCase { pads, ..case.clone() });
            }
        }
    }
    out
}

/// `case` without `axis`: the data's first slice along it, and its pads (and axes entry)
/// gone. `None` when the axis is empty or its removal would change what the case means.
fn without_axis(case: &FuzzCase, axis: usize) -> Option<FuzzCase> {
    let dims = case.data.shape();
    let rank = dims.len();
    if dims[axis] == 0 {
        return None;
    }
    let data = first_slice(&case.data, axis);
    let normalize = |a: i64| a.rem_euclid(rank as i64) as usize;
    let (pads, axes) = match (&case.axes, case.operator.op) {
        (None, PadOp::CenterCropPad) => {
            let mut pads = case.pads.clone();
            (axis < pads.len()).then(|| pads.remove(axis))?;
            (pads, None)
        }
        (None, _) => {
            if case.pads.len() != 2 * rank {
                return None;
            }
            let pads = (0..2 * rank)
                .filter(|&i| i % rank != axis)
                .map(|i| case.pads[i])
                .collect();
            (pads, None)
        }
        (Some(axes), op) => {
            let listed: Vec<usize> = axes.iter().map(|&a| normalize(a)).collect();
            let keep: Vec<usize> = (0..listed.len()).filter(|&i| listed[i] != axis).collect();
            let renumber = |a: usize| (if a > axis { a - 1 } else { a }) as i64;
            let new_axes: Vec<i64> = keep.iter().map(|&i| renumber(listed[i])).collect();
            let pads = if op == PadOp::CenterCropPad {
                keep.iter()
                    .map(|&i| case.pads.get(i).copied())
                    .collect::<Option<Vec<i64>>>()?
            } else {
                let n = listed.len();
                if case.pads.len() != 2 * n {
                    return None;
                }
                keep.iter()
                    .map(|&i| case.pads[i])
                    .chain(keep.iter().map(|&i| case.pads[i + n]))
                    .collect()
            };
            (pads, (!new_axes.is_empty()).then_some(new_axes))
        }
    };
    Some(FuzzCase {
        data,
        pads,
        axes,
        ..case.clone()
    })
}

/// The first slice of `tensor` along `axis` (which must not be empty).
fn first_slice(tensor: &Tensor, axis: usize) -> Tensor {
    struct First(usize);
    impl Visitor<'_> for First {
        type Output = Tensor;
        fn visit<T: Element>(self, a: &ArrayD<T>) -> Tensor {
            Tensor::from_array(a.index_axis(Axis(self.0), 0).to_owned())
        }
    }
    tensor.visit(First(axis))
}

/// `tensor` with `axis` cut to its first `extent` elements.
fn truncated(tensor: &Tensor, axis: usize, extent: usize) -> Tensor {
    struct Cut(usize, usize);
    impl Visitor<'_> for Cut {
        type Output = Tensor;
        fn visit<T: Element>(self, a: &ArrayD<T>) -> Tensor {
            Tensor::from_array(a.slice_axis(Axis(self.0), Slice::from(0..self.1)).to_owned())
        }
    }
    tensor.visit(Cut(axis, extent))
}
