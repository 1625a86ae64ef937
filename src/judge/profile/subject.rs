//! The facts of a data set a profile is matched against: its operator version, element type
//! and mode, the inputs its Pad-family node is given (which, how, of what rank and values)
//! and the axes it pads.

use std::collections::BTreeMap;

use crate::model::{AttributeValue, Model};
use crate::operators::params::{int_values, normalize_axes};
use crate::operators::{OpVersion, PadMode, PadOp, PadsFrom};
use crate::tensor::{DataType, Tensor};

use super::input_role::InputRole;

/// The facts of a data set a profile is matched against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Subject {
    /// The operator version under test.
    pub operator: OpVersion,
    /// The data input's element type.
    pub dtype: DataType,
    /// The mode (none for CenterCropPad).
    pub mode: Option<PadMode>,
    /// The inputs after the data that the node is given, in the node's order.
    pub inputs: Vec<GivenInput>,
    /// The pads' values, from the pads input or (Pad-1, Pad-2) the attribute, when known.
    pub pads: Option<Vec<i64>>,
    /// The data's rank and the axes whose pads are not zero, when the pads (and axes) are
    /// known and consistent with the data; `None` otherwise (such a data set is one to refuse).
    pub padded_axes: Option<(usize, Vec<usize>)>,
    /// The model's IR version.
    pub ir_version: i64,
    /// The model's opset per domain (`""` for ai.onnx).
    pub opsets: BTreeMap<String, i64>,
}

/// One input after the data, as the node is given it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GivenInput {
    /// What the input is to the operator.
    pub role: InputRole,
    /// Its name in the graph.
    pub name: String,
    /// A graph input fed at run time (`true`) or an initializer or computed value (`false`).
    pub fed: bool,
    /// Its rank, when its value is known (fed or an initializer).
    pub rank: Option<usize>,
    /// Its values, when it is an int32 or int64 tensor whose value is known.
    pub values: Option<Vec<i64>>,
}

impl Subject {
    /// What a profile is matched against for `model` on `inputs` (in graph-input order): its
    /// first Pad-family node's operator version, the data's element type, the mode, the
    /// inputs and the padded axes; `None` for a model without such a node.
    pub(crate) fn of(model: &Model, inputs: &[Tensor]) -> Option<Subject> {
        let (node, _) = model.pad_nodes().next()?;
        let operator = OpVersion::of(node)?;
        let mode = match (operator.op, node.attribute("mode")) {
            (PadOp::CenterCropPad, _) => None,
            (_, Some(AttributeValue::String(name))) => Some(PadMode::from_name(&String::from_utf8_lossy(name))?),
            (_, _) => Some(PadMode::Constant),
        };
        let value_of = |name: &str| -> Option<(bool, &Tensor)> {
            if let Some(i) = model.graph.inputs.iter().position(|n| n == name) {
                return inputs.get(i).map(|t| (true, t));
            }
            model
                .graph
                .initializers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| (false, t))
        };
        let given: Vec<GivenInput> = node
            .inputs
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, name)| !name.is_empty())
            .filter_map(|(position, name)| {
                let role = InputRole::at(operator.op, position)?;
                let value = value_of(name);
                Some(GivenInput {
                    role,
                    name: name.clone(),
                    fed: value.is_some_and(|(fed, _)| fed),
                    rank: value.map(|(_, t)| t.shape().len()),
                    values: value.and_then(|(_, t)| int_values(t)),
                })
            })
            .collect();
        let values_of = |role| given.iter().find(|g| g.role == role).and_then(|g| g.values.clone());
        let pads = match operator.pads_from() {
            PadsFrom::Attribute(name) => match node.attribute(name) {
                Some(AttributeValue::Ints(values)) => Some(values.clone()),
                _ => None,
            },
            _ => values_of(InputRole::Pads),
        };
        let data = inputs.first()?;
        let rank = data.shape().len();
        let padded_axes = match (operator.op, &pads) {
            (PadOp::CenterCropPad, _) | (_, None) => None,
            (_, Some(pads)) => padded_axes(pads, values_of(InputRole::Axes), rank).map(|axes| (rank, axes)),
        };
        Some(Subject {
            operator,
            dtype: data.data_type(),
            mode,
            inputs: given,
            pads,
            padded_axes,
            ir_version: model.ir_version,
            opsets: model.opset_imports.clone(),
        })
    }

    /// The input of `role`, when the node is given one.
    pub(crate) fn input(&self, role: InputRole) -> Option<&GivenInput> {
        self.inputs.iter().find(|g| g.role == role)
    }

    /// The known integer values of the input of `role` (for pads: the attribute's too).
    pub(crate) fn values(&self, role: InputRole) -> Option<&[i64]> {
        match role {
            InputRole::Pads => self.pads.as_deref(),
            _ => self.input(role)?.values.as_deref(),
        }
    }
}

/// The axes `pads` (begins then ends, over `axes` or every axis) pads by a non-zero amount;
/// `None` when they do not fit a rank-`rank` data.
fn padded_axes(pads: &[i64], axes: Option<Vec<i64>>, rank: usize) -> Option<Vec<usize>> {
    let axes = match axes {
        Some(values) => normalize_axes(&values, rank).ok()?,
        None => (0..rank).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return None;
    }
    let (begins, ends) = pads.split_at(axes.len());
    let mut padded: Vec<usize> = axes
        .iter()
        .zip(begins.iter().zip(ends))
        .filter(|(_, (b, e))| **b != 0 || **e != 0)
        .map(|(axis, _)| *axis)
        .collect();
    padded.sort_unstable();
    Some(padded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_axes_follow_the_axes_input_and_skip_zero_pads() {
        assert_eq!(padded_axes(&[0, 1, 0, 0, 0, 0], None, 3), Some(vec![1]));
        assert_eq!(padded_axes(&[1, 0, 0, 2], Some(vec![-1, 0]), 3), Some(vec![0, 2]));
        // Pads that do not fit: unknown, never a guess.
        assert_eq!(padded_axes(&[1, 2, 3], None, 2), None);
        assert_eq!(padded_axes(&[1, 1], Some(vec![5]), 2), None);
    }
}
