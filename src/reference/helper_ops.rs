//! The ops the CenterCropPad function body uses besides Pad: Constant, Shape, Gather, Slice,
//! Concat and broadcasting Add, Sub, Div, Max. They cover what function bodies need (int64
//! shape arithmetic, 1-D gathers, positive-step slices); anything else is refused, never
//! answered wrongly.

use ndarray::{ArrayD, Axis, IxDyn, Slice};

use super::budget::Budget;
use crate::model::{AttributeValue, Node};
use crate::operators::OpError;
use crate::operators::Rule;
use crate::operators::params::{abbreviated, int_values, normalize_axes};
use crate::tensor::{Element, Tensor, Visitor};

type OpResult = Result<Tensor, OpError>;

fn input<'a>(node: &Node, inputs: &[Option<&'a Tensor>], index: usize, name: &str) -> Result<&'a Tensor, OpError> {
    inputs
        .get(index)
        .copied()
        .flatten()
        .ok_or_else(|| OpError::new(node, Rule::HelperOp, format!("input {index} ({name}) is missing")))
}

fn int_attribute(node: &Node, name: &str) -> Result<Option<i64>, OpError> {
    match node.attribute(name) {
        None => Ok(None),
        Some(AttributeValue::Int(v)) => Ok(Some(*v)),
        Some(other) => Err(OpError::new(
            node,
            Rule::HelperOp,
            format!("attribute {name:?} must be an int, not {other:?}"),
        )),
    }
}

fn int_input(node: &Node, tensor: &Tensor, index: usize, name: &str) -> Result<Vec<i64>, OpError> {
    int_values(tensor).ok_or_else(|| {
        OpError::new(
            node,
            Rule::HelperOp,
            format!(
                "input {index} ({name}) must be int32 or int64, not tensor({})",
                tensor.data_type()
            ),
        )
    })
}

/// Constant: the `value` tensor, or one of the `value_int(s)` / `value_float(s)` forms.
pub(super) fn constant(node: &Node, budget: &Budget) -> OpResult {
    let [attribute] = node.attributes.as_slice() else {
        return Err(OpError::new(
            node,
            Rule::HelperOp,
            format!("needs exactly one attribute, has {}", node.attributes.len()),
        ));
    };
    let (shape, element_bytes) = match &attribute.value {
        AttributeValue::Tensor(t) => (t.shape().to_vec(), t.max_element_bytes()),
        AttributeValue::Ints(v) => (vec![v.len()], size_of::<i64>()),
        AttributeValue::Floats(v) => (vec![v.len()], size_of::<f32>()),
        _ => (vec![], size_of::<i64>()),
    };
    budget.check(node, &shape, element_bytes, &format!("attribute {:?}", attribute.name))?;
    let tensor = match (attribute.name.as_str(), &attribute.value) {
        ("value", AttributeValue::Tensor(t)) => Ok(t.clone()),
        ("value_int", AttributeValue::Int(v)) => Tensor::from_vec(&[], vec![*v]),
        ("value_ints", AttributeValue::Ints(v)) => Tensor::from_vec(&[v.len()], v.clone()),
        ("value_float", AttributeValue::Float(v)) => Tensor::from_vec(&[], vec![*v]),
        ("value_floats", AttributeValue::Floats(v)) => Tensor::from_vec(&[v.len()], v.clone()),
        (name, _) => {
            return Err(OpError::new(
                node,
                Rule::HelperOp,
                format!("attribute {name:?} is not supported by the ref backend"),
            ));
        }
    };
    Ok(tensor.expect("shapes match the value counts"))
}

