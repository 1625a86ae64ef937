//! The 26 ONNX element types, with their `TensorProto.DataType` codes and names.

use std::fmt;

/// An ONNX element type. The discriminants are the `TensorProto.DataType` codes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(i32)]
#[non_exhaustive]
pub enum DataType {
    /// `tensor(float)`: 32-bit IEEE float.
    Float = 1,
    /// `tensor(uint8)`: 8-bit unsigned integer.
    Uint8 = 2,
    /// `tensor(int8)`: 8-bit signed integer.
    Int8 = 3,
    /// `tensor(uint16)`: 16-bit unsigned integer.
    Uint16 = 4,
    /// `tensor(int16)`: 16-bit signed integer.
    Int16 = 5,
    /// `tensor(int32)`: 32-bit signed integer.
    Int32 = 6,
    /// `tensor(int64)`: 64-bit signed integer.
    Int64 = 7,
    /// `tensor(string)`: byte string.
    String = 8,
    /// `tensor(bool)`: boolean.
    Bool = 9,
    /// `tensor(float16)`: 16-bit IEEE half-precision float.
    Float16 = 10,
    /// `tensor(double)`: 64-bit IEEE float.
    Double = 11,
    /// `tensor(uint32)`: 32-bit unsigned integer.
    Uint32 = 12,
    /// `tensor(uint64)`: 64-bit unsigned integer.
    Uint64 = 13,
    /// `tensor(complex64)`: complex number of two 32-bit floats.
    Complex64 = 14,
    /// `tensor(complex128)`: complex number of two 64-bit floats.
    Complex128 = 15,
    /// `tensor(bfloat16)`: 16-bit brain float (float32's exponent, 7-bit mantissa).
    Bfloat16 = 16,
    /// `tensor(float8e4m3fn)`: 8-bit float, 4 exponent and 3 mantissa bits; no infinities.
    Float8E4M3FN = 17,
    /// `tensor(float8e4m3fnuz)`: 8-bit float, 4 exponent and 3 mantissa bits; no infinities, no -0.
    Float8E4M3FNUZ = 18,
    /// `tensor(float8e5m2)`: 8-bit float, 5 exponent and 2 mantissa bits; IEEE-like, with infinities.
    Float8E5M2 = 19,
    /// `tensor(float8e5m2fnuz)`: 8-bit float, 5 exponent and 2 mantissa bits; no infinities, no -0.
    Float8E5M2FNUZ = 20,
    /// `tensor(uint4)`: 4-bit unsigned integer, packed two to a byte.
    Uint4 = 21,
    /// `tensor(int4)`: 4-bit signed integer, packed two to a byte.
    Int4 = 22,
    /// `tensor(float4e2m1)`: 4-bit float, 2 exponent and 1 mantissa bit, packed two to a byte.
    Float4E2M1 = 23,
    /// `tensor(float8e8m0)`: 8-bit unsigned exponent-only float (a power of two), used for scales.
    Float8E8M0 = 24,
    /// `tensor(uint2)`: 2-bit unsigned integer, packed four to a byte.
    Uint2 = 25,
    /// `tensor(int2)`: 2-bit signed integer, packed four to a byte.
    Int2 = 26,
}

impl DataType {
    /// Every element type, in code order.
    pub const ALL: [DataType; 26] = [
        DataType::Float,
        DataType::Uint8,
        DataType::Int8,
        DataType::Uint16,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::String,
        DataType::Bool,
        DataType::Float16,
        DataType::Double,
        DataType::Uint32,
        DataType::Uint64,
        DataType::Complex64,
        DataType::Complex128,
        DataType::Bfloat16,
        DataType::Float8E4M3FN,
        DataType::Float8E4M3FNUZ,
        DataType::Float8E5M2,
        DataType::Float8E5M2FNUZ,
        DataType::Uint4,
        DataType::Int4,
        DataType::Float4E2M1,
        DataType::Float8E8M0,
        DataType::Uint2,
        DataType::Int2,
    ];

    /// The type for a `TensorProto.DataType` code, or `None` for 0 (UNDEFINED) and unknown codes.
    pub fn from_code(code: i32) -> Option<DataType> {
        DataType::ALL.get(usize::try_from(code).ok()?.checked_sub(1)?).copied()
    }

