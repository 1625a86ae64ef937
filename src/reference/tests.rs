//! Tests of the reference backend against docs/semantics.md: the spec's worked examples, property
//! tests of the kernel against a per-element definition, one test per refusal, version gating
//! and the helper ops. Helpers shared by those live here.

mod graph;
mod helper_ops;
mod limits;
mod properties;
mod refusals;
mod spec_examples;
mod versions;

use super::{run_center_crop_pad, run_pad};
use crate::model::{Attribute, AttributeValue, Node};
use crate::operators::OpError;
use crate::tensor::{Element, Tensor};

/// A node named "p" with no input or output names: the runners take tensors directly.
fn node(op_type: &str, domain: &str, version: i64, attributes: Vec<Attribute>) -> Node {
    Node {
        name: "p".into(),
        op_type: op_type.into(),
        domain: domain.into(),
        version,
        inputs: Vec::new(),
        outputs: Vec::new(),
        attributes,
    }
}

/// An ai.onnx Pad node, with a `mode` attribute when `mode` is given.
fn pad_node(version: i64, mode: Option<&str>) -> Node {
    node(
        "Pad",
        "",
        version,
        mode.map(|m| vec![string_attr("mode", m)]).unwrap_or_default(),
    )
}

/// A com.microsoft Pad-1 node.
fn ms_pad_node(mode: Option<&str>) -> Node {
    node(
        "Pad",
        "com.microsoft",
        1,
        mode.map(|m| vec![string_attr("mode", m)]).unwrap_or_default(),
    )
}

/// A CenterCropPad-18 node, with an `axes` attribute when `axes` is given.
fn ccp_node(axes: Option<&[i64]>) -> Node {
    node(
        "CenterCropPad",
        "",
        18,
        axes.map(|a| vec![ints_attr("axes", a)]).unwrap_or_default(),
    )
}

fn string_attr(name: &str, value: &str) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttributeValue::String(value.as_bytes().to_vec()),
    }
}

fn ints_attr(name: &str, values: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttributeValue::Ints(values.to_vec()),
    }
}

fn int_attr(name: &str, value: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttributeValue::Int(value),
    }
}

fn float_attr(name: &str, value: f32) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttributeValue::Float(value),
    }
}

fn tensor<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, values).expect("as many values as the shape holds")
}

/// A rank-0 tensor.
fn scalar<T: Element>(value: T) -> Tensor {
    tensor(&[], vec![value])
}

/// A 1-D int64 tensor: pads, axes, shapes, indices.
fn ints(values: &[i64]) -> Tensor {
    tensor(&[values.len()], values.to_vec())
}

/// Runs a Pad-family node (ai.onnx or com.microsoft Pad, by its domain).
fn pad(node: &Node, inputs: &[Option<&Tensor>]) -> Result<Tensor, OpError> {
    run_pad(node, node.pad_op().expect("a Pad node"), inputs)
}

fn center_crop_pad(node: &Node, inputs: &[Option<&Tensor>]) -> Result<Tensor, OpError> {
    run_center_crop_pad(node, inputs)
}

/// The refusal's message, which must name the node, then hold every one of `parts` (the
/// input and the offending value).
#[track_caller]
fn assert_refused(result: Result<Tensor, OpError>, node: &str, parts: &[&str]) -> String {
    let message = match result {
        Ok(t) => panic!("expected a refusal naming {parts:?}, got {}", t.describe()),
        Err(e) => e.to_string(),
    };
    assert!(
        message.starts_with(&format!("{node}: ")),
        "{message:?} does not start by naming {node}"
    );
    for part in parts {
        assert!(message.contains(part), "{message:?} does not mention {part:?}");
    }
    message
}
