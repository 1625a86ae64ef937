//! Graph evaluation: inputs by name, initializers, omitted optional inputs.

use std::collections::BTreeMap;

use super::*;
use crate::model::{Graph, Model};
use crate::reference::{RunError, run_model};

fn model(node: Node, initializers: Vec<(&str, Tensor)>) -> Model {
    Model {
        path: "model.onnx".into(),
        ir_version: 8,
        opset_imports: BTreeMap::from([(String::new(), node.version)]),
        graph: Graph {
            nodes: vec![node],
            initializers: initializers.into_iter().map(|(n, t)| (n.to_owned(), t)).collect(),
            inputs: vec!["x".into()],
            outputs: vec!["y".into()],
            ..Graph::default()
        },
    }
}

fn with_inputs(mut node: Node, inputs: &[&str]) -> Node {
    node.inputs = inputs.iter().map(|&i| i.to_owned()).collect();
    node.outputs = vec!["y".into()];
    node
}

#[test]
fn an_empty_name_omits_an_optional_input() {
    let x = tensor(&[2, 2], vec![1i64, 2, 3, 4]);
    let initializers = || vec![("pads", ints(&[1, 0])), ("axes", ints(&[-1])), ("c", scalar(9i64))];
    // constant_value omitted by an empty name, axes given.
    let node = with_inputs(pad_node(19, None), &["x", "pads", "", "axes"]);
    let out = run_model(&model(node, initializers()), std::slice::from_ref(&x)).unwrap();
    assert_eq!(out, [tensor(&[2, 3], vec![0i64, 1, 2, 0, 3, 4])]);
    let node = with_inputs(pad_node(19, None), &["x", "pads", "c", "axes"]);
    let out = run_model(&model(node, initializers()), std::slice::from_ref(&x)).unwrap();
    assert_eq!(out, [tensor(&[2, 3], vec![9i64, 1, 2, 9, 3, 4])]);
    // Fewer inputs listed: no axes, so pads cover both axes.
    let node = with_inputs(pad_node(19, None), &["x", "pads"]);
    let mut m = model(node, vec![("pads", ints(&[1, 0, 0, 0]))]);
    assert_eq!(
        run_model(&m, std::slice::from_ref(&x)).unwrap(),
        [tensor(&[3, 2], vec![0i64, 0, 1, 2, 3, 4])]
    );
    // A name nothing produces is an error naming the node and the input.
    m.graph.nodes[0].inputs[1] = "nowhere".into();
    let error = run_model(&m, std::slice::from_ref(&x)).unwrap_err();
    assert!(matches!(&error, RunError::UnknownValue { index: 1, .. }), "{error:?}");
    assert!(
        error.to_string().starts_with("Pad-19 \"p\": input 1 \"nowhere\""),
        "{error}"
    );
}

/// What graph optimizers leave: an output that is an initializer (everything folded), an
/// Identity where a node was folded away, pads from a Constant node.
#[test]
fn the_graphs_an_optimizer_leaves_evaluate() {
    let x = tensor(&[2, 2], vec![1i64, 2, 3, 4]);
    let folded = tensor(&[2, 3], vec![0i64, 1, 2, 0, 3, 4]);
    let mut everything_folded = model(
        with_inputs(pad_node(19, None), &["x", "pads"]),
        vec![("y", folded.clone())],
    );
    everything_folded.graph.nodes.clear();
    everything_folded.graph.inputs.clear();
    assert_eq!(
        run_model(&everything_folded, &[]).unwrap(),
        std::slice::from_ref(&folded)
    );
    let identity = model(with_inputs(node("Identity", "", 16, Vec::new()), &["x"]), Vec::new());
    assert_eq!(
        run_model(&identity, std::slice::from_ref(&x)).unwrap(),
        std::slice::from_ref(&x)
    );
    let mut constant = node(
        "Constant",
        "",
        13,
        vec![Attribute {
            name: "value".into(),
            value: AttributeValue::Tensor(ints(&[0, 1, 0, 0])),
        }],
    );
    constant.outputs = vec!["pads".into()];
    let mut pads_from_constant = model(with_inputs(pad_node(19, None), &["x", "pads"]), Vec::new());
    pads_from_constant.graph.nodes.insert(0, constant);
    assert_eq!(
        run_model(&pads_from_constant, std::slice::from_ref(&x)).unwrap(),
        [folded]
    );
}
