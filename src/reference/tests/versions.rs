//! What each Pad version accepts: element types, modes, inputs and attributes (docs/semantics.md#versions,
//! Versions), and com.microsoft Pad's differences.

use half::{bf16, f16};

use super::*;
use crate::operators::{OpVersion, PadOp};
use crate::tensor::{DataType, Float4E2M1, Float8E4M3FN, Float8E8M0, Int2};

/// Checks that `data` (two distinct elements `[a, b]`) is refused at Pad-`refused` naming the
/// version and the type, and at Pad-`accepted` is edge-padded to `[a, a, b]`.
#[track_caller]
fn gate<T: Element>(a: T, b: T, refused: i64, accepted: i64) {
    let data = tensor(&[2], vec![a.clone(), b.clone()]);
    let pads = ints(&[1, 0]);
    let result = pad(&pad_node(refused, Some("edge")), &[Some(&data), Some(&pads)]);
    let type_name = format!("tensor({})", T::DATA_TYPE);
    assert_refused(
        result,
        &format!("Pad-{refused} \"p\""),
        &["does not accept", &type_name, "input 0 (data)"],
    );
    let out = pad(&pad_node(accepted, Some("edge")), &[Some(&data), Some(&pads)]).unwrap();
    assert_eq!(out, tensor(&[3], vec![a.clone(), a, b]), "Pad-{accepted}");
}

#[test]
fn element_types_arrive_with_their_versions() {
    gate(b"a".to_vec(), b"b".to_vec(), 11, 13);
    gate(true, false, 11, 13);
    gate(bf16::from_f32(1.5), bf16::from_f32(-2.0), 11, 13);
    gate(Float8E4M3FN::from_bits(0x38), Float8E4M3FN::from_bits(0x40), 19, 21);
    gate(Float4E2M1::from_bits(0x2), Float4E2M1::from_bits(0x9), 21, 23);
    gate(Float8E8M0::from_bits(127), Float8E8M0::from_bits(130), 23, 24);
    gate(Int2(-2), Int2(1), 24, 25);
}

#[test]
fn the_type_table_of_semantics_md() {
    use DataType::*;
    // The version each type arrives in, as docs/semantics.md's table lists them.
    let since = |t: DataType| match t {
        Float | Double | Float16 => 1,
        Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 => 11,
        Bool | String | Bfloat16 | Complex64 | Complex128 => 13,
        Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Int4 | Uint4 => 21,
        Float4E2M1 => 23,
        Float8E8M0 => 24,
        Uint2 | Int2 => 25,
    };
    for t in DataType::ALL {
        for version in [1, 2, 11, 13, 18, 19, 21, 23, 24, 25] {
            assert_eq!(
                OpVersion {
                    op: PadOp::Pad,
                    version
                }
                .accepts(t),
                version >= since(t),
                "Pad-{version}, {t}"
            );
        }
        assert_eq!(
            OpVersion {
                op: PadOp::MicrosoftPad,
                version: 1
            }
            .accepts(t),
            matches!(t, Float | Double | Float16),
            "{t}"
        );
    }
}

#[test]
fn wrap_arrives_in_pad_19() {
    let data = tensor(&[3], vec![1i64, 2, 3]);
    let pads = ints(&[2, 0]);
    let result = pad(&pad_node(18, Some("wrap")), &[Some(&data), Some(&pads)]);
    assert_refused(result, "Pad-18 \"p\"", &["mode \"wrap\""]);
    let out = pad(&pad_node(19, Some("wrap")), &[Some(&data), Some(&pads)]).unwrap();
    assert_eq!(out, tensor(&[5], vec![2i64, 3, 1, 2, 3]));
    for version in [1, 2] {
        let node = node(
            "Pad",
            "",
            version,
            vec![
                string_attr("mode", "wrap"),
                ints_attr(["paddings", "pads"][version as usize - 1], &[0, 0]),
            ],
        );
        assert_refused(
            pad(&node, &[Some(&tensor(&[1], vec![1.0f32]))]),
            &format!("Pad-{version} \"p\""),
            &["mode \"wrap\""],
        );
    }
}

