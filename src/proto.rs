//! The ONNX protobuf messages the runner reads and writes, declared by hand as prost structs
//! with the field numbers of onnx.proto, so the crate needs no protoc and no build script.
//!
//! Only the fields the runner uses are declared; prost skips every other field on decoding.
//! Bytes fields are `bytes::Bytes`, so decoding from a `Bytes` buffer slices it instead of
//! copying: a large `raw_data` is copied once, into the typed array.

use bytes::Bytes;

/// `ModelProto`: the top-level message of model.onnx.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// `ModelProto.ir_version`: the IR version of the file format the model was written in.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// `ModelProto.producer_name`: the tool that wrote the model.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// `ModelProto.producer_version`: the version of that tool.
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// `ModelProto.graph`: the model's main graph.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    /// `ModelProto.opset_import`: the operator set version imported for each domain.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// `ModelProto.functions`: model-local functions the graph may call.
    #[prost(message, repeated, tag = "25")]
    pub functions: Vec<FunctionProto>,
}

/// `OperatorSetIdProto`: one entry of a model's opset imports.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// `OperatorSetIdProto.domain`: the operator domain; empty means the default `ai.onnx` domain.
    #[prost(string, tag = "1")]
    pub domain: String,
    /// `OperatorSetIdProto.version`: the opset version imported for that domain.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// `GraphProto`: nodes in topological order, initializers, inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// `GraphProto.node`: the graph's nodes, in topological order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// `GraphProto.name`: the graph's name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// `GraphProto.initializer`: constant tensors, each named after the graph value it provides.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// `GraphProto.input`: the graph inputs; may also name initializers (required before IR 4).
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// `GraphProto.output`: the graph outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
    /// `GraphProto.value_info`: types of intermediate values, where known.
    #[prost(message, repeated, tag = "13")]
    pub value_info: Vec<ValueInfoProto>,
}

/// `NodeProto`: one operator call. An empty input name marks an omitted optional input.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// `NodeProto.input`: input value names, in order; empty for an omitted optional input.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// `NodeProto.output`: output value names, in order.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// `NodeProto.name`: the node's name, for diagnostics.
    #[prost(string, tag = "3")]
    pub name: String,
    /// `NodeProto.op_type`: the operator, e.g. `Pad`.
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// `NodeProto.attribute`: the node's attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    /// `NodeProto.domain`: the operator's domain; empty means `ai.onnx`.
    #[prost(string, tag = "7")]
    pub domain: String,
}

/// `AttributeProto`. `r#type` is the discriminator; files older than IR version 2 omit it, so
/// readers fall back to whichever value field is set.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// `AttributeProto.name`: the attribute's name, e.g. `mode`.
    #[prost(string, tag = "1")]
    pub name: String,
    /// `AttributeProto.f`: the value of a FLOAT attribute. Optional, as onnx.proto (proto2)
    /// declares it: a -0.0 (or 0.0) is written, where a proto3 scalar would be dropped.
    #[prost(float, optional, tag = "2")]
    pub f: Option<f32>,
    /// `AttributeProto.i`: the value of an INT attribute.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// `AttributeProto.s`: the value of a STRING attribute, as bytes (UTF-8 by convention).
    #[prost(bytes = "bytes", tag = "4")]
    pub s: Bytes,
    /// `AttributeProto.t`: the value of a TENSOR attribute.
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    /// `AttributeProto.g`: the value of a GRAPH attribute.
    #[prost(message, optional, boxed, tag = "6")]
    pub g: Option<Box<GraphProto>>,
    /// `AttributeProto.floats`: the values of a FLOATS attribute. Unpacked, as onnx.proto
    /// (proto2) declares it and onnx's writer writes it; either form is read.
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub floats: Vec<f32>,
    /// `AttributeProto.ints`: the values of an INTS attribute (e.g. Pad-1's `paddings`).
    /// Unpacked, as onnx's writer writes it; either form is read.
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub ints: Vec<i64>,
    /// `AttributeProto.strings`: the values of a STRINGS attribute.
    #[prost(bytes = "bytes", repeated, tag = "9")]
    pub strings: Vec<Bytes>,
    /// `AttributeProto.tensors`: the values of a TENSORS attribute.
    #[prost(message, repeated, tag = "10")]
    pub tensors: Vec<TensorProto>,
    /// `AttributeProto.type`: the [`attribute_type`] code naming the field that holds the value;
    /// 0 when unset.
    #[prost(int32, tag = "20")]
    pub r#type: i32,
    /// `AttributeProto.ref_attr_name`: inside a function body, the caller's attribute this one
    /// takes its value from.
    #[prost(string, tag = "21")]
    pub ref_attr_name: String,
}