    /// The `TensorProto.DataType` code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The name ONNX's documentation uses inside `tensor(...)`.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Float => "float",
            DataType::Uint8 => "uint8",
            DataType::Int8 => "int8",
            DataType::Uint16 => "uint16",
            DataType::Int16 => "int16",
            DataType::Int32 => "int32",
            DataType::Int64 => "int64",
            DataType::String => "string",
            DataType::Bool => "bool",
            DataType::Float16 => "float16",
            DataType::Double => "double",
            DataType::Uint32 => "uint32",
            DataType::Uint64 => "uint64",
            DataType::Complex64 => "complex64",
            DataType::Complex128 => "complex128",
            DataType::Bfloat16 => "bfloat16",
            DataType::Float8E4M3FN => "float8e4m3fn",
            DataType::Float8E4M3FNUZ => "float8e4m3fnuz",
            DataType::Float8E5M2 => "float8e5m2",
            DataType::Float8E5M2FNUZ => "float8e5m2fnuz",
            DataType::Uint4 => "uint4",
            DataType::Int4 => "int4",
            DataType::Float4E2M1 => "float4e2m1",
            DataType::Float8E8M0 => "float8e8m0",
            DataType::Uint2 => "uint2",
            DataType::Int2 => "int2",
        }
    }

    /// The type named `name` (as `name()` spells it).
    pub fn from_name(name: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Bits one element occupies in `raw_data`; `None` for string, which has no fixed width.
    pub fn bit_width(self) -> Option<u32> {
        Some(match self {
            DataType::String => return None,
            DataType::Uint2 | DataType::Int2 => 2,
            DataType::Uint4 | DataType::Int4 | DataType::Float4E2M1 => 4,
            DataType::Uint8
            | DataType::Int8
            | DataType::Bool
            | DataType::Float8E4M3FN
            | DataType::Float8E4M3FNUZ
            | DataType::Float8E5M2
            | DataType::Float8E5M2FNUZ
            | DataType::Float8E8M0 => 8,
            DataType::Uint16 | DataType::Int16 | DataType::Float16 | DataType::Bfloat16 => 16,
            DataType::Float | DataType::Int32 | DataType::Uint32 => 32,
            DataType::Double | DataType::Int64 | DataType::Uint64 | DataType::Complex64 => 64,
            DataType::Complex128 => 128,
        })
    }

    /// Floating types, compared with a tolerance (complex by parts).
    pub fn is_floating(self) -> bool {
        matches!(
            self,
            DataType::Float
                | DataType::Double
                | DataType::Float16
                | DataType::Bfloat16
                | DataType::Complex64
                | DataType::Complex128
                | DataType::Float8E4M3FN
                | DataType::Float8E4M3FNUZ
                | DataType::Float8E5M2
                | DataType::Float8E5M2FNUZ
                | DataType::Float8E8M0
                | DataType::Float4E2M1
        )
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Written as its name (`float16`), as reports and sidecars spell it.
impl serde::Serialize for DataType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Read from its name; another name is an error that quotes it.
impl<'de> serde::Deserialize<'de> for DataType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <String as serde::Deserialize>::deserialize(d)?;
        DataType::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown element type {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_match_onnx_proto() {
        for t in DataType::ALL {
            assert_eq!(DataType::from_code(t.code()), Some(t));
            assert_eq!(DataType::from_name(t.name()), Some(t));
        }
        assert_eq!(DataType::from_code(0), None);
        assert_eq!(DataType::from_code(27), None);
        assert_eq!(DataType::from_code(-1), None);
        assert_eq!(
            serde_json::to_string(&DataType::Float8E4M3FN).unwrap(),
            "\"float8e4m3fn\""
        );
        assert_eq!(serde_json::from_str::<DataType>("\"int4\"").unwrap(), DataType::Int4);
        let unknown = serde_json::from_str::<DataType>("\"float128\"")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("unknown element type \"float128\""), "{unknown}");
        assert_eq!(DataType::from_code(17), Some(DataType::Float8E4M3FN));
        assert_eq!(DataType::from_code(24), Some(DataType::Float8E8M0));
        assert_eq!(DataType::from_code(26), Some(DataType::Int2));
    }
}
