//! [`Tensor`] → `TensorProto`: raw_data for every type but string, string_data for strings.

use bytes::Bytes;

use super::sub_byte::{self, SubByte};
use super::*;
use crate::proto::TensorProto;

/// Encodes a tensor as ONNX writes it: little-endian raw_data, sub-byte types packed low bits
/// first, strings in string_data.
pub fn encode_tensor(tensor: &Tensor, name: &str) -> TensorProto {
    let mut proto = TensorProto {
        dims: tensor.shape().iter().map(|&d| d as i64).collect(),
        data_type: tensor.data_type().code(),
        name: name.to_owned(),
        ..Default::default()
    };
    match tensor {
        Tensor::String(a) => proto.string_data = a.iter().map(|s| Bytes::from(s.clone())).collect(),
        _ => proto.raw_data = Some(Bytes::from(raw_bytes(tensor))),
    }
    proto
}

impl Tensor {
    /// The elements in ONNX raw_data layout: little-endian, row-major, bool as one byte,
    /// sub-byte types packed two (4-bit) or four (2-bit) to a byte, low bits first — the
    /// bytes a runtime's own tensor type is usually built from. Strings have no raw layout.
    ///
    /// ```
    /// use pad_conformance::{DataType, Tensor};
    /// let t = Tensor::from_vec(&[2], vec![1i16, -2]).unwrap();
    /// let bytes = t.raw_bytes().unwrap();
    /// assert_eq!(bytes, [1, 0, 0xfe, 0xff]);
    /// assert_eq!(Tensor::from_raw(DataType::Int16, &[2], &bytes).unwrap(), t);
    /// ```
    pub fn raw_bytes(&self) -> Result<Vec<u8>, TensorError> {
        match self {
            Tensor::String(_) => Err(TensorError::StringInRawData),
            _ => Ok(raw_bytes(self)),
        }
    }
}

/// The raw_data bytes of a tensor's elements (not strings).
fn raw_bytes(tensor: &Tensor) -> Vec<u8> {
    match tensor {
        Tensor::Float(a) => pod_bytes(a),
        Tensor::Uint8(a) => pod_bytes(a),
        Tensor::Int8(a) => pod_bytes(a),
        Tensor::Uint16(a) => pod_bytes(a),
        Tensor::Int16(a) => pod_bytes(a),
        Tensor::Int32(a) => pod_bytes(a),
        Tensor::Int64(a) => pod_bytes(a),
        Tensor::Float16(a) => pod_bytes(a),
        Tensor::Double(a) => pod_bytes(a),
        Tensor::Uint32(a) => pod_bytes(a),
        Tensor::Uint64(a) => pod_bytes(a),
        Tensor::Complex64(a) => pod_bytes(a),
        Tensor::Complex128(a) => pod_bytes(a),
        Tensor::Bfloat16(a) => pod_bytes(a),
        Tensor::Bool(a) => a.iter().map(|&b| b as u8).collect(),
        Tensor::Float8E4M3FN(a) => a.iter().map(|v| v.to_bits()).collect(),
        Tensor::Float8E4M3FNUZ(a) => a.iter().map(|v| v.to_bits()).collect(),
        Tensor::Float8E5M2(a) => a.iter().map(|v| v.to_bits()).collect(),
        Tensor::Float8E5M2FNUZ(a) => a.iter().map(|v| v.to_bits()).collect(),
        Tensor::Float8E8M0(a) => a.iter().map(|v| v.to_bits()).collect(),
        Tensor::Uint4(a) => packed(a),
        Tensor::Int4(a) => packed(a),
        Tensor::Float4E2M1(a) => packed(a),
        Tensor::Uint2(a) => packed(a),
        Tensor::Int2(a) => packed(a),
        Tensor::String(_) => unreachable!("strings are written to string_data, and raw_bytes refuses them"),
    }
}

fn pod_bytes<T: bytemuck::Pod>(array: &ArrayD<T>) -> Vec<u8> {
    let array = array.as_standard_layout();
    bytemuck::cast_slice(array.as_slice().expect("standard layout is contiguous")).to_vec()
}

fn packed<T: SubByte>(array: &ArrayD<T>) -> Vec<u8> {
    let array = array.as_standard_layout();
    sub_byte::pack(array.as_slice().expect("standard layout is contiguous"))
}
