//! Graph evaluation: runs a model's nodes in order, so the `_expanded` cases (whose graphs
//! are the CenterCropPad function body) run as well as single-node ones.

use std::borrow::Cow;
use std::collections::HashMap;

use super::budget::Budget;
use super::center_crop_pad::run_center_crop_pad_within;
use super::helper_ops;
use super::pad::run_pad_within;
use crate::family::ONNX_DOMAIN;
use crate::model::{Model, Node};
use crate::operators::Rule;
use crate::operators::{OpError, PadOp};
use crate::tensor::Tensor;

/// Why a model could not be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The number of inputs given differs from the graph's non-initializer inputs.
    #[error("the model takes {expected} inputs but {given} were given")]
    InputCount {
        /// The graph's non-initializer inputs.
        expected: usize,
        /// The inputs given.
        given: usize,
    },
    /// A node reads a value nothing before it defines: the graph is not in topological order
    /// or names a value that does not exist.
    #[error("{node}: input {index} {name:?} is not produced by any earlier node, initializer or graph input")]
    UnknownValue {
        /// The node, as [`Node`]'s `Display` names it.
        node: String,
        /// The input's position on the node.
        index: usize,
        /// The value's name.
        name: String,
    },
    /// A graph output (named here) that no node, initializer or graph input provides.
    #[error("graph output {0:?} is not produced by any node")]
    MissingOutput(String),
    /// A node refused its inputs or attributes.
    #[error(transparent)]
    Op(#[from] OpError),
}

/// Evaluates `model` on `inputs` (in the order of the graph's non-initializer inputs) and
/// returns the graph outputs in order. The values the nodes produce may take
/// [`super::MAX_RUN_BYTES`] together; each is sized and checked before it is allocated.
pub(crate) fn run_model(model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, RunError> {
    run_model_within(model, inputs, Budget::default())
}

/// The reference's evaluation of `model` with a memory budget of its own for the values the nodes produce: for the
/// cargo-fuzz targets, which evaluate hostile models within a small budget.
pub fn run_model_within(model: &Model, inputs: &[Tensor], mut budget: Budget) -> Result<Vec<Tensor>, RunError> {
    let graph = &model.graph;
    if inputs.len() != graph.inputs.len() {
        return Err(RunError::InputCount {
            expected: graph.inputs.len(),
            given: inputs.len(),
        });
    }
    // Initializers and inputs are borrowed, never copied: only what nodes produce is owned.
    let mut values: HashMap<&str, Cow<'_, Tensor>> = HashMap::with_capacity(graph.initializers.len() + inputs.len());
    for (name, tensor) in &graph.initializers {
        values.insert(name, Cow::Borrowed(tensor));
    }
    for (name, tensor) in graph.inputs.iter().zip(inputs) {
        values.insert(name, Cow::Borrowed(tensor));
    }
    for node in &graph.nodes {
        let node_inputs = node
            .inputs
            .iter()
            .enumerate()
            .map(|(index, name)| match name.as_str() {
                "" => Ok(None),
                name => values
                    .get(name)
                    .map(|v| Some(&**v))
                    .ok_or_else(|| RunError::UnknownValue {
                        node: node.to_string(),
                        index,
                        name: name.to_owned(),
                    }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = run_node_within(node, &node_inputs, &budget)?;
        for (name, tensor) in node.outputs.iter().zip(outputs) {
            if !name.is_empty() {
                budget.spend(&tensor);
                values.insert(name, Cow::Owned(tensor));
            }
        }
    }
    graph
        .outputs
        .iter()
        .map(|name| {
            values
                .remove(name.as_str())
                .map(Cow::into_owned)
                .ok_or_else(|| RunError::MissingOutput(name.clone()))
        })
        .collect()
}

/// Runs one node: a Pad-family operator or one of the helpers function bodies use.
#[cfg(test)]
pub(crate) fn run_node(node: &Node, inputs: &[Option<&Tensor>]) -> Result<Vec<Tensor>, OpError> {
    run_node_within(node, inputs, &Budget::default())
}

fn run_node_within(node: &Node, inputs: &[Option<&Tensor>], budget: &Budget) -> Result<Vec<Tensor>, OpError> {
    let one = |t: Tensor| vec![t];
    match node.pad_op() {
        Some(PadOp::CenterCropPad) => return run_center_crop_pad_within(node, inputs, budget).map(one),
        Some(op) => return run_pad_within(node, op, inputs, budget).map(one),
        None => {}
    }
    if node.domain != ONNX_DOMAIN {
        return Err(unsupported(node));
    }
    match node.op_type.as_str() {
        "Constant" => helper_ops::constant(node, budget),
        "Identity" => helper_ops::identity(node, inputs, budget),
        "Shape" => helper_ops::shape(node, inputs, budget),
        "Gather" => helper_ops::gather(node, inputs, budget),
        "Slice" => helper_ops::slice(node, inputs, budget),
        "Concat" => helper_ops::concat(node, inputs, budget),
        "Add" | "Sub" | "Div" | "Max" => helper_ops::arithmetic(node, inputs, budget),
        _ => Err(unsupported(node)),
    }
    .map(one)
}

fn unsupported(node: &Node) -> OpError {
    OpError::new(
        node,
        Rule::UnsupportedOp,
        format!("op {} is not supported by the ref backend", node.op_type),
    )
}
