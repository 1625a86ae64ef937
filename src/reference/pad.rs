//! ONNX Pad (versions 1 to 25) and com.microsoft Pad-1, translated to a [`PadPlan`]. The
//! version rules live in one `match` over [`PadVersion`]; SEMANTICS.md is the specification.

use ndarray::ArrayD;

use super::OpError;
use super::pad_kernel::{PadMode, PadPlan, pad_into};
use crate::model::{AttributeValue, Node, PadOp};
use crate::tensor::{DataType, Element, Float8E8M0, Tensor, Visitor};

/// What one Pad version accepts.
struct PadVersion {
    /// Where pads and the constant come from: attributes (1, 2) or inputs (11+).
    pads_from: PadsFrom,
    axes_input: bool,
    wrap: bool,
    /// com.microsoft Pad also takes pads of shape [1, 2r].
    two_dim_pads: bool,
}

enum PadsFrom {
    /// Pad-1 `paddings` or Pad-2 `pads`, with a float `value`.
    Attribute(&'static str),
    Input,
}

fn version_rules(op: PadOp, version: i64) -> PadVersion {
    let inputs = |axes_input, wrap| PadVersion {
        pads_from: PadsFrom::Input,
        axes_input,
        wrap,
        two_dim_pads: false,
    };
    match (op, version) {
        (PadOp::MicrosoftPad, _) => PadVersion {
            two_dim_pads: true,
            ..inputs(false, false)
        },
        (_, 1) => PadVersion {
            pads_from: PadsFrom::Attribute("paddings"),
            ..inputs(false, false)
        },
        (_, 2) => PadVersion {
            pads_from: PadsFrom::Attribute("pads"),
            ..inputs(false, false)
        },
        (_, 11 | 13) => inputs(false, false),
        (_, 18) => inputs(true, false),
        _ => inputs(true, true),
    }
}

/// The element types a Pad version accepts (SEMANTICS.md, Versions).
pub fn accepts_type(op: PadOp, version: i64, data_type: DataType) -> bool {
    use DataType::*;
    let since = match data_type {
        Float | Double | Float16 => 1,
        Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 => 11,
        Bool | String | Bfloat16 | Complex64 | Complex128 => 13,
        Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Int4 | Uint4 => 21,
        Float4E2M1 => 23,
        Float8E8M0 => 24,
        Int2 | Uint2 => 25,
    };
    match op {
        PadOp::MicrosoftPad => since == 1,
        _ => version >= since,
    }
}

/// Runs a Pad or com.microsoft Pad node. `inputs[i]` is `None` for an omitted input.
pub fn run_pad(node: &Node, op: PadOp, inputs: &[Option<&Tensor>]) -> Result<Tensor, OpError> {
    let planned = plan_pad(node, op, inputs)?;
    Ok(pad_tensor(
        inputs[0].expect("plan_pad checked input 0"),
        &planned.plan,
        planned.constant.as_ref(),
    ))
}

/// A Pad node's inputs and attributes, validated and worked out.
pub struct PlannedPad {
    /// (begin, end) per axis of the data, after applying `axes`.
    pub per_axis: Vec<(i64, i64)>,
    pub plan: PadPlan,
    /// The fill value, when given; zero of the type otherwise.
    pub constant: Option<Tensor>,
}

/// Validates a Pad or com.microsoft Pad node's inputs and attributes against its version and
/// plans the padding.
pub fn plan_pad(node: &Node, op: PadOp, inputs: &[Option<&Tensor>]) -> Result<PlannedPad, OpError> {
    let refuse = |message: String| OpError::new(node, message);
    let rules = version_rules(op, node.version);
    let data = inputs
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| refuse("input 0 (data) is missing".into()))?;
    let data_type = data.data_type();
    if !accepts_type(op, node.version, data_type) {
        return Err(refuse(format!(
            "does not accept tensor({data_type}) for input 0 (data)"
        )));
    }
    let max_inputs = match (&rules.pads_from, rules.axes_input) {
        (PadsFrom::Attribute(_), _) => 1,
        (PadsFrom::Input, false) => 3,
        (PadsFrom::Input, true) => 4,
    };
    if let Some(extra) = (max_inputs..inputs.len()).find(|&i| inputs[i].is_some()) {
        return Err(refuse(format!(
            "does not accept input {extra}: it takes at most {max_inputs} inputs"
        )));
    }
    let allowed_attributes: &[&str] = match rules.pads_from {
        PadsFrom::Attribute(name) => &[name, "value", "mode"],
        PadsFrom::Input => &["mode"],
    };
    if let Some(a) = node
        .attributes
        .iter()
        .find(|a| !allowed_attributes.contains(&a.name.as_str()))
    {
        return Err(refuse(format!("does not accept attribute {:?}", a.name)));
    }
    let mode = mode(node, rules.wrap)?;
    let rank = data.shape().len();

