//! Every op is sized before it allocates: hostile helper-op graphs are refused, naming the
//! node, the inputs and the size, instead of aborting the process (docs/semantics.md#limits).

use std::collections::BTreeMap;

use super::*;
use crate::model::{Graph, Model};
use crate::reference::{Budget, RunError, run_model, run_model_within};

/// A model of `nodes` over graph inputs `inputs`, returning `y`.
fn graph(nodes: Vec<Node>, initializers: Vec<(&str, Tensor)>, inputs: &[&str]) -> Model {
    Model {
        path: "model.onnx".into(),
        ir_version: 8,
        opset_imports: BTreeMap::from([(String::new(), 21)]),
        graph: Graph {
            nodes,
            initializers: initializers.into_iter().map(|(n, t)| (n.to_owned(), t)).collect(),
            inputs: inputs.iter().map(|&i| i.to_owned()).collect(),
            outputs: vec!["y".into()],
            ..Graph::default()
        },
    }
}

fn wired(mut node: Node, inputs: &[&str], output: &str) -> Node {
    node.inputs = inputs.iter().map(|&i| i.to_owned()).collect();
    node.outputs = vec![output.to_owned()];
    node
}

#[track_caller]
fn refusal(result: Result<Vec<Tensor>, RunError>) -> String {
    match result {
        Ok(t) => panic!("expected a refusal, got {} outputs", t.len()),
        Err(RunError::Op(e)) => e.to_string(),
        Err(other) => panic!("expected an op refusal, got {other}"),
    }
}

#[test]
fn a_gather_whose_output_needs_terabytes_is_refused_before_allocating() {
    // Gather on axis 0 of [1, 2^16] by 2^16 zeros: [2^16, 2^16] = 2^32 elements (16 GiB).
    let data = tensor(&[1, 1 << 16], vec![1.0f32; 1 << 16]);
    let indices = tensor(&[1 << 16], vec![0i64; 1 << 16]);
    let m = graph(
        vec![wired(node("Gather", "", 13, vec![]), &["data", "indices"], "y")],
        vec![("data", data), ("indices", indices)],
        &[],
    );
    let message = refusal(run_model(&m, &[]));
    assert!(
        message.starts_with("Gather-13 \"p\": output shape [65536, 65536]"),
        "{message}"
    );
    assert!(
        message.contains("input 0 (data) [1, 65536] and input 1 (indices) [65536]"),
        "{message}"
    );
    assert!(
        message.contains("4294967296 elements taking 17179869184 bytes"),
        "{message}"
    );
}

#[test]
fn a_concat_of_100000_inputs_is_refused_before_allocating() {
    // One 4096-element value named 100,000 times: 409.6 M elements, over 2^28.
    let x = tensor(&[1, 4096], vec![7i64; 4096]);
    let names = vec!["x"; 100_000];
    let m = graph(
        vec![wired(node("Concat", "", 13, vec![int_attr("axis", 0)]), &names, "y")],
        vec![],
        &["x"],
    );
    let message = refusal(run_model(&m, &[x]));
    assert!(
        message.starts_with("Concat-13 \"p\": output shape [100000, 4096]"),
        "{message}"
    );
    assert!(message.contains("from 100000 inputs joined on axis 0"), "{message}");
    // The same graph with two inputs runs.
    let x = tensor(&[1, 2], vec![1i64, 2]);
    let m = graph(
        vec![wired(
            node("Concat", "", 13, vec![int_attr("axis", 0)]),
            &["x", "x"],
            "y",
        )],
        vec![],
        &["x"],
    );
    assert_eq!(run_model(&m, &[x]).unwrap(), [tensor(&[2, 2], vec![1i64, 2, 1, 2])]);
}

#[test]
fn concat_inputs_of_other_ranks_or_extents_are_refused_not_a_panic() {
    let a = tensor(&[2, 2], vec![1i64, 2, 3, 4]);
    let b = ints(&[5, 6]);
    let m = graph(
        vec![wired(
            node("Concat", "", 13, vec![int_attr("axis", 1)]),
            &["a", "b"],
            "y",
        )],
        vec![("a", a), ("b", b)],
        &[],
    );
    let message = refusal(run_model(&m, &[]));
    assert!(
        message.contains("input 1 has shape [2], which cannot be joined with input 0 [2, 2] on axis 1"),
        "{message}"
    );
}

#[test]
fn a_broadcast_to_ten_billion_elements_is_refused_before_allocating() {
    let column = tensor(&[100_000, 1], vec![1.0f32; 100_000]);
    let row = tensor(&[1, 100_000], vec![2.0f32; 100_000]);
    for op in ["Add", "Sub", "Div", "Max"] {
        let m = graph(
            vec![wired(node(op, "", 14, vec![]), &["a", "b"], "y")],
            vec![("a", column.clone()), ("b", row.clone())],
            &[],
        );
        let message = refusal(run_model(&m, &[]));
        assert!(
            message.starts_with(&format!("{op}-14 \"p\": output shape [100000, 100000]")),
            "{message}"
        );
        assert!(
            message.contains("broadcasting [100000, 1] (inputs 0 to 0) with input 1 [1, 100000]"),
            "{message}"
        );
    }
    // Within the limits, the broadcast is computed.
    let m = graph(
        vec![wired(node("Add", "", 14, vec![]), &["a", "b"], "y")],
        vec![
            ("a", tensor(&[2, 1], vec![1i64, 2])),
            ("b", tensor(&[1, 2], vec![10i64, 20])),
        ],
        &[],
    );
    assert_eq!(run_model(&m, &[]).unwrap(), [tensor(&[2, 2], vec![11i64, 21, 12, 22])]);
}

