//! The ops of the CenterCropPad function body, run through `run_node` as graphs run them.

use super::*;
use crate::reference::run_node;

fn run(node: &Node, inputs: &[&Tensor]) -> Result<Tensor, OpError> {
    let inputs: Vec<Option<&Tensor>> = inputs.iter().copied().map(Some).collect();
    run_node(node, &inputs).map(|mut outputs| outputs.remove(0))
}

#[test]
fn shape_with_start_and_end() {
    let data = tensor(&[2, 3, 4], vec![0u8; 24]);
    let shape = |attributes| run(&node("Shape", "", 15, attributes), &[&data]).unwrap();
    assert_eq!(shape(vec![]), ints(&[2, 3, 4]));
    assert_eq!(shape(vec![int_attr("start", 1)]), ints(&[3, 4]));
    assert_eq!(shape(vec![int_attr("end", -1)]), ints(&[2, 3]));
    // Out-of-range values clamp; an empty range is empty.
    assert_eq!(shape(vec![int_attr("start", -2), int_attr("end", 10)]), ints(&[3, 4]));
    assert_eq!(shape(vec![int_attr("start", -10), int_attr("end", 1)]), ints(&[2]));
    assert_eq!(shape(vec![int_attr("start", 2), int_attr("end", 1)]), ints(&[]));
}

#[test]
fn gather_takes_negative_indices_and_refuses_out_of_range_ones() {
    let data = ints(&[10, 20, 30]);
    let gather = node("Gather", "", 13, vec![]);
    assert_eq!(run(&gather, &[&data, &ints(&[-1, 0])]).unwrap(), ints(&[30, 10]));
    // A rank-0 index drops the axis.
    assert_eq!(run(&gather, &[&data, &scalar(1i64)]).unwrap(), scalar(20i64));
    assert_eq!(run(&gather, &[&data, &tensor(&[1], vec![-3i32])]).unwrap(), ints(&[10]));
    for bad in [3, -4] {
        let result = run(&gather, &[&data, &ints(&[0, bad])]);
        assert_refused(
            result,
            "Gather-13 \"p\"",
            &["input 1 (indices)", &format!("holds {bad}"), "extent 3"],
        );
    }
    let matrix = tensor(&[2, 2], vec![1i64, 2, 3, 4]);
    let columns = node("Gather", "", 13, vec![int_attr("axis", -1)]);
    assert_eq!(
        run(&columns, &[&matrix, &ints(&[1])]).unwrap(),
        tensor(&[2, 1], vec![2i64, 4])
    );
}

