//! The worked examples of the operator pages (ONNX's Pad and CenterCropPad, onnxruntime's
//! com.microsoft Pad), with their exact outputs.

use ndarray::{ArrayD, IxDyn, s};

use super::*;
use crate::reference::run_node;

/// The data of every Pad page's examples.
fn spec_data() -> Tensor {
    tensor(&[3, 2], vec![1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7])
}

/// Every Pad version that takes pads as an input and accepts float.
const INPUT_VERSIONS: [i64; 8] = [11, 13, 18, 19, 21, 23, 24, 25];

fn pad_spec_data(version: i64, mode: &str, pads: &[i64]) -> Tensor {
    pad(&pad_node(version, Some(mode)), &[Some(&spec_data()), Some(&ints(pads))]).unwrap()
}

#[test]
fn example_1_constant_mode() {
    let expected = tensor(
        &[3, 4],
        vec![0.0f32, 0.0, 1.0, 1.2, 0.0, 0.0, 2.3, 3.4, 0.0, 0.0, 4.5, 5.7],
    );
    for version in INPUT_VERSIONS {
        let node = pad_node(version, Some("constant"));
        let out = pad(
            &node,
            &[Some(&spec_data()), Some(&ints(&[0, 2, 0, 0])), Some(&scalar(0.0f32))],
        )
        .unwrap();
        assert_eq!(out, expected, "Pad-{version}");
    }
}

#[test]
fn example_2_reflect_mode() {
    let expected = tensor(
        &[3, 4],
        vec![1.0f32, 1.2, 1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7, 4.5, 5.7],
    );
    for version in INPUT_VERSIONS {
        assert_eq!(
            pad_spec_data(version, "reflect", &[0, 2, 0, 0]),
            expected,
            "Pad-{version}"
        );
    }
}

#[test]
fn example_3_edge_mode() {
    let expected = tensor(
        &[3, 4],
        vec![1.0f32, 1.0, 1.0, 1.2, 2.3, 2.3, 2.3, 3.4, 4.5, 4.5, 4.5, 5.7],
    );
    for version in INPUT_VERSIONS {
        assert_eq!(pad_spec_data(version, "edge", &[0, 2, 0, 0]), expected, "Pad-{version}");
    }
}

#[test]
fn example_4_wrap_mode() {
    // The Pad page's example 4 (Pad-19/21/23): pads [2, 1, 1, 1], a 6 × 4 output.
    #[rustfmt::skip]
    let expected = tensor(&[6, 4], vec![
        3.4f32, 2.3, 3.4, 2.3,
        5.7, 4.5, 5.7, 4.5,
        1.2, 1.0, 1.2, 1.0,
        3.4, 2.3, 3.4, 2.3,
        5.7, 4.5, 5.7, 4.5,
        1.2, 1.0, 1.2, 1.0,
    ]);
    for version in [19, 21, 23, 24, 25] {
        assert_eq!(pad_spec_data(version, "wrap", &[2, 1, 1, 1]), expected, "Pad-{version}");
    }
}

#[test]
fn pad_2_example_with_the_pads_attribute() {
    let node = node("Pad", "", 2, vec![ints_attr("pads", &[0, 2, 0, 0])]);
    let expected = tensor(
        &[3, 4],
        vec![0.0f32, 0.0, 1.0, 1.2, 0.0, 0.0, 2.3, 3.4, 0.0, 0.0, 4.5, 5.7],
    );
    assert_eq!(pad(&node, &[Some(&spec_data())]).unwrap(), expected);
}

