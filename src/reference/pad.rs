//! ONNX Pad (versions 1 to 25) and com.microsoft Pad-1: the node's parameters, read and
//! validated by [`PadParams`], planned and padded by the kernel (docs/semantics.md#pad).

use ndarray::ArrayD;

use super::budget::Budget;
use super::pad_kernel::{PadPlan, pad_into, pad_pod_into};
use crate::model::Node;
use crate::operators::params::PadParams;
use crate::operators::{OpError, PadOp};
use crate::tensor::{Element, Tensor};

/// Runs a Pad or com.microsoft Pad node. `inputs[i]` is `None` for an omitted input.
#[cfg(test)]
pub(crate) fn run_pad(node: &Node, op: PadOp, inputs: &[Option<&Tensor>]) -> Result<Tensor, OpError> {
    run_pad_within(node, op, inputs, &Budget::default())
}

/// [`run_pad`] within what is left of a run's memory.
pub(super) fn run_pad_within(
    node: &Node,
    op: PadOp,
    inputs: &[Option<&Tensor>],
    budget: &Budget,
) -> Result<Tensor, OpError> {
    let params = PadParams::read(node, op, inputs)?;
    let data = inputs[0].expect("PadParams::read checked input 0");
    let element_bytes = params
        .constant
        .as_ref()
        .map_or(0, Tensor::max_element_bytes)
        .max(data.max_element_bytes());
    let plan = PadPlan::new(data.shape(), &params.per_axis, params.mode, element_bytes)
        .map_err(|e| OpError::new(node, e.rule(), e.to_string()))?;
    budget.check(
        node,
        plan.out_shape(),
        element_bytes,
        &format!("padding input 0 (data) {:?}", data.shape()),
    )?;
    Ok(pad_tensor(data, &plan, params.constant.as_ref()))
}

/// Pads any tensor by a plan; `constant` (one element of the same type) defaults to zero.
pub(super) fn pad_tensor(data: &Tensor, plan: &PadPlan, constant: Option<&Tensor>) -> Tensor {
    // One match: plain data goes to the kernel that may stream a large output, the rest
    // (strings, bool, the minifloats and sub-byte types) to the generic one.
    match data {
        Tensor::Float(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint8(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int8(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int32(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int64(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::String(a) => padded(a, plan, constant, pad_into),
        Tensor::Bool(a) => padded(a, plan, constant, pad_into),
        Tensor::Float16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Double(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint32(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint64(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Complex64(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Complex128(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Bfloat16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Float8E4M3FN(a) => padded(a, plan, constant, pad_into),
        Tensor::Float8E4M3FNUZ(a) => padded(a, plan, constant, pad_into),
        Tensor::Float8E5M2(a) => padded(a, plan, constant, pad_into),
        Tensor::Float8E5M2FNUZ(a) => padded(a, plan, constant, pad_into),
        Tensor::Uint4(a) => padded(a, plan, constant, pad_into),
        Tensor::Int4(a) => padded(a, plan, constant, pad_into),
        Tensor::Float4E2M1(a) => padded(a, plan, constant, pad_into),
        Tensor::Float8E8M0(a) => padded(a, plan, constant, pad_into),
        Tensor::Uint2(a) => padded(a, plan, constant, pad_into),
        Tensor::Int2(a) => padded(a, plan, constant, pad_into),
    }
}

/// `array` padded by `kernel`, filling with `constant`'s one element or the type's zero.
fn padded<T: Element + Default>(
    array: &ArrayD<T>,
    plan: &PadPlan,
    constant: Option<&Tensor>,
    kernel: fn(&[T], &PadPlan, &T, &mut Vec<T>),
) -> Tensor {
    let fill = constant
        .and_then(|c| c.as_array::<T>())
        .and_then(|a| a.iter().next().cloned())
        .unwrap_or_default();
    let input = array.as_standard_layout();
    let mut out = Vec::new();
    kernel(input.as_slice().expect("standard layout"), plan, &fill, &mut out);
    Tensor::from_vec(plan.out_shape(), out).expect("the plan's shape matches its output")
}
