//! [`Tensor`] → `TensorProto`: raw_data for every type but string, string_data for strings,
//! as onnx's `numpy_helper.from_array` writes them; or every type in its typed data field,
//! as onnx's `helper.make_tensor` writes them.

use bytes::Bytes;

use super::sub_byte::{self, SubByte};
use super::*;
use crate::proto::TensorProto;

/// Encodes a tensor as ONNX writes it: little-endian raw_data, sub-byte types packed low bits
/// first, strings in string_data.
pub fn encode_tensor(tensor: &Tensor, name: &str) -> TensorProto {
    let mut proto = header(tensor, name);
    match tensor {
        Tensor::String(a) => proto.string_data = a.iter().map(|s| Bytes::from(s.clone())).collect(),
        _ => proto.raw_data = Some(Bytes::from(raw_bytes(tensor))),
    }
    proto
}

/// A tensor's shape, element type and name, without its elements.
fn header(tensor: &Tensor, name: &str) -> TensorProto {
    TensorProto {
        dims: tensor.shape().iter().map(|&d| d as i64).collect(),
        data_type: tensor.data_type().code(),
        name: name.to_owned(),
        ..Default::default()
    }
}

/// Encodes a tensor as onnx's `helper.make_tensor` writes it (without `raw=True`): each
/// element type in its typed data field — float and complex64 in float_data, double and
/// complex128 in double_data, int64 in int64_data, uint32 and uint64 in uint64_data, strings
/// in string_data, and the rest in int32_data: small integers and bools by value, 16- and
/// 8-bit floats by their bit patterns, sub-byte types one packed byte per value.
pub(crate) fn encode_tensor_fields(tensor: &Tensor, name: &str) -> TensorProto {
    let mut proto = header(tensor, name);
    match tensor {
        Tensor::Float(a) => proto.float_data = a.iter().copied().collect(),
        Tensor::Complex64(a) => proto.float_data = a.iter().flat_map(|c| [c.re, c.im]).collect(),
        Tensor::Double(a) => proto.double_data = a.iter().copied().collect(),
        Tensor::Complex128(a) => proto.double_data = a.iter().flat_map(|c| [c.re, c.im]).collect(),
        Tensor::Int64(a) => proto.int64_data = a.iter().copied().collect(),
        Tensor::Uint64(a) => proto.uint64_data = a.iter().copied().collect(),
        Tensor::Uint32(a) => proto.uint64_data = a.iter().map(|&v| u64::from(v)).collect(),
        Tensor::String(a) => proto.string_data = a.iter().map(|s| Bytes::from(s.clone())).collect(),
        Tensor::Int32(a) => proto.int32_data = a.iter().copied().collect(),
        Tensor::Int16(a) => proto.int32_data = a.iter().map(|&v| i32::from(v)).collect(),
        Tensor::Int8(a) => proto.int32_data = a.iter().map(|&v| i32::from(v)).collect(),
        Tensor::Uint16(a) => proto.int32_data = a.iter().map(|&v| i32::from(v)).collect(),
        Tensor::Uint8(a) => proto.int32_data = a.iter().map(|&v| i32::from(v)).collect(),
        Tensor::Bool(a) => proto.int32_data = a.iter().map(|&v| i32::from(v)).collect(),
        Tensor::Float16(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Bfloat16(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Float8E4M3FN(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Float8E4M3FNUZ(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Float8E5M2(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Float8E5M2FNUZ(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Float8E8M0(a) => proto.int32_data = a.iter().map(|v| i32::from(v.to_bits())).collect(),
        Tensor::Uint4(_) | Tensor::Int4(_) | Tensor::Float4E2M1(_) | Tensor::Uint2(_) | Tensor::Int2(_) => {
            proto.int32_data = raw_bytes(tensor).into_iter().map(i32::from).collect();
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{DecodeOptions, decode_tensor};

    /// Every element type written in its typed field decodes to the same tensor, bit for
    /// bit (NaN payloads and the sign of zero included): the library reads what
    /// `helper.make_tensor` writes.
    #[test]
    fn every_type_in_its_typed_field_decodes_to_the_same_tensor() {
        let nan = f32::from_bits(0x7fc0_0123);
        let tensors = [
            Tensor::from_vec(&[3], vec![-0.0f32, nan, f32::MIN_POSITIVE / 2.0]).unwrap(),
            Tensor::from_vec(&[2], vec![Complex::new(1.0f32, -0.0), Complex::new(f32::INFINITY, 2.0)]).unwrap(),
            Tensor::from_vec(&[2], vec![-0.0f64, 1e300]).unwrap(),
            Tensor::from_vec(&[1], vec![Complex::new(-0.0f64, 5.0)]).unwrap(),
            Tensor::from_vec(&[2], vec![i64::MIN, i64::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![0u64, u64::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![0u32, u32::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![b"a".to_vec(), vec![0xff]]).unwrap(),
            Tensor::from_vec(&[2], vec![i32::MIN, i32::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![i16::MIN, i16::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![i8::MIN, i8::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![0u16, u16::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![0u8, u8::MAX]).unwrap(),
            Tensor::from_vec(&[2], vec![true, false]).unwrap(),
            Tensor::from_vec(&[2], vec![f16::from_bits(0x8000), f16::from_bits(0xfe01)]).unwrap(),
            Tensor::from_vec(&[2], vec![bf16::from_bits(0x8000), bf16::from_bits(0xffc1)]).unwrap(),
            Tensor::from_vec(&[2], vec![Float8E4M3FN::from_bits(0x80), Float8E4M3FN::from_bits(0xff)]).unwrap(),
            Tensor::from_vec(&[1], vec![Float8E4M3FNUZ::from_bits(0x80)]).unwrap(),
            Tensor::from_vec(&[1], vec![Float8E5M2::from_bits(0xfe)]).unwrap(),
            Tensor::from_vec(&[1], vec![Float8E5M2FNUZ::from_bits(0x81)]).unwrap(),
            Tensor::from_vec(&[1], vec![Float8E8M0::from_bits(0xff)]).unwrap(),
            Tensor::from_vec(&[3], vec![Int4::from_bits(8), Int4::from_bits(7), Int4::from_bits(0xf)]).unwrap(),
            Tensor::from_vec(
                &[3],
                vec![Uint4::from_bits(15), Uint4::from_bits(0), Uint4::from_bits(9)],
            )
            .unwrap(),
            Tensor::from_vec(
                &[3],
                vec![
                    Float4E2M1::from_bits(0xf),
                    Float4E2M1::from_bits(8),
                    Float4E2M1::from_bits(1),
                ],
            )
            .unwrap(),
            Tensor::from_vec(&[5], (0..5).map(|b| Int2::from_bits(b % 4)).collect()).unwrap(),
            Tensor::from_vec(&[5], (0..5).map(|b| Uint2::from_bits(3 - b % 4)).collect()).unwrap(),
        ];
        assert_eq!(tensors.len(), DataType::ALL.len(), "one tensor of each element type");
        for tensor in tensors {
            let proto = encode_tensor_fields(&tensor, "t");
            assert!(proto.raw_data.is_none(), "{}", tensor.describe());
            let decoded = decode_tensor(&proto, &DecodeOptions::default()).unwrap();
            assert_eq!(
                decoded.raw_bytes().ok(),
                tensor.raw_bytes().ok(),
                "{}",
                tensor.describe()
            );
            assert_eq!(decoded.data_type(), tensor.data_type());
            assert_eq!(decoded.shape(), tensor.shape());
            if let Tensor::String(_) = tensor {
                assert_eq!(decoded, tensor);
            }
        }
    }
}
