//! What an adapter needs to move tensors into and out of a runtime: raw bytes in ONNX layout,
//! typed slices, and the graph's declared types; and the re-exported crates of the public API.

use pad_conformance::testing::{DecodeOptions, encode_tensor};
use pad_conformance::{
    DataType, Dim, Float8E4M3FN, Int4, Tensor, TensorError, Uint2, Uint4, half, ndarray, num_complex,
};

#[test]
fn raw_bytes_are_onnx_raw_data_little_endian_and_packed() {
    let t = Tensor::from_vec(&[2], vec![1.5f32, -2.0]).unwrap();
    assert_eq!(t.raw_bytes().unwrap(), [0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0]);
    // 4-bit values two to a byte, low bits first; an odd count leaves the last high half 0.
    let t = Tensor::from_vec(&[3], vec![Uint4(1), Uint4(2), Uint4(15)]).unwrap();
    assert_eq!(t.raw_bytes().unwrap(), [0x21, 0x0f]);
    let t = Tensor::from_vec(&[5], vec![Uint2(1), Uint2(2), Uint2(3), Uint2(0), Uint2(1)]).unwrap();
    assert_eq!(t.raw_bytes().unwrap(), [0b00_11_10_01, 0b01]);
    let t = Tensor::from_vec(&[2], vec![true, false]).unwrap();
    assert_eq!(t.raw_bytes().unwrap(), [1, 0]);
    // The same bytes a file's raw_data holds.
    let t = Tensor::from_vec(&[2, 2], vec![half::f16::from_f32(1.0); 4]).unwrap();
    assert_eq!(
        encode_tensor(&t, "x").raw_data.unwrap().as_ref(),
        t.raw_bytes().unwrap().as_slice()
    );
}

#[test]
fn from_raw_inverts_raw_bytes_for_every_layout() {
    let tensors = [
        Tensor::from_vec(&[2, 1], vec![-7i64, i64::MAX]).unwrap(),
        Tensor::from_vec(&[3], vec![Int4(-8), Int4(7), Int4(-1)]).unwrap(),
        Tensor::from_vec(&[1], vec![num_complex::Complex::new(1.0f64, -2.0)]).unwrap(),
        Tensor::from_vec(&[2], vec![Float8E4M3FN::from_bits(0x7f), Float8E4M3FN::from_bits(1)]).unwrap(),
        Tensor::from_vec(&[0, 4], Vec::<u16>::new()).unwrap(),
        Tensor::from_vec(&[], vec![half::bf16::from_f32(3.0)]).unwrap(),
    ];
    for t in tensors {
        let bytes = t.raw_bytes().unwrap();
        assert_eq!(Tensor::from_raw(t.data_type(), t.shape(), &bytes).unwrap(), t);
    }
}

#[test]
fn bad_raw_input_is_an_error_naming_what_is_wrong() {
    let short = Tensor::from_raw(DataType::Int32, &[2, 2], &[0; 15]).unwrap_err();
    assert_eq!(
        short.to_string(),
        "raw_data holds 15 bytes but dims [2, 2] of int32 need 16"
    );
    assert_eq!(
        Tensor::from_raw(DataType::Bool, &[1], &[2]).unwrap_err().to_string(),
        "raw_data[0] is 2, out of range for bool"
    );
    assert_eq!(
        Tensor::from_raw(DataType::String, &[1], b"a"),
        Err(TensorError::StringInRawData)
    );
    let strings = Tensor::from_vec(&[1], vec![b"a".to_vec()]).unwrap();
    assert_eq!(strings.raw_bytes(), Err(TensorError::StringInRawData));
}

#[test]
fn typed_slices_are_row_major_and_typed() {
    let array = ndarray::arr2(&[[1i32, 2], [3, 4]]).reversed_axes().into_dyn();
    let t = Tensor::from_array(array);
    assert_eq!(t.as_slice::<i32>(), Some(&[1, 3, 2, 4][..]));
    assert_eq!(t.as_slice::<i64>(), None);
}

#[test]
fn the_model_declares_its_input_and_output_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("onnx-testdata/onnx-1.22.0/node/test_wrap_pad/model.onnx");
    let model = pad_conformance::testing::read_model(&path, &DecodeOptions::default()).unwrap();
    let types: Vec<_> = model
        .graph
        .input_types
        .iter()
        .map(|v| (v.name.as_str(), v.data_type, v.fixed_shape()))
        .collect();
    assert_eq!(
        types,
        [
            ("x", Some(DataType::Int32), Some(vec![1, 3, 4, 5])),
            ("pads", Some(DataType::Int64), Some(vec![8])),
        ]
    );
    let y = &model.graph.output_types[0];
    assert_eq!((y.name.as_str(), y.data_type), ("y", Some(DataType::Int32)));
    assert_eq!(
        y.shape,
        Some(vec![Dim::Fixed(1), Dim::Fixed(3), Dim::Fixed(6), Dim::Fixed(7)])
    );
}
