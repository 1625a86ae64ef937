//! CenterCropPad-18: crop or pad each listed axis to a target extent, centred. It is a
//! constant pad with zero whose pads come from the extents, so it reuses the pad kernel
//! (docs/semantics.md#centercroppad).

use super::budget::Budget;
use super::pad::pad_tensor;
use super::pad_kernel::PadPlan;
use crate::model::Node;
use crate::operators::params::center_crop_pads;
use crate::operators::{OpError, PadMode};
use crate::tensor::Tensor;

/// Runs a CenterCropPad node on `input_data` and `shape`.
#[cfg(test)]
pub(crate) fn run_center_crop_pad(node: &Node, inputs: &[Option<&Tensor>]) -> Result<Tensor, OpError> {
    run_center_crop_pad_within(node, inputs, &Budget::default())
}

/// [`run_center_crop_pad`] within what is left of a run's memory.
pub(super) fn run_center_crop_pad_within(
    node: &Node,
    inputs: &[Option<&Tensor>],
    budget: &Budget,
) -> Result<Tensor, OpError> {
    let pads = center_crop_pads(node, inputs)?;
    let data = inputs[0].expect("center_crop_pads checked input 0");
    let plan = PadPlan::new(data.shape(), &pads, PadMode::Constant, data.max_element_bytes())
        .map_err(|e| OpError::new(node, e.rule(), e.to_string()))?;
    budget.check(
        node,
        plan.out_shape(),
        data.max_element_bytes(),
        &format!("input 0 (input_data) {:?}", data.shape()),
    )?;
    Ok(pad_tensor(data, &plan, None))
}