    let (pads, constant, pads_source) = match rules.pads_from {
        PadsFrom::Attribute(name) => {
            let pads = match node.attribute(name) {
                Some(AttributeValue::Ints(v)) => v.clone(),
                Some(other) => return Err(refuse(format!("attribute {name:?} must be ints, not {other:?}"))),
                None => return Err(refuse(format!("attribute {name:?} is missing"))),
            };
            let value = match node.attribute("value") {
                None => 0.0,
                Some(AttributeValue::Float(v)) => *v,
                Some(other) => return Err(refuse(format!("attribute \"value\" must be a float, not {other:?}"))),
            };
            (
                pads,
                Some(float_constant(data_type, value)),
                format!("attribute {name:?}"),
            )
        }
        PadsFrom::Input => {
            let pads = pads_input(node, inputs.get(1).copied().flatten(), rules.two_dim_pads)?;
            let constant = match inputs.get(2).copied().flatten() {
                Some(value) if mode == PadMode::Constant => Some(constant_input(node, value, data_type, op)?),
                _ => default_constant(data_type),
            };
            (pads, constant, "input 1 (pads)".to_owned())
        }
    };
    let axes = match inputs.get(3).copied().flatten() {
        Some(axes) => axes_input(node, axes, rank)?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(refuse(format!(
            "{pads_source} holds {} values {:?}; 2 × {} axes = {} are needed",
            pads.len(),
            pads,
            axes.len(),
            2 * axes.len()
        )));
    }
    let mut per_axis = vec![(0i64, 0i64); rank];
    for (i, &axis) in axes.iter().enumerate() {
        per_axis[axis] = (pads[i], pads[i + axes.len()]);
    }
    let element_bytes = constant
        .as_ref()
        .map_or(0, Tensor::max_element_bytes)
        .max(data.max_element_bytes());
    let plan = PadPlan::new(data.shape(), &per_axis, mode, element_bytes).map_err(|e| refuse(e.to_string()))?;
    Ok(PlannedPad {
        per_axis,
        plan,
        constant,
    })
}

/// The `mode` attribute, checked against the version.
fn mode(node: &Node, wrap_allowed: bool) -> Result<PadMode, OpError> {
    let name = match node.attribute("mode") {
        None => return Ok(PadMode::Constant),
        Some(AttributeValue::String(s)) => String::from_utf8_lossy(s).into_owned(),
        Some(other) => {
            return Err(OpError::new(
                node,
                format!("attribute \"mode\" must be a string, not {other:?}"),
            ));
        }
    };
    match PadMode::from_name(&name) {
        Some(PadMode::Wrap) if !wrap_allowed => Err(OpError::new(
            node,
            "does not accept mode \"wrap\" (Pad-19 and later do)".into(),
        )),
        Some(mode) => Ok(mode),
        None => Err(OpError::new(
            node,
            format!("attribute \"mode\" is {name:?}; expected \"constant\", \"reflect\", \"edge\" or \"wrap\""),
        )),
    }
}

/// Input 1: int64 pads, 1-D (or, for com.microsoft Pad, [1, 2r]).
fn pads_input(node: &Node, pads: Option<&Tensor>, two_dim: bool) -> Result<Vec<i64>, OpError> {
    let pads = pads.ok_or_else(|| OpError::new(node, "input 1 (pads) is missing".into()))?;
    let Tensor::Int64(values) = pads else {
        return Err(OpError::new(
            node,
            format!("input 1 (pads) must be tensor(int64), not tensor({})", pads.data_type()),
        ));
    };
    let shape_ok = match values.shape() {
        [_] => true,
        [1, _] => two_dim,
        _ => false,
    };
    if !shape_ok {
        let expected = if two_dim { "1-D or [1, 2r]" } else { "1-D" };
        return Err(OpError::new(
            node,
            format!("input 1 (pads) has shape {:?}; it must be {expected}", values.shape()),
        ));
    }
    Ok(values.iter().copied().collect())
}

/// Input 2: the constant, of the data's type and holding one element.
fn constant_input(node: &Node, value: &Tensor, data_type: DataType, op: PadOp) -> Result<Tensor, OpError> {
    let name = if op == PadOp::MicrosoftPad {
        "value"
    } else {
        "constant_value"
    };
    if value.data_type() != data_type {
        return Err(OpError::new(
            node,
            format!(
                "input 2 ({name}) is tensor({}) but data is tensor({data_type})",
                value.data_type()
            ),
        ));
    }
    if !matches!(value.shape(), [] | [1]) {
        return Err(OpError::new(
            node,
            format!(
                "input 2 ({name}) has shape {:?}; it must hold one element (rank 0 or [1])",
                value.shape()
            ),
        ));
    }
    Ok(value.clone())
}

