//! One test per refusal of docs/semantics.md: each names the node, the input and the value. Where
//! a rule has an accepted side next to the refused one, both are here.

use super::*;
use crate::operators::Rule;

const PAD19: &str = "Pad-19 \"p\"";

fn data_3x2() -> Tensor {
    tensor(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])
}

fn pad19(mode: &str, data: &Tensor, pads: &[i64]) -> Result<Tensor, OpError> {
    pad(&pad_node(19, Some(mode)), &[Some(data), Some(&ints(pads))])
}

#[test]
fn pads_of_the_wrong_length_are_refused() {
    assert_refused(
        pad19("constant", &data_3x2(), &[1, 2, 3]),
        PAD19,
        &["input 1 (pads)", "[1, 2, 3]", "4 are needed"],
    );
    // With axes, 2 × the number of axes.
    let node = pad_node(19, None);
    let result = pad(
        &node,
        &[Some(&data_3x2()), Some(&ints(&[1, 1, 1, 1])), None, Some(&ints(&[1]))],
    );
    assert_refused(result, PAD19, &["input 1 (pads)", "[1, 1, 1, 1]", "2 × 1 axes = 2"]);
    // Pad-1 and Pad-2 take them from an attribute, and say which.
    let node = super::node("Pad", "", 1, vec![ints_attr("paddings", &[1, 1])]);
    assert_refused(
        pad(&node, &[Some(&data_3x2())]),
        "Pad-1 \"p\"",
        &["attribute \"paddings\"", "[1, 1]"],
    );
    let node = super::node("Pad", "", 2, vec![ints_attr("pads", &[1, 1, 1, 1, 1, 1])]);
    assert_refused(
        pad(&node, &[Some(&data_3x2())]),
        "Pad-2 \"p\"",
        &["attribute \"pads\"", "[1, 1, 1, 1, 1, 1]"],
    );
}

#[test]
fn two_dimensional_pads_only_for_microsoft_pad() {
    let pads_2d = tensor(&[1, 4], vec![0i64, 1, 0, 0]);
    let result = pad(&pad_node(19, None), &[Some(&data_3x2()), Some(&pads_2d)]);
    assert_refused(result, PAD19, &["input 1 (pads)", "shape [1, 4]", "1-D"]);
    let expected = tensor(&[3, 3], vec![0.0f32, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 5.0, 6.0]);
    assert_eq!(
        pad(&ms_pad_node(None), &[Some(&data_3x2()), Some(&pads_2d)]).unwrap(),
        expected
    );
    assert_eq!(
        pad(&ms_pad_node(None), &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0]))]).unwrap(),
        expected
    );
    // [1, 2r] only, not any 2-D shape.
    let pads_2x2 = tensor(&[2, 2], vec![0i64, 1, 0, 0]);
    let result = pad(&ms_pad_node(None), &[Some(&data_3x2()), Some(&pads_2x2)]);
    assert_refused(result, "com.microsoft.Pad-1 \"p\"", &["input 1 (pads)", "shape [2, 2]"]);
}

#[test]
fn pads_must_be_int64() {
    let pads = tensor(&[4], vec![0i32, 1, 0, 0]);
    let result = pad(&pad_node(19, None), &[Some(&data_3x2()), Some(&pads)]);
    assert_refused(result, PAD19, &["input 1 (pads)", "tensor(int64)", "tensor(int32)"]);
}

