//! Reading a Pad-family node's parameters — mode, pads per axis, constant, target shape — from
//! its attributes and inputs, validated against its row of the table. The reference evaluator
//! pads by them; the mismatch report's regions are computed from them.

use super::{OpError, OpVersion, PadMode, PadOp, PadsFrom, Rule};
use crate::model::{AttributeValue, Node};
use crate::tensor::{DataType, Float8E8M0, Tensor};

/// A Pad or com.microsoft Pad node's parameters, validated.
#[derive(Clone, Debug)]
pub(crate) struct PadParams {
    /// The `mode` attribute (constant when absent).
    pub mode: PadMode,
    /// (begin, end) per axis of the data, after applying `axes`.
    pub per_axis: Vec<(i64, i64)>,
    /// The fill value, when given; zero of the type otherwise.
    pub constant: Option<Tensor>,
}

impl PadParams {
    /// Validates a Pad or com.microsoft Pad node's inputs and attributes against its version.
    /// `inputs[i]` is `None` for an omitted input. A refusal names the first rule broken, in
    /// its message, and every other rule the node breaks independently of it
    /// ([`OpError::also`]), so that a backend naming any of them names a right one.
    pub(crate) fn read(node: &Node, op: PadOp, inputs: &[Option<&Tensor>]) -> Result<PadParams, OpError> {
        Self::read_first(node, op, inputs).map_err(|mut error| {
            for rule in other_rules(node, op, inputs) {
                if rule != error.rule && !error.also.contains(&rule) {
                    error.also.push(rule);
                }
            }
            error
        })
    }