/// Shape, with the optional `start` and `end` attributes of Shape-15.
pub(super) fn shape(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> OpResult {
    let dims = input(node, inputs, 0, "data")?.shape();
    let rank = dims.len() as i64;
    let clamp = |v: i64| (if v < 0 { v.saturating_add(rank) } else { v }).clamp(0, rank) as usize;
    let start = clamp(int_attribute(node, "start")?.unwrap_or(0));
    let end = clamp(int_attribute(node, "end")?.unwrap_or(rank)).max(start);
    budget.check(
        node,
        &[end - start],
        size_of::<i64>(),
        &format!("input 0 (data) of rank {rank}"),
    )?;
    let values: Vec<i64> = dims[start..end].iter().map(|&d| d as i64).collect();
    Ok(Tensor::from_vec(&[values.len()], values).expect("1-D"))
}

/// Identity: its input, copied. Graph optimizers leave it where they fold a node away.
pub(super) fn identity(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> OpResult {
    let x = input(node, inputs, 0, "input")?;
    budget.check(node, x.shape(), x.max_element_bytes(), "input 0 (input)")?;
    Ok(x.clone())
}

/// Gather along `axis` with rank-0 or 1-D indices.
pub(super) fn gather(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> OpResult {
    let data = input(node, inputs, 0, "data")?;
    let indices_tensor = input(node, inputs, 1, "indices")?;
    let indices = int_input(node, indices_tensor, 1, "indices")?;
    let rank = data.shape().len();
    let axis = normalize_axes(&[int_attribute(node, "axis")?.unwrap_or(0)], rank)
        .map_err(|(rule, m)| OpError::new(node, rule, format!("attribute \"axis\" {m}")))?[0];
    let extent = data.shape()[axis] as i64;
    let scalar = match indices_tensor.shape().len() {
        0 => true,
        1 => false,
        r => {
            return Err(OpError::new(
                node,
                Rule::HelperOp,
                format!("indices of rank {r} are not supported by the ref backend"),
            ));
        }
    };
    let mut out_shape = data.shape().to_vec();
    if scalar {
        out_shape.remove(axis);
    } else {
        out_shape[axis] = indices.len();
    }
    budget.check(
        node,
        &out_shape,
        data.max_element_bytes(),
        &format!(
            "input 0 (data) {:?} and input 1 (indices) {:?}",
            data.shape(),
            indices_tensor.shape()
        ),
    )?;
    let resolved = indices
        .iter()
        .map(|&i| {
            let j = if i < 0 { i + extent } else { i };
            if (0..extent).contains(&j) {
                Ok(j as usize)
            } else {
                Err(OpError::new(
                    node,
                    Rule::HelperOp,
                    format!("input 1 (indices) holds {i}, out of range for extent {extent}"),
                ))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    struct Select<'a> {
        axis: usize,
        indices: &'a [usize],
        scalar: bool,
    }
    impl Visitor<'_> for Select<'_> {
        type Output = Tensor;
        fn visit<T: Element>(self, a: &ArrayD<T>) -> Tensor {
            let selected = a.select(Axis(self.axis), self.indices);
            let selected = if self.scalar {
                selected.index_axis_move(Axis(self.axis), 0)
            } else {
                selected
            };
            Tensor::from_array(selected)
        }
    }
    Ok(data.visit(Select {
        axis,
        indices: &resolved,
        scalar,
    }))
}

/// Slice-10+ (starts, ends, axes, steps inputs) and Slice-1 (attributes), positive steps only.
pub(super) fn slice(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> OpResult {
    let data = input(node, inputs, 0, "data")?;
    let rank = data.shape().len();
    let list = |index: usize, name: &str| -> Result<Option<Vec<i64>>, OpError> {
        if node.version < 10 {
            return match node.attribute(name) {
                None => Ok(None),
                Some(AttributeValue::Ints(v)) => Ok(Some(v.clone())),
                Some(other) => Err(OpError::new(
                    node,
                    Rule::HelperOp,
                    format!("attribute {name:?} must be ints, not {other:?}"),
                )),
            };
        }
        inputs
            .get(index)
            .copied()
            .flatten()
            .map(|t| int_input(node, t, index, name))
            .transpose()
    };
    let starts = list(1, "starts")?.ok_or_else(|| OpError::new(node, Rule::HelperOp, "starts are missing".into()))?;
    let ends = list(2, "ends")?.ok_or_else(|| OpError::new(node, Rule::HelperOp, "ends are missing".into()))?;
    let axes = match list(3, "axes")? {
        Some(axes) => normalize_axes(&axes, rank).map_err(|(rule, m)| OpError::new(node, rule, format!("axes {m}")))?,
        None if starts.len() <= rank => (0..starts.len()).collect(),
        None => {
            return Err(OpError::new(
                node,
                Rule::HelperOp,
                format!(
                    "starts holds {} values but input 0 (data) {:?} has rank {rank}",
                    starts.len(),
                    data.shape()
                ),
            ));
        }
    };
    let steps = list(4, "steps")?.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(OpError::new(
            node,
            Rule::HelperOp,
            format!(
                "starts {}, ends {}, axes ({} values) and steps {} must have one value per sliced axis",
                abbreviated(&starts),
                abbreviated(&ends),
                axes.len(),
                abbreviated(&steps)
            ),
        ));
    }
    let mut ranges = Vec::with_capacity(axes.len());
    let mut out_shape = data.shape().to_vec();
    for (i, &axis) in axes.iter().enumerate() {
        if steps[i] <= 0 {
            return Err(OpError::new(
                node,
                Rule::HelperOp,
                format!(
                    "step {} is not supported by the ref backend (positive steps only)",
                    steps[i]
                ),
            ));
        }
        let extent = data.shape()[axis] as i64;
        let clamp = |v: i64| (if v < 0 { v.saturating_add(extent) } else { v }).clamp(0, extent) as isize;
        let (start, end) = (clamp(starts[i]), clamp(ends[i]));
        ranges.push((axis, Slice::new(start, Some(end.max(start)), steps[i] as isize)));
        let kept = (end.max(start) - start) as usize;
        out_shape[axis] = kept.div_ceil(usize::try_from(steps[i]).unwrap_or(usize::MAX).max(1));
    }
    budget.check(
        node,
        &out_shape,
        data.max_element_bytes(),
        &format!("input 0 (data) {:?}", data.shape()),
    )?;
    struct Cut<'a>(&'a [(usize, Slice)]);
    impl Visitor<'_> for Cut<'_> {
        type Output = Tensor;
        fn visit<T: Element>(self, a: &ArrayD<T>) -> Tensor {
            let mut view = a.view();
            for &(axis, slice) in self.0 {
                view.slice_axis_inplace(Axis(axis), slice);
            }
            Tensor::from_array(view.to_owned())
        }
    }
    Ok(data.visit(Cut(&ranges)))
}

/// Concat along `axis`; every input of one element type and rank.
pub(super) fn concat(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> OpResult {
    let parts: Vec<&Tensor> = inputs.iter().flatten().copied().collect();
    let first = *parts
        .first()
        .ok_or_else(|| OpError::new(node, Rule::HelperOp, "has no inputs".into()))?;
    let rank = first.shape().len();
    let axis = int_attribute(node, "axis")?
        .ok_or_else(|| OpError::new(node, Rule::HelperOp, "attribute \"axis\" is missing".into()))?;
    let axis = normalize_axes(&[axis], rank)
        .map_err(|(rule, m)| OpError::new(node, rule, format!("attribute \"axis\" {m}")))?[0];
    let mut out_shape = first.shape().to_vec();
    out_shape[axis] = 0;
    for (i, part) in parts.iter().enumerate() {
        let shape = part.shape();
        let agrees = shape.len() == rank && (0..rank).all(|d| d == axis || shape[d] == first.shape()[d]);
        if !agrees {
            return Err(OpError::new(
                node,
                Rule::HelperOp,
                format!(
                    "input {i} has shape {shape:?}, which cannot be joined with input 0 {:?} on axis {axis}",
                    first.shape()
                ),
            ));
        }
        // Overflow saturates; the budget then refuses the shape.
        out_shape[axis] = out_shape[axis].saturating_add(shape[axis]);
    }
    let element_bytes = parts.iter().map(|p| p.max_element_bytes()).max().unwrap_or(1);
    budget.check(
        node,
        &out_shape,
        element_bytes,
        &format!("{} inputs joined on axis {axis}", parts.len()),
    )?;
    struct Join<'a> {
        parts: &'a [&'a Tensor],
        axis: usize,
    }
    impl Visitor<'_> for Join<'_> {
        type Output = Result<Tensor, String>;
        fn visit<T: Element>(self, _: &ArrayD<T>) -> Result<Tensor, String> {
            let views = self
                .parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    p.as_array::<T>()
                        .map(|a| a.view())
                        .ok_or_else(|| format!("input {i} is tensor({}), not tensor({})", p.data_type(), T::DATA_TYPE))
                })
                .collect::<Result<Vec<_>, _>>()?;
            ndarray::concatenate(Axis(self.axis), &views)
                .map(Tensor::from_array)
                .map_err(|e| format!("inputs cannot be joined on axis {}: {e}", self.axis))
        }
    }
    first
        .visit(Join { parts: &parts, axis })
        .map_err(|m| OpError::new(node, Rule::HelperOp, m))
}

/// Add, Sub, Div (integer division truncates) and Max (any number of inputs), with numpy
/// broadcasting, on int64, float and double.
pub(super) fn arithmetic(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> OpResult {
    let operands: Vec<&Tensor> = inputs.iter().flatten().copied().collect();
    let (first, rest) = operands
        .split_first()
        .ok_or_else(|| OpError::new(node, Rule::HelperOp, "has no inputs".into()))?;
    if node.op_type != "Max" && operands.len() != 2 {
        return Err(OpError::new(
            node,
            Rule::HelperOp,
            format!("takes 2 inputs, not {}", operands.len()),
        ));
    }
    let op = node.op_type.as_str();
    let mut acc = (*first).clone();
    for (i, next) in rest.iter().enumerate() {
        let shape = broadcast_shape(acc.shape(), next.shape()).map_err(|m| OpError::new(node, Rule::HelperOp, m))?;
        budget.check(
            node,
            &shape,
            acc.max_element_bytes().max(next.max_element_bytes()),
            &format!(
                "broadcasting {:?} (inputs 0 to {i}) with input {} {:?}",
                acc.shape(),
                i + 1,
                next.shape()
            ),
        )?;
        acc = match (&acc, next) {
            (Tensor::Int64(a), Tensor::Int64(b)) => broadcast(a, b, |x, y| match op {
                "Add" => x.checked_add(y).ok_or("int64 overflow"),
                "Sub" => x.checked_sub(y).ok_or("int64 overflow"),
                "Div" => x.checked_div(y).ok_or("int64 division by zero or overflow"),
                _ => Ok(x.max(y)),
            }),
            (Tensor::Float(a), Tensor::Float(b)) => broadcast(a, b, |x, y| Ok(float_op(op, x, y))),
            (Tensor::Double(a), Tensor::Double(b)) => broadcast(a, b, |x, y| Ok(float_op(op, x, y))),
            (a, b) => Err(format!(
                "tensor({}) and tensor({}) are not supported by the ref backend (int64, float or double, one type)",
                a.data_type(),
                b.data_type()
            )),
        }
        .map_err(|m| OpError::new(node, Rule::HelperOp, m))?;
    }
    Ok(acc)
}

fn float_op<F: num_traits::Float>(op: &str, x: F, y: F) -> F {
    match op {
        "Add" => x + y,
        "Sub" => x - y,
        "Div" => x / y,
        // numpy.maximum: NaN wins.
        _ if x.is_nan() || y.is_nan() => F::nan(),
        _ => x.max(y),
    }
}

/// The shape `a` and `b` broadcast to (numpy rules), computed before anything is allocated.
fn broadcast_shape(a: &[usize], b: &[usize]) -> Result<Vec<usize>, String> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i + s.len() < rank { 1 } else { s[i + s.len() - rank] };
    let mut shape = Vec::with_capacity(rank);
    for i in 0..rank {
        let (x, y) = (dim(a, i), dim(b, i));
        shape.push(match (x, y) {
            _ if x == y => x,
            (1, _) => y,
            (_, 1) => x,
            _ => return Err(format!("shapes {a:?} and {b:?} do not broadcast")),
        });
    }
    Ok(shape)
}

/// Element-wise `f` over `a` and `b` broadcast to a common shape (numpy rules).
fn broadcast<T: Element + Copy>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    f: impl Fn(T, T) -> Result<T, &'static str>,
) -> Result<Tensor, String> {
    let shape = IxDyn(&broadcast_shape(a.shape(), b.shape())?);
    let (a, b) = (
        a.broadcast(shape.clone()).expect("checked"),
        b.broadcast(shape.clone()).expect("checked"),
    );
    let values = a
        .iter()
        .zip(b.iter())
        .map(|(&x, &y)| f(x, y))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Tensor::from_array(
        ArrayD::from_shape_vec(shape, values).expect("broadcast shape"),
    ))
}