#[test]
fn the_axes_input_arrives_in_pad_18() {
    let data = tensor(&[2, 2], vec![1i64, 2, 3, 4]);
    let (pads, axes) = (ints(&[1, 0]), ints(&[1]));
    let inputs = [Some(&data), Some(&pads), None, Some(&axes)];
    assert_refused(
        pad(&pad_node(13, None), &inputs),
        "Pad-13 \"p\"",
        &["does not accept input 3"],
    );
    let out = pad(&pad_node(18, None), &inputs).unwrap();
    assert_eq!(out, tensor(&[2, 3], vec![0i64, 1, 2, 0, 3, 4]));
}

fn data_2() -> Tensor {
    tensor(&[2], vec![1.0f32, 2.0])
}

#[test]
fn pad_1_takes_paddings_and_pad_2_takes_pads() {
    let p1 = |attributes| pad(&node("Pad", "", 1, attributes), &[Some(&data_2())]);
    let p2 = |attributes| pad(&node("Pad", "", 2, attributes), &[Some(&data_2())]);
    let expected = tensor(&[4], vec![0.0f32, 1.0, 2.0, 0.0]);
    assert_eq!(p1(vec![ints_attr("paddings", &[1, 1])]).unwrap(), expected);
    assert_eq!(p2(vec![ints_attr("pads", &[1, 1])]).unwrap(), expected);
    assert_refused(
        p1(vec![ints_attr("pads", &[1, 1])]),
        "Pad-1 \"p\"",
        &["attribute \"pads\""],
    );
    assert_refused(
        p2(vec![ints_attr("paddings", &[1, 1])]),
        "Pad-2 \"p\"",
        &["attribute \"paddings\""],
    );
    assert_refused(p1(vec![]), "Pad-1 \"p\"", &["attribute \"paddings\"", "missing"]);
    assert_refused(p2(vec![]), "Pad-2 \"p\"", &["attribute \"pads\"", "missing"]);
    assert_refused(
        p2(vec![float_attr("pads", 1.0)]),
        "Pad-2 \"p\"",
        &["attribute \"pads\"", "Float(1.0)"],
    );
    // Pads come from the attribute only: an input 1 is refused.
    let node = node("Pad", "", 2, vec![ints_attr("pads", &[1, 1])]);
    assert_refused(
        pad(&node, &[Some(&data_2()), Some(&ints(&[1, 1]))]),
        "Pad-2 \"p\"",
        &["input 1"],
    );
}

#[test]
fn pad_1_and_2_fill_with_the_value_attribute() {
    for (version, name) in [(1, "paddings"), (2, "pads")] {
        let node = node(
            "Pad",
            "",
            version,
            vec![ints_attr(name, &[1, 0]), float_attr("value", 2.5)],
        );
        assert_eq!(
            pad(&node, &[Some(&data_2())]).unwrap(),
            tensor(&[3], vec![2.5f32, 1.0, 2.0]),
            "Pad-{version}"
        );
        let doubles = tensor(&[1], vec![4.0f64]);
        assert_eq!(pad(&node, &[Some(&doubles)]).unwrap(), tensor(&[2], vec![2.5f64, 4.0]));
        let halves = tensor(&[1], vec![f16::from_f32(4.0)]);
        assert_eq!(
            pad(&node, &[Some(&halves)]).unwrap(),
            tensor(&[2], vec![f16::from_f32(2.5), f16::from_f32(4.0)])
        );
        // In edge mode the value is not used.
        let mut edge = node.clone();
        edge.attributes.push(string_attr("mode", "edge"));
        assert_eq!(
            pad(&edge, &[Some(&data_2())]).unwrap(),
            tensor(&[3], vec![1.0f32, 1.0, 2.0])
        );
        let wrong = super::node("Pad", "", version, vec![ints_attr(name, &[1, 0]), int_attr("value", 2)]);
        assert_refused(
            pad(&wrong, &[Some(&data_2())]),
            &format!("Pad-{version} \"p\""),
            &["attribute \"value\"", "Int(2)"],
        );
    }
}