    /// [`read`](Self::read), stopping at the first rule broken.
    fn read_first(node: &Node, op: PadOp, inputs: &[Option<&Tensor>]) -> Result<PadParams, OpError> {
        let refuse = |rule: Rule, message: String| OpError::new(node, rule, message);
        let row = OpVersion {
            op,
            version: node.version,
        };
        let data = inputs
            .first()
            .copied()
            .flatten()
            .ok_or_else(|| refuse(Rule::MissingInput, "input 0 (data) is missing".into()))?;
        let data_type = data.data_type();
        if !row.accepts(data_type) {
            return Err(refuse(
                Rule::DataType,
                format!("does not accept tensor({data_type}) for input 0 (data)"),
            ));
        }
        let max_inputs = row.inputs().len();
        if let Some(extra) = (max_inputs..inputs.len()).find(|&i| inputs[i].is_some()) {
            return Err(refuse(
                Rule::ExtraInput,
                format!("does not accept input {extra}: it takes at most {max_inputs} inputs"),
            ));
        }
        if let Some(a) = node
            .attributes
            .iter()
            .find(|a| !row.attributes().contains(&a.name.as_str()))
        {
            return Err(refuse(
                Rule::UnknownAttribute,
                format!("does not accept attribute {:?}", a.name),
            ));
        }
        let mode = mode(node, row.modes())?;
        let rank = data.shape().len();

        let constant_input = inputs.get(2).copied().flatten();
        if let Some(value) = constant_input {
            // The type constraint binds in every mode, though only constant uses the value.
            check_constant_type(node, value, data_type, op)?;
        }
        let (pads, constant, pads_source) = match row.pads_from() {
            PadsFrom::Attribute(name) => {
                let pads = match node.attribute(name) {
                    Some(AttributeValue::Ints(v)) => v.clone(),
                    Some(other) => {
                        return Err(refuse(
                            Rule::AttributeType,
                            format!("attribute {name:?} must be ints, not {other:?}"),
                        ));
                    }
                    None => return Err(refuse(Rule::MissingInput, format!("attribute {name:?} is missing"))),
                };
                let value = match node.attribute("value") {
                    None => 0.0,
                    Some(AttributeValue::Float(v)) => *v,
                    Some(other) => {
                        return Err(refuse(
                            Rule::AttributeType,
                            format!("attribute \"value\" must be a float, not {other:?}"),
                        ));
                    }
                };
                (
                    pads,
                    Some(float_constant(data_type, value)),
                    format!("attribute {name:?}"),
                )
            }
            PadsFrom::Input => {
                let pads = pads_input(node, inputs.get(1).copied().flatten(), row.two_dim_pads())?;
                let constant = match constant_input {
                    Some(value) if mode == PadMode::Constant => Some(one_element(node, value, op)?),
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
            return Err(refuse(
                Rule::PadsLength,
                format!(
                    "{pads_source} holds {} values {}; 2 × {} axes = {} are needed",
                    pads.len(),
                    abbreviated(&pads),
                    axes.len(),
                    2 * axes.len()
                ),
            ));
        }
        let mut per_axis = vec![(0i64, 0i64); rank];
        for (i, &axis) in axes.iter().enumerate() {
            per_axis[axis] = (pads[i], pads[i + axes.len()]);
        }
        Ok(PadParams {
            mode,
            per_axis,
            constant,
        })
    }
}

/// The rules a Pad node breaks that can be told apart without its parameters being valid:
/// the data's type, extra inputs, unknown attributes, the mode, constant_value's type, pads'
/// and axes' types and shapes, axes out of range or repeated.
fn other_rules(node: &Node, op: PadOp, inputs: &[Option<&Tensor>]) -> Vec<Rule> {
    let row = OpVersion {
        op,
        version: node.version,
    };
    let Some(data) = inputs.first().copied().flatten() else {
        return Vec::new();
    };
    let input = |i: usize| inputs.get(i).copied().flatten();
    let mut rules = Vec::new();
    if !row.accepts(data.data_type()) {
        rules.push(Rule::DataType);
    }
    if (row.inputs().len()..inputs.len()).any(|i| inputs[i].is_some()) {
        rules.push(Rule::ExtraInput);
    }
    if node
        .attributes
        .iter()
        .any(|a| !row.attributes().contains(&a.name.as_str()))
    {
        rules.push(Rule::UnknownAttribute);
    }
    if let Err(error) = mode(node, row.modes()) {
        rules.push(error.rule);
    }
    if let Some(value) = input(2)
        && value.data_type() != data.data_type()
    {
        rules.push(Rule::ConstantType);
    }
    if row.pads_from() == PadsFrom::Input
        && let Err(error) = pads_input(node, input(1), row.two_dim_pads())
    {
        rules.push(error.rule);
    }
    if row.inputs().len() > 3
        && let Some(axes) = input(3)
        && let Err(error) = axes_input(node, axes, data.shape().len())
    {
        rules.push(error.rule);
    }
    rules
}

/// A CenterCropPad node's parameters, validated: the (begin, end) pads per axis that take
/// each listed axis to its target extent (negative: cropped).
pub(crate) fn center_crop_pads(node: &Node, inputs: &[Option<&Tensor>]) -> Result<Vec<(i64, i64)>, OpError> {
    let refuse = |rule: Rule, message: String| OpError::new(node, rule, message);
    let row = OpVersion {
        op: PadOp::CenterCropPad,
        version: node.version,
    };
    if inputs.len() > row.inputs().len() {
        return Err(refuse(
            Rule::ExtraInput,
            format!("takes 2 inputs, not {}", inputs.len()),
        ));
    }
    let data = inputs
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| refuse(Rule::MissingInput, "input 0 (input_data) is missing".into()))?;
    if !row.accepts(data.data_type()) {
        return Err(refuse(
            Rule::DataType,
            format!("does not accept tensor({}) for input 0 (input_data)", data.data_type()),
        ));
    }
    let shape = inputs
        .get(1)
        .copied()
        .flatten()
        .ok_or_else(|| refuse(Rule::MissingInput, "input 1 (shape) is missing".into()))?;
    if let Some(a) = node
        .attributes
        .iter()
        .find(|a| !row.attributes().contains(&a.name.as_str()))
    {
        return Err(refuse(
            Rule::UnknownAttribute,
            format!("does not accept attribute {:?}", a.name),
        ));
    }
    let rank = data.shape().len();
    let axes = match node.attribute("axes") {
        None => (0..rank).collect(),
        Some(AttributeValue::Ints(values)) => {
            normalize_axes(values, rank).map_err(|(rule, m)| refuse(rule, format!("attribute \"axes\" {m}")))?
        }
        Some(other) => {
            return Err(refuse(
                Rule::AttributeType,
                format!("attribute \"axes\" must be ints, not {other:?}"),
            ));
        }
    };
    let targets = int_values(shape).ok_or_else(|| {
        refuse(
            Rule::CropShapeType,
            format!(
                "input 1 (shape) must be tensor(int32) or tensor(int64), not tensor({})",
                shape.data_type()
            ),
        )
    })?;
    if shape.shape().len() != 1 || targets.len() != axes.len() {
        return Err(refuse(
            Rule::CropShapeLength,
            format!(
                "input 1 (shape) is {:?} of shape {:?}; it must be 1-D with one value per axis ({})",
                targets,
                shape.shape(),
                axes.len()
            ),
        ));
    }
    let mut pads = vec![(0i64, 0i64); rank];
    for (&axis, &target) in axes.iter().zip(&targets) {
        if target < 0 {
            return Err(refuse(
                Rule::CropNegativeExtent,
                format!("input 1 (shape) holds {target} for axis {axis}; extents must be ≥ 0"),
            ));
        }
        pads[axis] = centered_pads(data.shape()[axis] as i64, target);
    }
    Ok(pads)
}

/// The `mode` attribute, checked against the version.
fn mode(node: &Node, allowed: &[PadMode]) -> Result<PadMode, OpError> {
    let name = match node.attribute("mode") {
        None => return Ok(PadMode::Constant),
        Some(AttributeValue::String(s)) => String::from_utf8_lossy(s).into_owned(),
        Some(other) => {
            return Err(OpError::new(
                node,
                Rule::AttributeType,
                format!("attribute \"mode\" must be a string, not {other:?}"),
            ));
        }
    };
    match PadMode::from_name(&name) {
        Some(PadMode::Wrap) if !allowed.contains(&PadMode::Wrap) => Err(OpError::new(
            node,
            Rule::ModeNotInVersion,
            "does not accept mode \"wrap\" (Pad-19 and later do)".into(),
        )),
        Some(mode) => Ok(mode),
        None => Err(OpError::new(
            node,
            Rule::UnknownMode,
            format!("attribute \"mode\" is {name:?}; expected \"constant\", \"reflect\", \"edge\" or \"wrap\""),
        )),
    }
}

/// Input 1: int64 pads, 1-D (or, for com.microsoft Pad, [1, 2r]).
fn pads_input(node: &Node, pads: Option<&Tensor>, two_dim: bool) -> Result<Vec<i64>, OpError> {
    let pads = pads.ok_or_else(|| OpError::new(node, Rule::MissingInput, "input 1 (pads) is missing".into()))?;
    let Tensor::Int64(values) = pads else {
        return Err(OpError::new(
            node,
            Rule::PadsType,
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
            if two_dim { Rule::MsPadsShape } else { Rule::PadsShape },
            format!("input 1 (pads) has shape {:?}; it must be {expected}", values.shape()),
        ));
    }
    Ok(values.iter().copied().collect())
}

/// The name input 2 has on the operator's page.
fn constant_name(op: PadOp) -> &'static str {
    if op == PadOp::MicrosoftPad {
        "value"
    } else {
        "constant_value"
    }
}