#[test]
fn axes_out_of_range_are_refused_and_negative_ones_count_from_the_back() {
    let node = pad_node(19, None);
    let run = |axes: &Tensor| pad(&node, &[Some(&data_3x2()), Some(&ints(&[1, 0])), None, Some(axes)]);
    assert_refused(run(&ints(&[2])), PAD19, &["input 3 (axes)", "holds 2", "[-2, 1]"]);
    assert_refused(run(&ints(&[-3])), PAD19, &["input 3 (axes)", "holds -3", "[-2, 1]"]);
    // -2 is axis 0, -1 axis 1; int32 axes are accepted too.
    let expected = tensor(&[4, 2], vec![0.0f32, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(run(&ints(&[-2])).unwrap(), expected);
    assert_eq!(run(&tensor(&[1], vec![0i32])).unwrap(), expected);
    let expected = tensor(&[3, 3], vec![0.0f32, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 5.0, 6.0]);
    assert_eq!(run(&ints(&[-1])).unwrap(), expected);
    assert_refused(
        run(&tensor(&[1], vec![1.0f32])),
        PAD19,
        &["input 3 (axes)", "tensor(float)"],
    );
}

#[test]
fn a_repeated_axis_is_refused() {
    let node = pad_node(19, None);
    let run = |axes: &[i64]| {
        pad(
            &node,
            &[Some(&data_3x2()), Some(&ints(&[1, 1, 0, 0])), None, Some(&ints(axes))],
        )
    };
    // -1 and r - 1 name the same axis.
    assert_refused(run(&[-1, 1]), PAD19, &["input 3 (axes)", "[-1, 1]", "axis 1 twice"]);
    assert_refused(run(&[0, 0]), PAD19, &["input 3 (axes)", "[0, 0]", "axis 0 twice"]);
    // Listing axes in another order is fine: pads follow the listed order.
    let expected = tensor(
        &[4, 3],
        vec![0.0f32, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 5.0, 6.0],
    );
    assert_eq!(run(&[1, 0]).unwrap(), expected);
}

#[test]
fn an_output_extent_below_zero_is_refused() {
    assert_refused(
        pad19("constant", &data_3x2(), &[-2, 0, -2, 0]),
        PAD19,
        &["axis 0", "extent 3", "pads begin -2, end -2", "output extent -1"],
    );
    // Exactly zero is fine: an empty output.
    assert_eq!(pad19("constant", &data_3x2(), &[0, -1, 0, -1]).unwrap().shape(), [3, 0]);
    assert_eq!(pad19("edge", &data_3x2(), &[0, -1, 0, -1]).unwrap().shape(), [3, 0]);
}

#[test]
fn negative_pads_remove_before_padding() {
    // wrap of [a, b, c, d] with pads [1, -1] gives [c, a, b, c].
    let row = tensor(&[4], vec![1i64, 2, 3, 4]);
    assert_eq!(
        pad19("wrap", &row, &[1, -1]).unwrap(),
        tensor(&[4], vec![3i64, 1, 2, 3])
    );
    assert_eq!(
        pad19("reflect", &row, &[-1, 2]).unwrap(),
        tensor(&[5], vec![2i64, 3, 4, 3, 2])
    );
    assert_eq!(pad19("edge", &row, &[2, -3]).unwrap(), tensor(&[3], vec![1i64, 1, 1]));
    assert_eq!(pad19("constant", &row, &[-3, 1]).unwrap(), tensor(&[2], vec![4i64, 0]));
}

#[test]
fn copying_modes_refuse_an_axis_with_no_data_left() {
    let empty_columns = tensor(&[2, 0], Vec::<f32>::new());
    for mode in ["edge", "reflect", "wrap"] {
        assert_refused(
            pad19(mode, &empty_columns, &[0, 1, 0, 0]),
            PAD19,
            &["axis 1", mode, "none left", "extent 0, pads begin 1, end 0"],
        );
        // Over-removal leaves nothing either.
        let row = tensor(&[3], vec![1.0f32, 2.0, 3.0]);
        assert_refused(
            pad19(mode, &row, &[-3, 1]),
            PAD19,
            &["axis 0", mode, "extent 3, pads begin -3, end 1"],
        );
        assert_refused(
            pad19(mode, &row, &[2, -4]),
            PAD19,
            &["axis 0", mode, "pads begin 2, end -4"],
        );
        // Even when the output extent comes out 0 (3 + 1 - 4): the positive pad has nothing
        // to copy (docs/semantics.md#empty-axes).
        assert_refused(
            pad19(mode, &row, &[1, -4]),
            PAD19,
            &["axis 0", mode, "pads begin 1, end -4"],
        );
        // With no positive pad there is nothing to copy and nothing to refuse.
        assert_eq!(pad19(mode, &row, &[-1, -2]).unwrap(), tensor(&[0], Vec::<f32>::new()));
    }
    // Constant mode gives the empty axis.
    assert_eq!(
        pad19("constant", &tensor(&[3], vec![1.0f32, 2.0, 3.0]), &[1, -4]).unwrap(),
        tensor(&[0], Vec::<f32>::new())
    );
}

#[test]
fn constant_mode_fills_an_axis_with_no_data_left() {
    let node = pad_node(19, Some("constant"));
    let nine = scalar(9.0f32);
    let empty_columns = tensor(&[2, 0], Vec::<f32>::new());
    let out = pad(&node, &[Some(&empty_columns), Some(&ints(&[0, 1, 0, 0])), Some(&nine)]).unwrap();
    assert_eq!(out, tensor(&[2, 1], vec![9.0f32, 9.0]));
    // A removal past the data: the whole axis is the constant, of extent 3 − 5 + 4.
    let row = tensor(&[3], vec![1.0f32, 2.0, 3.0]);
    let out = pad(&node, &[Some(&row), Some(&ints(&[-5, 4])), Some(&nine)]).unwrap();
    assert_eq!(out, tensor(&[2], vec![9.0f32, 9.0]));
}

#[test]
fn padding_other_axes_of_an_empty_tensor_gives_an_empty_output() {
    let empty_rows = tensor(&[0, 2], Vec::<i64>::new());
    let empty_columns = tensor(&[2, 0], Vec::<i64>::new());
    for mode in ["constant", "edge", "reflect", "wrap"] {
        assert_eq!(
            pad19(mode, &empty_rows, &[0, 1, 0, 3]).unwrap(),
            tensor(&[0, 6], Vec::<i64>::new()),
            "{mode}"
        );
        assert_eq!(
            pad19(mode, &empty_columns, &[1, 0, 2, 0]).unwrap(),
            tensor(&[5, 0], Vec::<i64>::new()),
            "{mode}"
        );
    }
}

#[test]
fn constant_value_of_another_dtype_is_refused() {
    let result = pad(
        &pad_node(19, None),
        &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0])), Some(&scalar(1.0f64))],
    );
    assert_refused(
        result,
        PAD19,
        &["input 2 (constant_value)", "tensor(double)", "data is tensor(float)"],
    );
}