#[test]
fn pad_11_and_later_take_no_pads_or_value_attribute() {
    for attribute in [ints_attr("pads", &[1, 0]), float_attr("value", 1.0)] {
        let node = node("Pad", "", 11, vec![attribute.clone()]);
        let result = pad(&node, &[Some(&data_2()), Some(&ints(&[1, 0]))]);
        assert_refused(result, "Pad-11 \"p\"", &[&format!("attribute {:?}", attribute.name)]);
    }
}

#[test]
fn pad_1_and_2_refuse_int32_data() {
    let ints32 = tensor(&[2], vec![1i32, 2]);
    for (version, name) in [(1, "paddings"), (2, "pads")] {
        let node = node("Pad", "", version, vec![ints_attr(name, &[1, 0])]);
        assert_refused(
            pad(&node, &[Some(&ints32)]),
            &format!("Pad-{version} \"p\""),
            &["tensor(int32)", "input 0 (data)"],
        );
    }
    assert_eq!(pad19_edge(&ints32), tensor(&[3], vec![1i32, 1, 2]));
}

fn pad19_edge(data: &Tensor) -> Tensor {
    pad(&pad_node(19, Some("edge")), &[Some(data), Some(&ints(&[1, 0]))]).unwrap()
}

#[test]
fn pad_1_pads_layout_is_begins_then_ends() {
    // [x1_begin, x2_begin, x1_end, x2_end] = [1, 0, 0, 2]: a row before, two columns after.
    let node = node("Pad", "", 1, vec![ints_attr("paddings", &[1, 0, 0, 2])]);
    let data = tensor(&[1, 2], vec![1.0f32, 2.0]);
    let expected = tensor(&[2, 4], vec![0.0f32, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0]);
    assert_eq!(pad(&node, &[Some(&data)]).unwrap(), expected);
}

const MS: &str = "com.microsoft.Pad-1 \"p\"";

#[test]
fn microsoft_pad_takes_float_types_only() {
    let halves = tensor(&[2], vec![f16::from_f32(1.0), f16::from_f32(2.0)]);
    let out = pad(&ms_pad_node(Some("edge")), &[Some(&halves), Some(&ints(&[0, 1]))]).unwrap();
    assert_eq!(
        out,
        tensor(&[3], vec![f16::from_f32(1.0), f16::from_f32(2.0), f16::from_f32(2.0)])
    );
    let ints32 = tensor(&[2], vec![1i32, 2]);
    assert_refused(
        pad(&ms_pad_node(None), &[Some(&ints32), Some(&ints(&[0, 1]))]),
        MS,
        &["tensor(int32)", "input 0 (data)"],
    );
}

#[test]
fn microsoft_pad_value_may_be_rank_0_or_1() {
    let expected = tensor(&[3], vec![1.0f32, 2.0, 9.0]);
    for value in [scalar(9.0f32), tensor(&[1], vec![9.0f32])] {
        let out = pad(
            &ms_pad_node(None),
            &[Some(&data_2()), Some(&ints(&[0, 1])), Some(&value)],
        )
        .unwrap();
        assert_eq!(out, expected, "value of shape {:?}", value.shape());
    }
    let two = tensor(&[2], vec![9.0f32, 9.0]);
    let result = pad(&ms_pad_node(None), &[Some(&data_2()), Some(&ints(&[0, 1])), Some(&two)]);
    assert_refused(result, MS, &["input 2 (value)", "shape [2]"]);
}

#[test]
fn microsoft_pad_is_like_pad_11_in_modes_and_inputs() {
    let result = pad(&ms_pad_node(Some("wrap")), &[Some(&data_2()), Some(&ints(&[0, 1]))]);
    assert_refused(result, MS, &["mode \"wrap\""]);
    let reflect = pad(&ms_pad_node(Some("reflect")), &[Some(&data_2()), Some(&ints(&[0, 1]))]).unwrap();
    assert_eq!(reflect, tensor(&[3], vec![1.0f32, 2.0, 1.0]));
    let axes = ints(&[0]);
    let result = pad(
        &ms_pad_node(None),
        &[Some(&data_2()), Some(&ints(&[0, 1])), None, Some(&axes)],
    );
    assert_refused(result, MS, &["does not accept input 3"]);
}
