//! CenterCropPad-18: crop or pad each listed axis to a target extent, centred. It is a
//! constant pad with zero whose pads come from the extents, so it reuses the pad kernel.

use super::OpError;
use super::pad::{int_values, normalize_axes, pad_tensor};
use super::pad_kernel::{PadMode, PadPlan};
use crate::model::{AttributeValue, Node};
use crate::tensor::Tensor;

/// Runs a CenterCropPad node on `input_data` and `shape`.
pub fn run_center_crop_pad(node: &Node, inputs: &[Option<&Tensor>]) -> Result<Tensor, OpError> {
    let (_, plan) = plan_center_crop_pad(node, inputs)?;
    Ok(pad_tensor(inputs[0].expect("checked by the plan"), &plan, None))
}

/// Validates a CenterCropPad node and works out its (begin, end) pads per axis and plan.
pub fn plan_center_crop_pad(node: &Node, inputs: &[Option<&Tensor>]) -> Result<(Vec<(i64, i64)>, PadPlan), OpError> {
    let refuse = |message: String| OpError::new(node, message);
    if inputs.len() > 2 {
        return Err(refuse(format!("takes 2 inputs, not {}", inputs.len())));
    }
    let data = inputs
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| refuse("input 0 (input_data) is missing".into()))?;
    let shape = inputs
        .get(1)
        .copied()
        .flatten()
        .ok_or_else(|| refuse("input 1 (shape) is missing".into()))?;
    if let Some(a) = node.attributes.iter().find(|a| a.name != "axes") {
        return Err(refuse(format!("does not accept attribute {:?}", a.name)));
    }
    let rank = data.shape().len();
    let axes = match node.attribute("axes") {
        None => (0..rank).collect(),
        Some(AttributeValue::Ints(values)) => {
            normalize_axes(values, rank).map_err(|m| refuse(format!("attribute \"axes\" {m}")))?
        }
        Some(other) => return Err(refuse(format!("attribute \"axes\" must be ints, not {other:?}"))),
    };
    let targets = int_values(shape).ok_or_else(|| {
        refuse(format!(
            "input 1 (shape) must be tensor(int32) or tensor(int64), not tensor({})",
            shape.data_type()
        ))
    })?;
    if shape.shape().len() != 1 || targets.len() != axes.len() {
        return Err(refuse(format!(
            "input 1 (shape) is {:?} of shape {:?}; it must be 1-D with one value per axis ({})",
            targets,
            shape.shape(),
            axes.len()
        )));
    }
    let mut pads = vec![(0i64, 0i64); rank];
    for (&axis, &target) in axes.iter().zip(&targets) {
        if target < 0 {
            return Err(refuse(format!(
                "input 1 (shape) holds {target} for axis {axis}; extents must be ≥ 0"
            )));
        }
        pads[axis] = centered_pads(data.shape()[axis] as i64, target);
    }
    let plan = PadPlan::new(data.shape(), &pads, PadMode::Constant, data.max_element_bytes())
        .map_err(|e| refuse(e.to_string()))?;
    Ok((pads, plan))
}

/// (begin, end) pads taking an axis of `extent` to `target`: the window or the placement
/// starts at floor(difference / 2), so an odd difference puts the extra element at the end.
pub(crate) fn centered_pads(extent: i64, target: i64) -> (i64, i64) {
    let diff = target - extent;
    let begin = if diff >= 0 { diff / 2 } else { -((-diff) / 2) };
    (begin, diff - begin)
}

#[cfg(test)]
mod tests {
    use super::centered_pads;

    #[test]
    fn odd_differences_put_the_extra_element_at_the_end() {
        assert_eq!(centered_pads(10, 7), (-1, -2));
        assert_eq!(centered_pads(7, 10), (1, 2));
        assert_eq!(centered_pads(20, 10), (-5, -5));
        assert_eq!(centered_pads(3, 3), (0, 0));
        assert_eq!(centered_pads(5, 0), (-2, -3));
    }
}
