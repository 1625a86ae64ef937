//! The facts of a data set a profile is matched against: its operator version, element type,
//! rank and mode, the inputs its Pad-family node is given (which, how, of what rank and
//! values), the axes it pads and how many nodes its graph has — or, when there is no
//! Pad-family node or no data input to read them from, what could not be read.

use std::collections::BTreeMap;
use std::fmt;

use crate::model::{AttributeValue, Model};
use crate::operators::params::{int_values, normalize_axes};
use crate::operators::{ModeAttribute, OpVersion, PadMode, PadOp, PadsFrom};
use crate::tensor::{DataType, Tensor};

use super::input_role::InputRole;

/// The facts of a data set a profile is matched against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Subject {
    /// The operator version under test.
    pub operator: OpVersion,
    /// The data input's element type.
    pub dtype: DataType,
    /// The data input's rank.
    pub rank: usize,
    /// The mode as the node names it (none for CenterCropPad): a spelling no version defines
    /// is kept, so a profile that lists modes excludes it rather than let it through unread.
    pub mode: Option<ModeAttribute>,
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
    /// How many nodes the graph has.
    pub nodes: usize,
}

/// What keeps a data set's subject from being read: nothing a profile says about what a data
/// set is can then be checked, so such a data set is outside every profile that says any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unread {
    /// The graph has no Pad-family node.
    NoPadNode,
    /// The data set feeds no data input.
    NoDataInput,
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unread::NoPadNode => "the graph has no Pad-family node",
            Unread::NoDataInput => "the data set feeds no data input",
        })
    }
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
    /// first Pad-family node's operator version, the data's element type and rank, the mode,
    /// the inputs and the padded axes; what could not be read for a model without such a
    /// node or a data set without a data input.
    pub(crate) fn of(model: &Model, inputs: &[Tensor]) -> Result<Subject, Unread> {
        let (node, op) = model.pad_nodes().next().ok_or(Unread::NoPadNode)?;
        let operator = OpVersion {
            op,
            version: node.version,
        };
        let mode = node.pad_mode();
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
        let data = inputs.first().ok_or(Unread::NoDataInput)?;
        let rank = data.shape().len();
        let padded_axes = match (operator.op, &pads) {
            (PadOp::CenterCropPad, _) | (_, None) => None,
            (_, Some(pads)) => padded_axes(pads, values_of(InputRole::Axes), rank).map(|axes| (rank, axes)),
        };
        Ok(Subject {
            operator,
            dtype: data.data_type(),
            rank,
            mode,
            inputs: given,
            pads,
            padded_axes,
            ir_version: model.ir_version,
            opsets: model.opset_imports.clone(),
            nodes: model.graph.nodes.len(),
        })
    }

    /// The input of `role`, when the node is given one.
    pub(crate) fn input(&self, role: InputRole) -> Option<&GivenInput> {
        self.inputs.iter().find(|g| g.role == role)
    }

    /// The mode, when the node names one of the four.
    pub(crate) fn known_mode(&self) -> Option<PadMode> {
        self.mode.as_ref().and_then(ModeAttribute::mode)
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