/// Input 2 must be of the data's type (docs/semantics.md#constant-mode).
fn check_constant_type(node: &Node, value: &Tensor, data_type: DataType, op: PadOp) -> Result<(), OpError> {
    let name = constant_name(op);
    if value.data_type() != data_type {
        return Err(OpError::new(
            node,
            Rule::ConstantType,
            format!(
                "input 2 ({name}) is tensor({}) but data is tensor({data_type})",
                value.data_type()
            ),
        ));
    }
    Ok(())
}

/// Input 2 in constant mode must hold one element: rank 0 or [1].
fn one_element(node: &Node, value: &Tensor, op: PadOp) -> Result<Tensor, OpError> {
    if !matches!(value.shape(), [] | [1]) {
        return Err(OpError::new(
            node,
            Rule::ConstantShape,
            format!(
                "input 2 ({}) has shape {:?}; it must hold one element (rank 0 or [1])",
                constant_name(op),
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
            Rule::AxesType,
            format!(
                "input 3 (axes) must be tensor(int32) or tensor(int64), not tensor({})",
                axes.data_type()
            ),
        )
    })?;
    if axes.shape().len() != 1 {
        return Err(OpError::new(
            node,
            Rule::AxesShape,
            format!("input 3 (axes) has shape {:?}; it must be 1-D", axes.shape()),
        ));
    }
    normalize_axes(&values, rank).map_err(|(rule, m)| OpError::new(node, rule, format!("input 3 (axes) {m}")))
}

/// Resolves negative axes and checks range and repeats; the message completes "axes ...".
pub(crate) fn normalize_axes(values: &[i64], rank: usize) -> Result<Vec<usize>, (Rule, String)> {
    let r = rank as i64;
    let mut axes = Vec::with_capacity(values.len().min(rank));
    // One flag per axis, so the check is linear in the number of axes, not quadratic.
    let mut seen = vec![false; rank];
    for &a in values {
        if a < -r || a >= r {
            return Err((
                Rule::AxisOutOfRange,
                format!("holds {a}, out of range [{}, {}] for rank {rank}", -r, r - 1),
            ));
        }
        let axis = if a < 0 { a + r } else { a } as usize;
        if std::mem::replace(&mut seen[axis], true) {
            return Err((
                Rule::AxisRepeated,
                format!("{} name axis {axis} twice", abbreviated(values)),
            ));
        }
        axes.push(axis);
    }
    Ok(axes)
}

/// `[1, 2, 3]`, or its first eight values and a count when it is longer: messages stay short
/// however many values a hostile input holds.
pub(crate) fn abbreviated(values: &[i64]) -> String {
    const SHOWN: usize = 8;
    if values.len() <= SHOWN {
        format!("{values:?}")
    } else {
        format!("{:?} (first {SHOWN} of {} values)", &values[..SHOWN], values.len())
    }
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

#[cfg(test)]
mod axes_tests {
    use super::{Rule, normalize_axes};

    #[test]
    fn many_axes_are_checked_in_linear_time_and_repeats_named_briefly() {
        // 200,000 axes: a quadratic repeat check would take minutes; this is one pass.
        let rank = 200_000;
        let values: Vec<i64> = (0..rank as i64).rev().map(|a| a - rank as i64).collect();
        let axes = normalize_axes(&values, rank).unwrap();
        assert_eq!(axes.len(), rank);
        assert_eq!((axes[0], axes[rank - 1]), (rank - 1, 0));
        let mut repeated = values.clone();
        repeated.push(0);
        let (rule, message) = normalize_axes(&repeated, rank).unwrap_err();
        assert_eq!(rule, Rule::AxisRepeated);
        assert_eq!(
            message,
            "[-1, -2, -3, -4, -5, -6, -7, -8] (first 8 of 200001 values) name axis 0 twice"
        );
        assert_eq!(
            normalize_axes(&[1, -1], 2).unwrap_err(),
            (Rule::AxisRepeated, "[1, -1] name axis 1 twice".to_owned())
        );
        assert_eq!(normalize_axes(&[2], 2).unwrap_err().0, Rule::AxisOutOfRange);
    }
}