#[test]
fn pad_1_example_paddings_follow_the_stated_layout_not_the_example() {
    // Pad-1's example writes paddings [0, 0, 2, 0] for "2 at the beginning of the second
    // dimension" (interleaved). The stated layout [x1_begin, x2_begin, x1_end, x2_end] wins:
    // that is 2 rows at the end of the first dimension.
    let node = node("Pad", "", 1, vec![ints_attr("paddings", &[0, 0, 2, 0])]);
    let expected = tensor(&[5, 2], vec![1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(pad(&node, &[Some(&spec_data())]).unwrap(), expected);
    // And the stated layout for the example's intent.
    let node = super::node("Pad", "", 1, vec![ints_attr("paddings", &[0, 2, 0, 0])]);
    let expected = tensor(
        &[3, 4],
        vec![0.0f32, 0.0, 1.0, 1.2, 0.0, 0.0, 2.3, 3.4, 0.0, 0.0, 4.5, 5.7],
    );
    assert_eq!(pad(&node, &[Some(&spec_data())]).unwrap(), expected);
}

#[test]
fn microsoft_pad_example() {
    // com.microsoft Pad's page prints the output with one more level of brackets than the data
    // has; the output has the data's rank, as for ai.onnx Pad.
    let expected = tensor(
        &[3, 4],
        vec![0.0f32, 0.0, 1.0, 1.2, 0.0, 0.0, 2.3, 3.4, 0.0, 0.0, 4.5, 5.7],
    );
    assert_eq!(
        pad(&ms_pad_node(None), &[Some(&spec_data()), Some(&ints(&[0, 2, 0, 0]))]).unwrap(),
        expected
    );
}

/// `1, 2, 3, ...` in row-major order, so every element is distinct and none is the fill 0.
fn arange(shape: &[usize]) -> ArrayD<f32> {
    let n: usize = shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(shape), (1..=n).map(|v| v as f32).collect()).unwrap()
}

fn run_ccp(x: &ArrayD<f32>, shape: &[i64], axes: Option<&[i64]>) -> ArrayD<f32> {
    let input = Tensor::from_array(x.clone());
    let out = center_crop_pad(&ccp_node(axes), &[Some(&input), Some(&ints(shape))]).unwrap();
    out.as_array::<f32>().expect("float in, float out").clone()
}

#[test]
fn center_crop_pad_crop() {
    // First dim is even diff, second is uneven: y = x[5:15, 1:8, :].
    let x = arange(&[20, 10, 3]);
    let y = run_ccp(&x, &[10, 7, 3], None);
    assert_eq!(y, x.slice(s![5..15, 1..8, ..]).into_dyn());
    // x[5, 1, 0] = 5·30 + 1·3 + 0 + 1.
    assert_eq!(y[[0, 0, 0]], 154.0);
}

#[test]
fn center_crop_pad_pad() {
    // y = zeros[20, 10, 3]; y[5:15, 1:8, :] = x.
    let x = arange(&[10, 7, 3]);
    let y = run_ccp(&x, &[20, 10, 3], None);
    let mut expected = ArrayD::<f32>::zeros(IxDyn(&[20, 10, 3]));
    expected.slice_mut(s![5..15, 1..8, ..]).assign(&x);
    assert_eq!(y, expected);
    assert_eq!((y[[5, 1, 0]], y[[5, 0, 0]], y[[14, 8, 2]]), (1.0, 0.0, 0.0));
}

#[test]
fn center_crop_pad_crop_and_pad() {
    // y = zeros[10, 10, 3]; y[:, 1:9, :] = x[5:15, :, :].
    let x = arange(&[20, 8, 3]);
    let y = run_ccp(&x, &[10, 10, 3], None);
    let mut expected = ArrayD::<f32>::zeros(IxDyn(&[10, 10, 3]));
    expected.slice_mut(s![.., 1..9, ..]).assign(&x.slice(s![5..15, .., ..]));
    assert_eq!(y, expected);
}

#[test]
fn center_crop_pad_crop_axes_hwc() {
    // axes [0, 1]; y = zeros[10, 9, 3]; y[:, :8, :] = x[5:15, :, :].
    let x = arange(&[20, 8, 3]);
    let y = run_ccp(&x, &[10, 9], Some(&[0, 1]));
    let mut expected = ArrayD::<f32>::zeros(IxDyn(&[10, 9, 3]));
    expected.slice_mut(s![.., ..8, ..]).assign(&x.slice(s![5..15, .., ..]));
    assert_eq!(y, expected);
}

#[test]
fn center_crop_pad_crop_axes_chw() {
    // axes [1, 2]; y = zeros[3, 10, 9]; y[:, :, :8] = x[:, 5:15, :].
    let x = arange(&[3, 20, 8]);
    let mut expected = ArrayD::<f32>::zeros(IxDyn(&[3, 10, 9]));
    expected.slice_mut(s![.., .., ..8]).assign(&x.slice(s![.., 5..15, ..]));
    assert_eq!(run_ccp(&x, &[10, 9], Some(&[1, 2])), expected);
    // Negative axes count from the back.
    assert_eq!(run_ccp(&x, &[10, 9], Some(&[-2, -1])), expected);
}

#[test]
fn center_crop_pad_odd_differences_put_the_extra_element_at_the_end() {
    let x = arange(&[5]);
    assert_eq!(run_ccp(&x, &[2], None).as_slice().unwrap(), [2.0, 3.0]);
    assert_eq!(
        run_ccp(&x, &[8], None).as_slice().unwrap(),
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0]
    );
    assert_eq!(run_ccp(&x, &[0], None).shape(), [0]);
}

#[test]
fn center_crop_pad_fills_with_the_zero_of_the_dtype_and_takes_int32_shapes() {
    let node = ccp_node(None);
    let shape = tensor(&[1], vec![4i32]);
    let strings = tensor(&[2], vec![b"a".to_vec(), b"b".to_vec()]);
    let expected = tensor(&[4], vec![b"".to_vec(), b"a".to_vec(), b"b".to_vec(), b"".to_vec()]);
    assert_eq!(
        center_crop_pad(&node, &[Some(&strings), Some(&shape)]).unwrap(),
        expected
    );
    let bools = tensor(&[2], vec![true, true]);
    let expected = tensor(&[4], vec![false, true, true, false]);
    assert_eq!(center_crop_pad(&node, &[Some(&bools), Some(&shape)]).unwrap(), expected);
}

#[test]
fn center_crop_pad_runs_through_run_node() {
    let x = Tensor::from_array(arange(&[4, 4]));
    let out = run_node(&ccp_node(None), &[Some(&x), Some(&ints(&[2, 2]))]).unwrap();
    assert_eq!(out, [tensor(&[2, 2], vec![6.0f32, 7.0, 10.0, 11.0])]);
}
