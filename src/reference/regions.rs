//! Where an output index of a Pad-family model falls (interior, or the padding of which axis),
//! so a mismatch report can say which rule the backend got wrong.

use super::center_crop_pad::plan_center_crop_pad;
use super::pad::plan_pad;
use crate::compare::PadRegions;
use crate::model::{Model, PadOp};
use crate::tensor::Tensor;

/// The regions of the output of a single-node Pad-family model whose inputs are the graph's
/// inputs; `None` for other graphs (such as the `_expanded` function bodies) or invalid nodes.
pub fn pad_regions(model: &Model, inputs: &[Tensor]) -> Option<PadRegions> {
    let [node] = model.graph.nodes.as_slice() else {
        return None;
    };
    let op = node.pad_op()?;
    let value = |name: &String| -> Option<Option<&Tensor>> {
        if name.is_empty() {
            return Some(None);
        }
        let position = model.graph.inputs.iter().position(|n| n == name);
        match position {
            Some(i) => inputs.get(i).map(Some),
            None => model
                .graph
                .initializers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| Some(t)),
        }
    };
    let node_inputs = node.inputs.iter().map(value).collect::<Option<Vec<_>>>()?;
    let (pads, plan) = match op {
        PadOp::CenterCropPad => plan_center_crop_pad(node, &node_inputs).ok()?,
        _ => {
            let planned = plan_pad(node, op, &node_inputs).ok()?;
            (planned.per_axis, planned.plan)
        }
    };
    Some(PadRegions {
        pads,
        out_shape: plan.out_shape().to_vec(),
    })
}