#[test]
fn constant_value_must_hold_one_element() {
    let node = pad_node(19, None);
    let run = |value: &Tensor| pad(&node, &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0])), Some(value)]);
    let two = tensor(&[2], vec![7.0f32, 8.0]);
    assert_refused(
        run(&two),
        PAD19,
        &["input 2 (constant_value)", "shape [2]", "one element"],
    );
    assert_refused(
        run(&tensor(&[1, 1], vec![7.0f32])),
        PAD19,
        &["input 2 (constant_value)", "shape [1, 1]"],
    );
    // Rank 0 and [1] both hold one element.
    let expected = tensor(&[3, 3], vec![7.0f32, 1.0, 2.0, 7.0, 3.0, 4.0, 7.0, 5.0, 6.0]);
    assert_eq!(run(&scalar(7.0f32)).unwrap(), expected);
    assert_eq!(run(&tensor(&[1], vec![7.0f32])).unwrap(), expected);
}

#[test]
fn constant_value_of_another_dtype_is_refused_in_every_mode() {
    for mode in ["reflect", "edge", "wrap"] {
        let result = pad(
            &pad_node(19, Some(mode)),
            &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0])), Some(&scalar(1.0f64))],
        );
        assert_refused(
            result,
            PAD19,
            &["input 2 (constant_value)", "tensor(double)", "data is tensor(float)"],
        );
    }
    // Its shape, though, only matters where it is used.
    let two = tensor(&[2], vec![7.0f32, 8.0]);
    let out = pad(
        &pad_node(19, Some("edge")),
        &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0])), Some(&two)],
    );
    assert_eq!(out.unwrap(), pad19("edge", &data_3x2(), &[0, 1, 0, 0]).unwrap());
}

