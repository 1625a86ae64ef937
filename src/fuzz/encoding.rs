//! The wire forms a model may take. protobuf requires a parser to accept a repeated scalar
//! packed or not, whatever the field's declaration, and fields in any order; onnx's Python
//! writer uses one form (`ints`, `floats` and `dims` unpacked, tensors in raw_data, fields in
//! declared order), other producers others. A backend that reads only one form fails for a
//! reason that has nothing to do with Pad: the fuzzer re-encodes cases whose plain form the
//! backend answers correctly, and reports what changes apart from the Pad findings
//! (docs/semantics.md#encodings).

use std::fmt;

use prost::encoding::{self as wire, WireType};
use serde::{Serialize, Serializer};

use crate::proto::{AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use crate::tensor::{DecodeOptions, Tensor, decode_tensor, encode_tensor};

/// How a model and its tensors are laid out on the wire: onnx's writer's form, or one legal
/// departure from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Encoding {
    /// As onnx's Python writer writes: `AttributeProto.ints`/`floats` and `TensorProto.dims`
    /// unpacked (onnx.proto is proto2), tensors in raw_data (strings in string_data), every
    /// message's fields in the order of their numbers.
    #[default]
    Onnx,
    /// `ints`, `floats` and `dims` packed, as producers built on onnx.proto3 write them.
    PackedLists,
    /// Tensor elements in their typed data fields (float_data, int32_data, int64_data,
    /// double_data, uint64_data, string_data), packed, as `helper.make_tensor` writes them.
    TypedData,
    /// Typed data fields written one value per field (unpacked).
    UnpackedTypedData,
    /// The model's, graph's, nodes', attributes' and tensors' fields last number first.
    ReversedFields,
}

impl Encoding {
    /// The departures from onnx's form the fuzzer draws.
    pub const OTHERS: [Encoding; 4] = [
        Encoding::PackedLists,
        Encoding::TypedData,
        Encoding::UnpackedTypedData,
        Encoding::ReversedFields,
    ];