/// Input 3: axes, int32 or int64, negative counting from the back, in range and distinct.
fn axes_input(node: &Node, axes: &Tensor, rank: usize) -> Result<Vec<usize>, OpError> {
    let values = int_values(axes).ok_or_else(|| {
        OpError::new(
            node,
            format!(
                "input 3 (axes) must be tensor(int32) or tensor(int64), not tensor({})",
                axes.data_type()
            ),
        )
    })?;
    if axes.shape().len() != 1 {
        return Err(OpError::new(
            node,
            format!("input 3 (axes) has shape {:?}; it must be 1-D", axes.shape()),
        ));
    }
    normalize_axes(&values, rank).map_err(|m| OpError::new(node, format!("input 3 (axes) {m}")))
}

/// Resolves negative axes and checks range and repeats; the message completes "axes ...".
pub(crate) fn normalize_axes(values: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let r = rank as i64;
    let mut axes = Vec::with_capacity(values.len());
    for &a in values {
        if a < -r || a >= r {
            return Err(format!("holds {a}, out of range [{}, {}] for rank {rank}", -r, r - 1));
        }
        let axis = if a < 0 { a + r } else { a } as usize;
        if axes.contains(&axis) {
            return Err(format!("{values:?} name axis {axis} twice"));
        }
        axes.push(axis);
    }
    Ok(axes)
}

/// The values of an int32 or int64 tensor.
pub(crate) fn int_values(t: &Tensor) -> Option<Vec<i64>> {
    match t {
        Tensor::Int64(a) => Some(a.iter().copied().collect()),
        Tensor::Int32(a) => Some(a.iter().map(|&v| v as i64).collect()),
        _ => None,
    }
}

/// The constant when constant_value is absent, where it is not the type's zero bit pattern:
/// float8e8m0 has no zero, and 0 converted to it is NaN (0xFF) — what ONNX's reference
/// evaluator pads with (numpy.pad with constant 0 through ml_dtypes).
fn default_constant(data_type: DataType) -> Option<Tensor> {
    (data_type == DataType::Float8E8M0)
        .then(|| Tensor::from_vec(&[], vec![Float8E8M0::from_bits(0xFF)]).expect("a scalar has one element"))
}

/// Pad-1/2's float `value` attribute as a one-element tensor of the data's type (float,
/// double or float16: the only types those versions accept).
fn float_constant(data_type: DataType, value: f32) -> Tensor {
    match data_type {
        DataType::Double => Tensor::from_vec(&[], vec![value as f64]),
        DataType::Float16 => Tensor::from_vec(&[], vec![half::f16::from_f32(value)]),
        _ => Tensor::from_vec(&[], vec![value]),
    }
    .expect("a scalar has one element")
}

/// Pads any tensor by a plan; `constant` (one element of the same type) defaults to zero.
pub fn pad_tensor(data: &Tensor, plan: &PadPlan, constant: Option<&Tensor>) -> Tensor {
    use super::pad_kernel::pad_pod_into;

    type Kernel<T> = fn(&[T], &PadPlan, &T, &mut Vec<T>);
    /// `array` padded by `kernel`.
    fn padded<T: Element>(array: &ArrayD<T>, plan: &PadPlan, constant: Option<&Tensor>, kernel: Kernel<T>) -> Tensor {
        let fill = constant
            .and_then(|c| c.as_array::<T>())
            .and_then(|a| a.iter().next().cloned())
            .unwrap_or_default();
        let input = array.as_standard_layout();
        let mut out = Vec::new();
        kernel(input.as_slice().expect("standard layout"), plan, &fill, &mut out);
        Tensor::from_vec(plan.out_shape(), out).expect("the plan's shape matches its output")
    }
    struct Pad<'a> {
        plan: &'a PadPlan,
        constant: Option<&'a Tensor>,
    }
    impl Visitor<'_> for Pad<'_> {
        type Output = Tensor;
        fn visit<T: Element>(self, array: &ArrayD<T>) -> Tensor {
            padded(array, self.plan, self.constant, pad_into)
        }
    }
    // Plain data goes to the kernel that may stream a large output; the rest (strings, bool,
    // the minifloats and sub-byte types) to the generic one.
    match data {
        Tensor::Float(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint8(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int8(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int32(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Int64(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Float16(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Double(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint32(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Uint64(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Complex64(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Complex128(a) => padded(a, plan, constant, pad_pod_into),
        Tensor::Bfloat16(a) => padded(a, plan, constant, pad_pod_into),
        _ => data.visit(Pad { plan, constant }),
    }
}