#[test]
fn constant_value_is_ignored_outside_constant_mode() {
    let seven = scalar(7.0f32);
    for (mode, first_row) in [
        ("reflect", [2.0f32, 1.0, 2.0]),
        ("edge", [1.0, 1.0, 2.0]),
        ("wrap", [2.0, 1.0, 2.0]),
    ] {
        let node = pad_node(19, Some(mode));
        let out = pad(&node, &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0])), Some(&seven)]).unwrap();
        assert_eq!(out, pad19(mode, &data_3x2(), &[0, 1, 0, 0]).unwrap(), "{mode}");
        assert_eq!(
            &out.as_array::<f32>().unwrap().as_slice().unwrap()[..3],
            first_row,
            "{mode}"
        );
    }
}

#[test]
fn the_constant_defaults_to_the_zero_of_the_type() {
    let strings = tensor(&[1], vec![b"x".to_vec()]);
    let expected = tensor(&[2], vec![b"".to_vec(), b"x".to_vec()]);
    assert_eq!(pad19("constant", &strings, &[1, 0]).unwrap(), expected);
    let bools = tensor(&[1], vec![true]);
    assert_eq!(
        pad19("constant", &bools, &[0, 1]).unwrap(),
        tensor(&[2], vec![true, false])
    );
    let node = pad_node(19, None);
    let out = pad(&node, &[Some(&bools), Some(&ints(&[0, 1])), Some(&scalar(true))]).unwrap();
    assert_eq!(out, tensor(&[2], vec![true, true]));
}

#[test]
fn an_unknown_mode_is_refused() {
    assert_refused(
        pad19("mirror", &data_3x2(), &[0, 1, 0, 0]),
        PAD19,
        &["attribute \"mode\"", "\"mirror\""],
    );
    assert_refused(
        pad19("Reflect", &data_3x2(), &[0, 1, 0, 0]),
        PAD19,
        &["attribute \"mode\"", "\"Reflect\""],
    );
    let node = node("Pad", "", 19, vec![int_attr("mode", 1)]);
    assert_refused(
        pad(&node, &[Some(&data_3x2()), Some(&ints(&[0, 1, 0, 0]))]),
        PAD19,
        &["attribute \"mode\"", "Int(1)"],
    );
}

#[test]
fn rank_0_takes_empty_pads_and_returns_the_input() {
    let five = scalar(5i64);
    for mode in ["constant", "edge", "reflect", "wrap"] {
        assert_eq!(pad19(mode, &five, &[]).unwrap(), five, "{mode}");
    }
    let node = node("Pad", "", 2, vec![ints_attr("pads", &[])]);
    assert_eq!(pad(&node, &[Some(&scalar(1.5f32))]).unwrap(), scalar(1.5f32));
    assert_refused(
        pad19("constant", &five, &[0, 0]),
        PAD19,
        &["input 1 (pads)", "[0, 0]", "2 × 0 axes = 0"],
    );
    assert_refused(pad19("edge", &five, &[1]), PAD19, &["input 1 (pads)", "[1]"]);
}

const CCP: &str = "CenterCropPad-18 \"p\"";

#[test]
fn center_crop_pad_shape_needs_one_value_per_axis() {
    let data = tensor(&[4, 4], vec![0i32; 16]);
    let run = |node: &Node, shape: &Tensor| center_crop_pad(node, &[Some(&data), Some(shape)]);
    let all = ccp_node(None);
    assert_refused(
        run(&all, &ints(&[2])),
        CCP,
        &["input 1 (shape)", "[2]", "one value per axis (2)"],
    );
    assert_refused(run(&all, &ints(&[2, 2, 2])), CCP, &["input 1 (shape)", "[2, 2, 2]"]);
    assert_refused(
        run(&all, &tensor(&[1, 2], vec![2i64, 2])),
        CCP,
        &["input 1 (shape)", "of shape [1, 2]"],
    );
    assert_refused(
        run(&all, &tensor(&[2], vec![2.0f32, 2.0])),
        CCP,
        &["input 1 (shape)", "tensor(float)"],
    );
    // With axes, one value per listed axis.
    let one_axis = ccp_node(Some(&[1]));
    assert_refused(
        run(&one_axis, &ints(&[2, 2])),
        CCP,
        &["input 1 (shape)", "[2, 2]", "(1)"],
    );
    assert_eq!(run(&one_axis, &ints(&[2])).unwrap().shape(), [4, 2]);
}