/// `AttributeProto.AttributeType` codes.
pub mod attribute_type {
    /// `f` holds the value.
    pub const FLOAT: i32 = 1;
    /// `i` holds the value.
    pub const INT: i32 = 2;
    /// `s` holds the value.
    pub const STRING: i32 = 3;
    /// `t` holds the value.
    pub const TENSOR: i32 = 4;
    /// `g` holds the value.
    pub const GRAPH: i32 = 5;
    /// `floats` holds the values.
    pub const FLOATS: i32 = 6;
    /// `ints` holds the values.
    pub const INTS: i32 = 7;
    /// `strings` holds the values.
    pub const STRINGS: i32 = 8;
    /// `tensors` holds the values.
    pub const TENSORS: i32 = 9;
}

/// `TensorProto`: a tensor's type, dims and data, in one of several storages.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// `TensorProto.dims`: the extents, outermost first. Unpacked, as onnx's writer writes
    /// them; either form is read.
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    /// `TensorProto.data_type`: the element type's `TensorProto.DataType` code
    /// (see [`DataType`](crate::DataType)).
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// `TensorProto.segment`: set when the message holds only a slice of a larger tensor.
    #[prost(message, optional, tag = "3")]
    pub segment: Option<Segment>,
    /// `TensorProto.float_data`: float values; complex64 as (real, imaginary) pairs.
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// `TensorProto.int32_data`: int32, int16, int8, uint16, uint8 and bool values, the bit
    /// patterns of float16, bfloat16 and float8, and packed sub-byte values.
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    /// `TensorProto.string_data`: the elements of a `tensor(string)`.
    #[prost(bytes = "bytes", repeated, tag = "6")]
    pub string_data: Vec<Bytes>,
    /// `TensorProto.int64_data`: int64 values.
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// `TensorProto.name`: the tensor's name (the value it initializes, in a graph).
    #[prost(string, tag = "8")]
    pub name: String,
    /// `TensorProto.raw_data`: the elements as little-endian bytes, sub-byte types packed. An
    /// `Option` so that a field present but empty is told apart from an absent one.
    #[prost(bytes = "bytes", optional, tag = "9")]
    pub raw_data: Option<Bytes>,
    /// `TensorProto.double_data`: double values; complex128 as (real, imaginary) pairs.
    #[prost(double, repeated, tag = "10")]
    pub double_data: Vec<f64>,
    /// `TensorProto.uint64_data`: uint32 and uint64 values.
    #[prost(uint64, repeated, tag = "11")]
    pub uint64_data: Vec<u64>,
    /// `TensorProto.external_data`: where external data lives: `location`, `offset`, `length` keys.
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// `TensorProto.data_location`: [`DATA_LOCATION_EXTERNAL`] when the data is in the file
    /// `external_data` names.
    #[prost(int32, tag = "14")]
    pub data_location: i32,
}

/// `TensorProto.DataLocation::EXTERNAL`.
pub const DATA_LOCATION_EXTERNAL: i32 = 1;