#[test]
fn a_slice_with_more_starts_than_the_rank_is_refused_not_a_panic() {
    let data = ints(&[0, 1, 2, 3]);
    let slice = node("Slice", "", 13, vec![]);
    let result = run_pad_free(&slice, &[&data, &ints(&[0, 0, 0]), &ints(&[1, 1, 1])]);
    assert_refused(
        result,
        "Slice-13 \"p\"",
        &["starts holds 3 values but input 0 (data) [4] has rank 1"],
    );
    // Slice-1 takes them as attributes: the same refusal.
    let slice1 = node(
        "Slice",
        "",
        1,
        vec![ints_attr("starts", &[0, 0]), ints_attr("ends", &[1, 1])],
    );
    assert_refused(
        run_pad_free(&slice1, &[&data]),
        "Slice-1 \"p\"",
        &["starts holds 2 values but input 0 (data) [4] has rank 1"],
    );
}

fn run_pad_free(node: &Node, inputs: &[&Tensor]) -> Result<Tensor, OpError> {
    let inputs: Vec<Option<&Tensor>> = inputs.iter().copied().map(Some).collect();
    crate::reference::run_node(node, &inputs).map(|mut o| o.remove(0))
}

#[test]
fn the_run_budget_counts_every_value_the_nodes_produce() {
    // Each Concat makes 4 int64 (32 bytes); a 48-byte budget allows the first only.
    let x = ints(&[1, 2]);
    let concat = |inputs: &[&str], output| wired(node("Concat", "", 13, vec![int_attr("axis", 0)]), inputs, output);
    let m = graph(vec![concat(&["x", "x"], "a"), concat(&["x", "x"], "y")], vec![], &["x"]);
    let message = refusal(run_model_within(&m, std::slice::from_ref(&x), Budget::new(48)));
    assert!(message.contains("output shape [4]"), "{message}");
    assert!(
        message.contains("32 bytes, over the limit of 268435456 elements and 16 bytes"),
        "{message}"
    );
    assert!(message.contains("what is left of the run's memory budget"), "{message}");
    assert_eq!(
        run_model_within(&m, std::slice::from_ref(&x), Budget::new(64)).unwrap(),
        [ints(&[1, 2, 1, 2])]
    );
}

#[test]
fn pad_constant_and_shape_are_held_to_the_budget_too() {
    let x = ints(&[1, 2]);
    let pad = wired(pad_node(19, None), &["x", "pads"], "y");
    let m = graph(vec![pad], vec![("pads", ints(&[1, 1]))], &["x"]);
    let message = refusal(run_model_within(&m, std::slice::from_ref(&x), Budget::new(24)));
    assert!(
        message.starts_with("Pad-19 \"p\": output shape [4] from padding input 0 (data) [2]"),
        "{message}"
    );
    assert_eq!(
        run_model_within(&m, std::slice::from_ref(&x), Budget::new(32)).unwrap(),
        [ints(&[0, 1, 2, 0])]
    );
    let constant = wired(
        node("Constant", "", 13, vec![ints_attr("value_ints", &[1, 2, 3])]),
        &[],
        "y",
    );
    let m = graph(vec![constant], vec![], &[]);
    let message = refusal(run_model_within(&m, &[], Budget::new(16)));
    assert!(
        message.contains("output shape [3] from attribute \"value_ints\""),
        "{message}"
    );
    let shape = wired(node("Shape", "", 15, vec![]), &["x"], "y");
    let m = graph(vec![shape], vec![], &["x"]);
    let message = refusal(run_model_within(&m, std::slice::from_ref(&x), Budget::new(4)));
    assert!(
        message.contains("output shape [1] from input 0 (data) of rank 1"),
        "{message}"
    );
}

#[test]
fn initializers_and_inputs_are_not_copied_into_the_budget() {
    // A budget of 0 still runs a graph that only passes an initializer through Slice of
    // nothing: the initializer itself is borrowed, and an empty output costs nothing.
    let m = graph(
        vec![wired(node("Slice", "", 13, vec![]), &["w", "s", "e"], "y")],
        vec![("w", ints(&[1, 2, 3])), ("s", ints(&[1])), ("e", ints(&[1]))],
        &[],
    );
    assert_eq!(run_model_within(&m, &[], Budget::new(0)).unwrap(), [ints(&[])]);
}

#[test]
fn an_empty_output_whose_other_extents_overflow_is_refused() {
    // No element, but ndarray cannot lay out [0, 2^62, 2^62]: refused before allocating.
    let node = node("Add", "", 14, vec![]);
    let message = Budget::default()
        .check(&node, &[0, 1 << 62, 1 << 62], 8, "a test")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(
            "Add-14 \"p\": output shape [0, 4611686018427387904, 4611686018427387904] from a test has 0 elements"
        ),
        "{message}"
    );
    assert!(
        Budget::default()
            .check(&node, &[0, 1 << 40, 1 << 20], 8, "a test")
            .is_ok()
    );
}