#[test]
fn center_crop_pad_refuses_a_negative_extent() {
    let data = tensor(&[4, 4], vec![0i32; 16]);
    let result = center_crop_pad(&ccp_node(None), &[Some(&data), Some(&ints(&[2, -1]))]);
    assert_refused(result, CCP, &["input 1 (shape)", "holds -1", "axis 1"]);
}

#[test]
fn center_crop_pad_refuses_repeated_or_out_of_range_axes() {
    let data = tensor(&[4, 4], vec![0i32; 16]);
    let run = |axes: &[i64]| center_crop_pad(&ccp_node(Some(axes)), &[Some(&data), Some(&ints(&[2, 2]))]);
    assert_refused(run(&[0, -2]), CCP, &["attribute \"axes\"", "[0, -2]", "axis 0 twice"]);
    assert_refused(run(&[-1, 1]), CCP, &["attribute \"axes\"", "[-1, 1]", "axis 1 twice"]);
    assert_refused(run(&[0, 2]), CCP, &["attribute \"axes\"", "holds 2", "[-2, 1]"]);
    assert_refused(run(&[-3, 0]), CCP, &["attribute \"axes\"", "holds -3"]);
}

#[test]
fn extreme_pads_are_refused_without_overflow() {
    let row = tensor(&[3], vec![1u8, 2, 3]);
    assert_refused(
        pad19("constant", &row, &[i64::MAX, 0]),
        PAD19,
        &["output shape [9223372036854775810]", "exceeds the limit"],
    );
    assert_refused(
        pad19("edge", &row, &[i64::MAX, i64::MAX]),
        PAD19,
        &["output shape [18446744073709551617]", "exceeds the limit"],
    );
    assert_refused(
        pad19("constant", &row, &[i64::MIN, 0]),
        PAD19,
        &["axis 0", "begin -9223372036854775808", "below 0"],
    );
    assert_refused(
        pad19("wrap", &row, &[i64::MIN, i64::MAX]),
        PAD19,
        &["axis 0", "none left"],
    );
    let result = center_crop_pad(&ccp_node(None), &[Some(&row), Some(&ints(&[i64::MAX]))]);
    assert_refused(
        result,
        CCP,
        &["output shape [9223372036854775807]", "exceeds the limit"],
    );
}

#[test]
fn outputs_over_the_memory_limit_are_refused_before_allocating() {
    // 2^28 elements is within the element limit, but at 16 bytes a complex128 is 4 GiB.
    let pair = tensor(&[2], vec![num_complex::Complex64::new(1.0, 2.0); 2]);
    assert_refused(
        pad19("constant", &pair, &[0, (1 << 28) - 2]),
        PAD19,
        &[
            "output shape [268435456]",
            "16 bytes an element",
            "limit of 2147483648 bytes",
        ],
    );
    // A long string padded by copies of itself: each copy clones its bytes.
    let long = tensor(&[1], vec![vec![b'x'; 1 << 20]]);
    assert_refused(
        pad19("edge", &long, &[0, 4096]),
        PAD19,
        &["output shape [4097]", &format!("{} bytes an element", (1 << 20) + 24)],
    );
    assert_eq!(pad19("edge", &long, &[0, 3]).unwrap().shape(), [4]);
    let result = center_crop_pad(&ccp_node(None), &[Some(&pair), Some(&ints(&[1 << 28]))]);
    assert_refused(result, CCP, &["output shape [268435456]", "16 bytes an element"]);
}

#[test]
fn missing_inputs_are_refused() {
    assert_refused(pad(&pad_node(19, None), &[]), PAD19, &["input 0 (data)", "missing"]);
    assert_refused(
        pad(&pad_node(19, None), &[Some(&data_3x2()), None]),
        PAD19,
        &["input 1 (pads)", "missing"],
    );
    let result = center_crop_pad(&ccp_node(None), &[Some(&data_3x2())]);
    assert_refused(result, CCP, &["input 1 (shape)", "missing"]);
}