/// `TensorProto.Segment`: a slice of a larger tensor. Not supported by the runner.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Segment {
    /// `Segment.begin`: the first element of the slice.
    #[prost(int64, tag = "1")]
    pub begin: i64,
    /// `Segment.end`: the end of the slice.
    #[prost(int64, tag = "2")]
    pub end: i64,
}

/// `StringStringEntryProto`: a key/value pair (external data location, metadata).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// `StringStringEntryProto.key`: the entry's key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// `StringStringEntryProto.value`: the entry's value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `ValueInfoProto`: a graph input or output and its type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// `ValueInfoProto.name`: the value's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// `ValueInfoProto.type`: the value's type, if declared.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
}

/// `TypeProto`, reduced to the tensor case the Pad family uses.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// `TypeProto.tensor_type`: set when the value is a tensor.
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TypeProtoTensor>,
}

/// `TypeProto.Tensor`: element type and (possibly symbolic) shape.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProtoTensor {
    /// `TypeProto.Tensor.elem_type`: the element type's `TensorProto.DataType` code.
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    /// `TypeProto.Tensor.shape`: the shape; absent when even the rank is unknown.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `TensorShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// `TensorShapeProto.dim`: one entry per axis, outermost first.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `TensorShapeProto.Dimension`: a fixed extent or a symbolic name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// `Dimension.dim_value`: the extent, when fixed.
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    /// `Dimension.dim_param`: the symbolic name, when the extent is not fixed.
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
}

/// `FunctionProto`: a model-local function (read so that models carrying one decode).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionProto {
    /// `FunctionProto.name`: the function's name, used as a node's `op_type`.
    #[prost(string, tag = "1")]
    pub name: String,
    /// `FunctionProto.input`: the function's input names.
    #[prost(string, repeated, tag = "4")]
    pub input: Vec<String>,
    /// `FunctionProto.output`: the function's output names.
    #[prost(string, repeated, tag = "5")]
    pub output: Vec<String>,
    /// `FunctionProto.attribute`: the names of the attributes the function takes.
    #[prost(string, repeated, tag = "6")]
    pub attribute: Vec<String>,
    /// `FunctionProto.node`: the function body.
    #[prost(message, repeated, tag = "7")]
    pub node: Vec<NodeProto>,
    /// `FunctionProto.opset_import`: the opsets the function body uses.
    #[prost(message, repeated, tag = "9")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// `FunctionProto.domain`: the domain a node uses to call the function.
    #[prost(string, tag = "10")]
    pub domain: String,
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::{AttributeProto, TensorProto};

    /// Written as onnx's writer writes them — `ints` and `dims` one field per value (proto2
    /// unpacked), typed data fields packed — and read in either form, as protobuf requires.
    #[test]
    fn ints_and_dims_are_written_unpacked_and_read_either_way() {
        let attribute = AttributeProto {
            ints: vec![1, 300],
            ..Default::default()
        };
        // Field 8, varint: 0x40 before each value; packed would be one 0x42 and a length.
        assert_eq!(attribute.encode_to_vec(), [0x40, 1, 0x40, 0xac, 0x02]);
        assert_eq!(
            AttributeProto::decode(&[0x42, 3, 1, 0xac, 0x02][..]).unwrap().ints,
            [1, 300]
        );
        let tensor = TensorProto {
            dims: vec![2, 3],
            int64_data: vec![7, 8],
            ..Default::default()
        };
        // dims (field 1) unpacked; int64_data (field 7) packed, as onnx.proto declares it.
        assert_eq!(tensor.encode_to_vec(), [0x08, 2, 0x08, 3, 0x3a, 2, 7, 8]);
        let packed_dims = TensorProto::decode(&[0x0a, 2, 2, 3][..]).unwrap();
        assert_eq!(packed_dims.dims, [2, 3]);
        let unpacked_data = TensorProto::decode(&[0x38, 7, 0x38, 8][..]).unwrap();
        assert_eq!(unpacked_data.int64_data, [7, 8]);
    }
}