#[test]
fn slice_clamps_ends_and_takes_positive_steps() {
    let data = ints(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let slice = node("Slice", "", 13, vec![]);
    let run_slice = |inputs: &[&Tensor]| run(&slice, &[&[&data][..], inputs].concat());
    assert_eq!(
        run_slice(&[&ints(&[1]), &ints(&[100])]).unwrap(),
        ints(&[1, 2, 3, 4, 5, 6, 7, 8, 9])
    );
    assert_eq!(run_slice(&[&ints(&[-3]), &ints(&[-1])]).unwrap(), ints(&[7, 8]));
    assert_eq!(
        run_slice(&[&ints(&[1]), &ints(&[i64::MAX]), &ints(&[0]), &ints(&[2])]).unwrap(),
        ints(&[1, 3, 5, 7, 9])
    );
    assert_eq!(run_slice(&[&ints(&[5]), &ints(&[2])]).unwrap(), ints(&[]));
    let result = run_slice(&[&ints(&[5]), &ints(&[0]), &ints(&[0]), &ints(&[-1])]);
    assert_refused(result, "Slice-13 \"p\"", &["step -1", "not supported"]);
    // Slice-1 takes attributes.
    let slice_1 = node("Slice", "", 1, vec![ints_attr("starts", &[2]), ints_attr("ends", &[4])]);
    assert_eq!(run(&slice_1, &[&data]).unwrap(), ints(&[2, 3]));
    let matrix = tensor(&[2, 3], vec![1i64, 2, 3, 4, 5, 6]);
    let last_column = run(&slice, &[&matrix, &ints(&[-1]), &ints(&[3]), &ints(&[-1])]).unwrap();
    assert_eq!(last_column, tensor(&[2, 1], vec![3i64, 6]));
}

#[test]
fn concat_joins_along_an_axis() {
    let concat = node("Concat", "", 13, vec![int_attr("axis", 0)]);
    assert_eq!(run(&concat, &[&ints(&[1, 2]), &ints(&[3])]).unwrap(), ints(&[1, 2, 3]));
    let last = node("Concat", "", 13, vec![int_attr("axis", -1)]);
    let (a, b) = (tensor(&[2, 1], vec![1i64, 2]), tensor(&[2, 1], vec![3i64, 4]));
    assert_eq!(run(&last, &[&a, &b]).unwrap(), tensor(&[2, 2], vec![1i64, 3, 2, 4]));
    let result = run(&concat, &[&ints(&[1]), &tensor(&[1], vec![1.0f32])]);
    assert_refused(result, "Concat-13 \"p\"", &["input 1", "tensor(float)"]);
}

#[test]
fn arithmetic_broadcasts() {
    let column = tensor(&[2, 1], vec![1i64, 2]);
    let row = ints(&[10, 20, 30]);
    let add = node("Add", "", 14, vec![]);
    assert_eq!(
        run(&add, &[&column, &row]).unwrap(),
        tensor(&[2, 3], vec![11i64, 21, 31, 12, 22, 32])
    );
    let sub = node("Sub", "", 14, vec![]);
    assert_eq!(
        run(&sub, &[&ints(&[5]), &column]).unwrap(),
        tensor(&[2, 1], vec![4i64, 3])
    );
    let max = node("Max", "", 13, vec![]);
    assert_eq!(
        run(&max, &[&ints(&[1, 5]), &ints(&[3]), &scalar(2i64)]).unwrap(),
        ints(&[3, 5])
    );
    let floats = run(&max, &[&tensor(&[2], vec![1.0f32, f32::NAN]), &scalar(2.0f32)]).unwrap();
    let floats = floats.as_array::<f32>().unwrap();
    assert_eq!(floats[0], 2.0);
    assert!(floats[1].is_nan(), "numpy.maximum propagates NaN");
    let result = run(&add, &[&ints(&[1, 2]), &ints(&[1, 2, 3])]);
    assert_refused(result, "Add-14 \"p\"", &["[2]", "[3]", "do not broadcast"]);
    let result = run(&add, &[&ints(&[1]), &tensor(&[1], vec![1.0f32])]);
    assert_refused(result, "Add-14 \"p\"", &["tensor(int64)", "tensor(float)"]);
}

#[test]
fn int64_division_truncates_and_refuses_zero() {
    let div = node("Div", "", 14, vec![]);
    assert_eq!(
        run(&div, &[&ints(&[-7, 7, 6]), &ints(&[2, -2, 3])]).unwrap(),
        ints(&[-3, -3, 2])
    );
    assert_refused(
        run(&div, &[&ints(&[1, 2]), &ints(&[1, 0])]),
        "Div-14 \"p\"",
        &["division by zero"],
    );
    let floats = run(&div, &[&scalar(1.0f64), &scalar(0.0f64)]).unwrap();
    assert_eq!(floats, scalar(f64::INFINITY));
}

#[test]
fn constant_gives_its_value() {
    let constant = node("Constant", "", 13, vec![ints_attr("value_ints", &[4, 5])]);
    assert_eq!(run_node(&constant, &[]).unwrap(), [ints(&[4, 5])]);
    let tensor_value = Attribute {
        name: "value".into(),
        value: AttributeValue::Tensor(scalar(1.5f32)),
    };
    assert_eq!(
        run_node(&node("Constant", "", 13, vec![tensor_value]), &[]).unwrap(),
        [scalar(1.5f32)]
    );
}

#[test]
fn other_ops_are_not_supported() {
    let data = ints(&[1]);
    let result = run(&node("Conv", "", 11, vec![]), &[&data]);
    assert_refused(
        result,
        "Conv-11 \"p\"",
        &["op Conv is not supported by the ref backend"],
    );
    // A helper op's name in another domain is not the helper.
    let result = run(&node("Add", "com.example", 1, vec![]), &[&data, &data]);
    assert_refused(result, "com.example.Add-1 \"p\"", &["op Add is not supported"]);
}