#[test]
fn rank_0_with_axes() {
    let five = scalar(5i64);
    let node = pad_node(19, None);
    let (empty, pads) = (ints(&[]), ints(&[1, 1]));
    assert_eq!(
        pad(&node, &[Some(&five), Some(&empty), None, Some(&empty)]).unwrap(),
        five
    );
    let result = pad(&node, &[Some(&five), Some(&pads), None, Some(&ints(&[0]))]);
    assert_refused(result, PAD19, &["input 3 (axes)", "holds 0", "rank 0"]);
}

#[test]
fn center_crop_pad_takes_only_the_types_of_its_schema() {
    use crate::tensor::{Float4E2M1, Float8E4M3FN, Float8E8M0, Int2, Int4, Uint2, Uint4};
    // all_tensor_types_ir4: nothing that came after Pad-13's types (docs/semantics.md#centercroppad).
    let refused = [
        tensor(&[3], vec![Int4(-8), Int4(7), Int4(-1)]),
        tensor(&[1], vec![Uint4(3)]),
        tensor(&[1], vec![Int2(1)]),
        tensor(&[1], vec![Uint2(1)]),
        tensor(&[1], vec![Float8E4M3FN::from_bits(0x38)]),
        tensor(&[1], vec![Float4E2M1::from_bits(2)]),
        tensor(&[1], vec![Float8E8M0::from_bits(127)]),
    ];
    for data in &refused {
        let type_name = format!("tensor({})", data.data_type());
        assert_refused(
            center_crop_pad(&ccp_node(None), &[Some(data), Some(&ints(&[6]))]),
            CCP,
            &["does not accept", &type_name, "input 0 (input_data)"],
        );
    }
    let strings = tensor(&[1], vec![b"a".to_vec()]);
    let out = center_crop_pad(&ccp_node(None), &[Some(&strings), Some(&ints(&[2]))]).unwrap();
    assert_eq!(out, tensor(&[2], vec![b"a".to_vec(), b"".to_vec()]));
}

#[test]
fn an_empty_output_whose_other_extents_overflow_is_refused_not_a_panic() {
    // Found by fuzzing (model_eval): shape [2, 0] padded to [2^62 + 2^62 + 2, 0] has no
    // elements, but ndarray cannot lay out an array whose non-zero extents overflow isize.
    let x = tensor(&[2, 0], vec![0i32; 0]);
    let big = 1i64 << 62;
    let result = pad(&pad_node(19, None), &[Some(&x), Some(&ints(&[big, 0, big, 0]))]);
    assert_refused(
        result,
        "Pad-19 \"p\"",
        &["output shape [9223372036854775810, 0]", "exceeds the limit"],
    );
    // Within isize, the same empty output is fine.
    let out = pad(&pad_node(19, None), &[Some(&x), Some(&ints(&[1 << 40, 0, 0, 0]))]).unwrap();
    assert_eq!(out.shape(), [(1usize << 40) + 2, 0]);
}

#[test]
fn a_refusal_names_every_rule_the_node_breaks_its_message_the_first() {
    // Pad-11 with wrap (Pad-19 and later) and an axes input (Pad-18 and later), its
    // constant_value of another type: three rules, found independently.
    let node = pad_node(11, Some("wrap"));
    let error = pad(
        &node,
        &[
            Some(&data_3x2()),
            Some(&ints(&[1, 1])),
            Some(&scalar(1i32)),
            Some(&ints(&[0])),
        ],
    )
    .unwrap_err();
    assert_eq!(error.rule, Rule::ExtraInput);
    assert!(error.message.contains("does not accept input 3"), "{}", error.message);
    assert_eq!(
        error.rules(),
        [Rule::ExtraInput, Rule::ModeNotInVersion, Rule::ConstantType]
    );
    // One rule broken: one rule named.
    let error = pad19("wrap", &data_3x2(), &[1, 2, 3]).unwrap_err();
    assert_eq!(error.rules(), [Rule::PadsLength]);
}