    /// `onnx`, `packed-lists`, `typed-data`, `unpacked-typed-data`, `reversed-fields`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Onnx => "onnx",
            Encoding::PackedLists => "packed-lists",
            Encoding::TypedData => "typed-data",
            Encoding::UnpackedTypedData => "unpacked-typed-data",
            Encoding::ReversedFields => "reversed-fields",
        }
    }

    /// The form [`name`](Encoding::name) names; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Encoding> {
        std::iter::once(Encoding::Onnx)
            .chain(Encoding::OTHERS)
            .find(|encoding| encoding.name() == name)
    }

    /// What a reader of the model meets, in a sentence's words.
    pub fn describe(self) -> &'static str {
        match self {
            Encoding::Onnx => "as onnx's writer writes it",
            Encoding::PackedLists => "AttributeProto ints/floats and TensorProto dims packed",
            Encoding::TypedData => "tensor elements in typed data fields (packed), not raw_data",
            Encoding::UnpackedTypedData => "tensor elements in typed data fields, unpacked",
            Encoding::ReversedFields => "message fields in reverse order of their numbers",
        }
    }

    /// `model` serialized in this form.
    pub fn encode_model(self, model: &ModelProto) -> Vec<u8> {
        Writer(self).model(model)
    }

    /// `tensor` serialized in this form, named `name`: a node test's input or output file.
    pub fn encode_tensor(self, tensor: &Tensor, name: &str) -> Vec<u8> {
        let proto = match self {
            Encoding::TypedData | Encoding::UnpackedTypedData => crate::tensor::encode_tensor_fields(tensor, name),
            _ => encode_tensor(tensor, name),
        };
        Writer(self).tensor(&proto)
    }

    fn packs_lists(self) -> bool {
        self == Encoding::PackedLists
    }

    fn packs_data(self) -> bool {
        self != Encoding::UnpackedTypedData
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Encoding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// Writes the messages that hold lists, tensors or fields worth reordering by hand; the
/// others (value infos, opset imports, functions) as prost writes them.
struct Writer(Encoding);

/// A message's fields, each whole (key included), in the order of their numbers.
type Fields = Vec<Vec<u8>>;

impl Writer {
    fn finish(&self, mut fields: Fields) -> Vec<u8> {
        if self.0 == Encoding::ReversedFields {
            fields.reverse();
        }
        fields.concat()
    }

    fn model(&self, m: &ModelProto) -> Vec<u8> {
        let mut f = Fields::new();
        f.push(field(|b| int64(1, m.ir_version, b)));
        f.push(field(|b| string(2, &m.producer_name, b)));
        f.push(field(|b| string(3, &m.producer_version, b)));
        f.push(field(|b| {
            if let Some(graph) = &m.graph {
                nested(7, &self.graph(graph), b);
            }
        }));
        f.push(field(|b| wire::message::encode_repeated(8, &m.opset_import, b)));
        f.push(field(|b| wire::message::encode_repeated(25, &m.functions, b)));
        self.finish(f)
    }

    fn graph(&self, g: &GraphProto) -> Vec<u8> {
        let mut f = Fields::new();
        f.push(field(|b| g.node.iter().for_each(|n| nested(1, &self.node(n), b))));
        f.push(field(|b| string(2, &g.name, b)));
        f.push(field(|b| {
            g.initializer
                .iter()
                .for_each(|t| nested(5, &self.tensor(&self.data(t)), b))
        }));
        f.push(field(|b| wire::message::encode_repeated(11, &g.input, b)));
        f.push(field(|b| wire::message::encode_repeated(12, &g.output, b)));
        f.push(field(|b| wire::message::encode_repeated(13, &g.value_info, b)));
        self.finish(f)
    }

    fn node(&self, n: &NodeProto) -> Vec<u8> {
        let mut f = Fields::new();
        f.push(field(|b| wire::string::encode_repeated(1, &n.input, b)));
        f.push(field(|b| wire::string::encode_repeated(2, &n.output, b)));
        f.push(field(|b| string(3, &n.name, b)));
        f.push(field(|b| string(4, &n.op_type, b)));
        f.push(field(|b| {
            n.attribute.iter().for_each(|a| nested(5, &self.attribute(a), b))
        }));
        f.push(field(|b| string(7, &n.domain, b)));
        self.finish(f)
    }

    fn attribute(&self, a: &AttributeProto) -> Vec<u8> {
        let mut f = Fields::new();
        f.push(field(|b| string(1, &a.name, b)));
        f.push(field(|b| {
            if let Some(value) = &a.f {
                wire::float::encode(2, value, b);
            }
        }));
        f.push(field(|b| int64(3, a.i, b)));
        f.push(field(|b| {
            if !a.s.is_empty() {
                wire::bytes::encode(4, &a.s, b);
            }
        }));
        f.push(field(|b| {
            if let Some(t) = &a.t {
                nested(5, &self.tensor(&self.data(t)), b);
            }
        }));
        f.push(field(|b| {
            if let Some(g) = &a.g {
                nested(6, &self.graph(g), b);
            }
        }));
        f.push(field(|b| match self.0.packs_lists() {
            true => wire::float::encode_packed(7, &a.floats, b),
            false => wire::float::encode_repeated(7, &a.floats, b),
        }));
        f.push(field(|b| match self.0.packs_lists() {
            true => wire::int64::encode_packed(8, &a.ints, b),
            false => wire::int64::encode_repeated(8, &a.ints, b),
        }));
        f.push(field(|b| wire::bytes::encode_repeated(9, &a.strings, b)));
        f.push(field(|b| {
            a.tensors
                .iter()
                .for_each(|t| nested(10, &self.tensor(&self.data(t)), b))
        }));
        f.push(field(|b| {
            if a.r#type != 0 {
                wire::int32::encode(20, &a.r#type, b);
            }
        }));
        f.push(field(|b| string(21, &a.ref_attr_name, b)));
        self.finish(f)
    }

    /// `t` with its elements where this form puts them: a raw_data tensor moved to its typed
    /// field under [`Encoding::TypedData`] and [`Encoding::UnpackedTypedData`]. External data,
    /// and a tensor that does not decode, stay as they are.
    fn data(&self, t: &TensorProto) -> TensorProto {
        let typed = matches!(self.0, Encoding::TypedData | Encoding::UnpackedTypedData);
        if !typed || t.raw_data.is_none() {
            return t.clone();
        }
        match decode_tensor(t, &DecodeOptions::default()) {
            Ok(tensor) => crate::tensor::encode_tensor_fields(&tensor, &t.name),
            Err(_) => t.clone(),
        }
    }

    fn tensor(&self, t: &TensorProto) -> Vec<u8> {
        let packs = self.0.packs_data();
        let mut f = Fields::new();
        f.push(field(|b| match self.0.packs_lists() {
            true => wire::int64::encode_packed(1, &t.dims, b),
            false => wire::int64::encode_repeated(1, &t.dims, b),
        }));
        f.push(field(|b| {
            if t.data_type != 0 {
                wire::int32::encode(2, &t.data_type, b);
            }
        }));
        f.push(field(|b| {
            if let Some(segment) = &t.segment {
                wire::message::encode(3, segment, b);
            }
        }));
        f.push(field(|b| match packs {
            true => wire::float::encode_packed(4, &t.float_data, b),
            false => wire::float::encode_repeated(4, &t.float_data, b),
        }));
        f.push(field(|b| match packs {
            true => wire::int32::encode_packed(5, &t.int32_data, b),
            false => wire::int32::encode_repeated(5, &t.int32_data, b),
        }));
        f.push(field(|b| wire::bytes::encode_repeated(6, &t.string_data, b)));
        f.push(field(|b| match packs {
            true => wire::int64::encode_packed(7, &t.int64_data, b),
            false => wire::int64::encode_repeated(7, &t.int64_data, b),
        }));
        f.push(field(|b| string(8, &t.name, b)));
        f.push(field(|b| {
            if let Some(raw) = &t.raw_data {
                wire::bytes::encode(9, raw, b);
            }
        }));
        f.push(field(|b| match packs {
            true => wire::double::encode_packed(10, &t.double_data, b),
            false => wire::double::encode_repeated(10, &t.double_data, b),
        }));
        f.push(field(|b| match packs {
            true => wire::uint64::encode_packed(11, &t.uint64_data, b),
            false => wire::uint64::encode_repeated(11, &t.uint64_data, b),
        }));
        f.push(field(|b| wire::message::encode_repeated(13, &t.external_data, b)));
        f.push(field(|b| {
            if t.data_location != 0 {
                wire::int32::encode(14, &t.data_location, b);
            }
        }));
        self.finish(f)
    }
}

/// One field's bytes, as `write` writes them.
fn field(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = Vec::new();
    write(&mut bytes);
    bytes
}

fn nested(tag: u32, payload: &[u8], out: &mut Vec<u8>) {
    wire::encode_key(tag, WireType::LengthDelimited, out);
    wire::encode_varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

fn int64(tag: u32, value: i64, out: &mut Vec<u8>) {
    if value != 0 {
        wire::int64::encode(tag, &value, out);
    }
}

fn string(tag: u32, value: &String, out: &mut Vec<u8>) {
    if !value.is_empty() {
        wire::string::encode(tag, value, out);
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::backend::{Backend, RefBackend};
    use crate::fuzz::{Shape, generate_case};
    use crate::model::Model;

    #[test]
    fn every_form_is_read_back_from_its_name_and_no_other_spelling() {
        for encoding in std::iter::once(Encoding::Onnx).chain(Encoding::OTHERS) {
            assert_eq!(Encoding::from_name(encoding.name()), Some(encoding));
        }
        assert_eq!(Encoding::from_name("typed-data"), Some(Encoding::TypedData));
        assert_eq!(Encoding::from_name("typed_data"), None);
    }

    /// Case `index`'s model with its inputs after the data as initializers (as the runner
    /// folds them), and the data.
    fn folded(index: u64) -> (ModelProto, Vec<Tensor>) {
        let (mut model, inputs) = generate_case(11, index, &Shape::default()).build("t");
        let graph = model.graph.as_mut().unwrap();
        let initializers = graph.input.drain(1..).zip(&inputs[1..]);
        graph.initializer = initializers.map(|(v, t)| encode_tensor(t, &v.name)).collect();
        (model, inputs[..1].to_vec())
    }

    /// The reference's outputs for `bytes`, decoded by the library: their raw bytes (strings
    /// by value), or that it refused.
    fn reference(bytes: &[u8], inputs: &[Tensor]) -> Result<Vec<Vec<u8>>, ()> {
        let proto = ModelProto::decode(bytes).unwrap();
        let model = Model::from_proto(std::path::Path::new("model.onnx"), proto, &DecodeOptions::default());
        let outputs = RefBackend.run(&model.map_err(|_| ())?, inputs).map_err(|_| ())?;
        Ok(outputs
            .iter()
            .map(|t| t.raw_bytes().unwrap_or_else(|_| format!("{t:?}").into_bytes()))
            .collect())
    }

    #[test]
    fn the_onnx_form_is_the_plain_serialization() {
        for index in 0..150 {
            let (model, inputs) = generate_case(5, index, &Shape::default()).build("t");
            assert_eq!(
                Encoding::Onnx.encode_model(&model),
                model.encode_to_vec(),
                "case {index}"
            );
            for input in &inputs {
                let plain = encode_tensor(input, "x").encode_to_vec();
                assert_eq!(Encoding::Onnx.encode_tensor(input, "x"), plain, "case {index}");
            }
            let (model, _) = folded(index);
            assert_eq!(
                Encoding::Onnx.encode_model(&model),
                model.encode_to_vec(),
                "case {index}"
            );
        }
    }

    /// The library decodes every form to the model it came from, and the reference computes
    /// the same outputs, bit for bit, or refuses alike.
    #[test]
    fn the_library_and_the_reference_read_every_form_alike() {
        let mut changed = [0; Encoding::OTHERS.len()];
        for index in 0..150 {
            for (model, data) in [folded(index), generate_case(11, index, &Shape::default()).build("t")] {
                let plain = model.encode_to_vec();
                let expected = reference(&plain, &data);
                for (n, encoding) in Encoding::OTHERS.into_iter().enumerate() {
                    let bytes = encoding.encode_model(&model);
                    changed[n] += usize::from(bytes != plain);
                    assert_eq!(reference(&bytes, &data), expected, "case {index} in {encoding}");
                    let decoded = ModelProto::decode(&bytes[..]).unwrap();
                    if matches!(encoding, Encoding::PackedLists | Encoding::ReversedFields) {
                        // Compared as bytes: a NaN value attribute is not equal to itself.
                        assert_eq!(decoded.encode_to_vec(), plain, "case {index} in {encoding}");
                    }
                }
            }
        }
        // Every form changed some models: none is a no-op by mistake.
        assert!(changed.iter().all(|&n| n > 50), "{changed:?}");
    }

    /// Pad-2's `value` of -0.0 reaches a backend that reads the file: proto3 presence would
    /// drop it as the default, and every such backend would be expected to pad with -0.0 it
    /// was never given.
    #[test]
    fn a_negative_zero_value_attribute_is_written() {
        use crate::fuzz::FuzzCase;
        use crate::model::AttributeValue;
        use crate::operators::{OpVersion, PadOp};
        let case = FuzzCase {
            operator: OpVersion {
                op: PadOp::Pad,
                version: 2,
            },
            mode: None,
            data: Tensor::from_vec(&[1], vec![1.0f64]).unwrap(),
            pads: vec![0, 1],
            pads_2d: false,
            constant: Some(Tensor::from_vec(&[], vec![-0.0f64]).unwrap()),
            axes: None,
            int32_indices: false,
        };
        let (model, _) = case.build("t");
        for form in [Encoding::Onnx, Encoding::ReversedFields] {
            let decoded = ModelProto::decode(&form.encode_model(&model)[..]).unwrap();
            let model = Model::from_proto(std::path::Path::new("m.onnx"), decoded, &DecodeOptions::default()).unwrap();
            let value = model.graph.nodes[0].attribute("value");
            assert!(
                matches!(value, Some(AttributeValue::Float(v)) if v.to_bits() == (-0.0f32).to_bits()),
                "{value:?}"
            );
        }
    }

    #[test]
    fn each_form_writes_what_it_says() {
        let attribute = AttributeProto {
            name: "pads".into(),
            ints: vec![1, 300],
            floats: vec![0.5],
            r#type: crate::proto::attribute_type::INTS,
            ..Default::default()
        };
        let node = NodeProto {
            attribute: vec![attribute],
            ..Default::default()
        };
        let model = ModelProto {
            ir_version: 3,
            graph: Some(GraphProto {
                node: vec![node],
                ..Default::default()
            }),
            ..Default::default()
        };
        let attribute_of = |bytes: &[u8]| {
            let graph = ModelProto::decode(bytes).unwrap().graph.unwrap();
            graph.node[0].attribute[0].encode_to_vec()
        };
        let packed = Encoding::PackedLists.encode_model(&model);
        let attribute = Writer(Encoding::PackedLists).attribute(&model.graph.as_ref().unwrap().node[0].attribute[0]);
        // name, then floats (field 7) and ints (field 8) each as one length-delimited field.
        assert_eq!(
            &attribute[6..],
            [0x3a, 4, 0, 0, 0, 0x3f, 0x42, 3, 1, 0xac, 0x02, 0xa0, 0x01, 7]
        );
        assert_eq!(attribute_of(&packed), attribute_of(&model.encode_to_vec()));
        // Reversed: the graph (field 7) comes before ir_version (field 1).
        let reversed = Encoding::ReversedFields.encode_model(&model);
        assert_eq!(reversed[0], 0x3a);
        assert_eq!(*reversed.iter().rev().nth(1).unwrap(), 0x08);
        assert_eq!(ModelProto::decode(&reversed[..]).unwrap(), model);

        let tensor = Tensor::from_vec(&[2], vec![1.5f32, -0.0]).unwrap();
        let typed = Encoding::TypedData.encode_tensor(&tensor, "");
        // dims 2 (unpacked), data_type 1, float_data packed: one key 0x22, 8 bytes.
        assert_eq!(typed[..6], [0x08, 2, 0x10, 1, 0x22, 8]);
        let unpacked = Encoding::UnpackedTypedData.encode_tensor(&tensor, "");
        // float_data one fixed32 field (key 0x25) per value.
        assert_eq!(unpacked[4], 0x25);
        assert_eq!(unpacked[9], 0x25);
        for bytes in [typed, unpacked] {
            let proto = TensorProto::decode(&bytes[..]).unwrap();
            let decoded = decode_tensor(&proto, &DecodeOptions::default()).unwrap();
            assert_eq!(decoded.raw_bytes().unwrap(), tensor.raw_bytes().unwrap());
        }
    }
}
