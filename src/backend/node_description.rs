//! The runner's own reading of a model's Pad-family node, for the worker protocol's `node`
//! object (docs/backend-protocol.md#the-node): operator, domain, version, mode, and where each
//! parameter comes from with its value as written — unvalidated, so that a data set that must
//! be refused reaches the worker as it is, for the worker to refuse. It never fails: what
//! cannot be read is given without its value. Its mode and parameters ([`NodeValues`]) are
//! also what the JSON report records of each data set, for a bug report.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::family::{PadOp, domain_name};
use crate::model::{AttributeValue, Model, Node};
use crate::proto::attribute_type;
use crate::tensor::{Tensor, dtype_name};

/// The largest tensor or attribute list, in bytes of elements, whose value the node carries:
/// a larger one is described by its dtype and shape alone, so that a request stays within a
/// small constant of its largest tensor (a 128 MiB constant written as JSON numbers took 17
/// times its size). A worker reads such a value from the model or the inputs it is given.
const MAX_VALUE_BYTES: usize = 64 << 10;

/// The largest integer a JSON reader holding numbers as doubles reads exactly: beyond it,
/// integers are written as decimal strings.
const EXACT_IN_DOUBLE: i128 = 1 << 53;

/// The `node` object for `model` run on `inputs`, its fed graph inputs in graph order.
pub(crate) fn describe(model: &Model, inputs: &[Tensor]) -> Value {
    let mut node_json = Map::new();
    let graph = json!({"nodes": model.graph.nodes.len(), "op_types": model.op_types()});
    let Some((node, op)) = model.pad_nodes().next() else {
        node_json.insert("graph".into(), graph);
        return Value::Object(node_json);
    };
    node_json.insert("op".into(), op.op_type().into());
    node_json.insert("domain".into(), domain_name(op.domain()).into());
    node_json.insert("version".into(), node.version.into());
    node_json.insert("graph".into(), graph);
    let values = NodeValues::of(node, op, &Sources { model, inputs });
    if let Ok(Value::Object(values)) = serde_json::to_value(values) {
        node_json.extend(values);
    }
    let attributes = node
        .attributes
        .iter()
        .map(|a| (a.name.clone(), attribute_json(&a.value)))
        .collect();
    node_json.insert("attributes".into(), Value::Object(attributes));
    Value::Object(node_json)
}

/// What a bug report about a data set needs of its Pad-family node: its mode and where each
/// parameter comes from, with its value as written. The worker protocol's `node` carries the
/// same fields (with the operator, graph and attributes), and the JSON report each data set's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeValues {
    /// `constant`, `reflect`, `edge`, `wrap`, or as the model spells another; none for
    /// CenterCropPad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Pad's and com.microsoft Pad's pads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pads: Option<Parameter>,
    /// Pad's constant value: its element type, shape and value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant_value: Option<Parameter>,
    /// The axes padded or cropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axes: Option<Parameter>,
    /// CenterCropPad's target shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Parameter>,
}

/// One parameter of the node: where it comes from, and its value when it can be read there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Parameter {
    /// Where it comes from.
    pub from: Source,
    /// Its value as written, unvalidated; none when it cannot be read (computed in the graph,
    /// of the wrong type, or over the size a value is given at).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// Where a parameter of the node comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Source {
    /// An attribute of the node.
    Attribute,
    /// An initializer of the graph.
    Initializer,
    /// A fed input, or another node's output.
    Input,
    /// Not given.
    Absent,
}

impl NodeValues {
    /// The values of `model`'s first Pad-family node run on `inputs` (its fed graph inputs in
    /// graph order); none for a model without one.
    pub(crate) fn of_model(model: &Model, inputs: &[Tensor]) -> Option<NodeValues> {
        let (node, op) = model.pad_nodes().next()?;
        Some(NodeValues::of(node, op, &Sources { model, inputs }))
    }

    /// The values of `node`, a `op`, read from `source`.
    fn of(node: &Node, op: PadOp, source: &Sources<'_>) -> NodeValues {
        let mode = node.pad_mode().map(|mode| mode.name().to_owned());
        match op {
            PadOp::CenterCropPad => NodeValues {
                mode,
                shape: Some(source.input(node, 1, integers)),
                axes: Some(source.attribute(node, "axes", integers)),
                ..NodeValues::default()
            },
            PadOp::Pad if node.version <= 2 => {
                let pads = if node.version == 1 { "paddings" } else { "pads" };
                NodeValues {
                    mode,
                    pads: Some(source.attribute(node, pads, integers)),
                    constant_value: Some(source.attribute(node, "value", constant)),
                    axes: Some(source.input(node, 3, integers)),
                    shape: None,
                }
            }
            PadOp::Pad | PadOp::MicrosoftPad => NodeValues {
                mode,
                pads: Some(source.input(node, 1, integers)),
                constant_value: Some(source.input(node, 2, constant)),
                axes: Some(source.input(node, 3, integers)),
                shape: None,
            },
        }
    }
}

/// Where a node's inputs come from: the model's initializers, or the data set's fed inputs.
struct Sources<'a> {
    model: &'a Model,
    inputs: &'a [Tensor],
}

/// What a parameter's value is, given where it comes from.
enum Found<'a> {
    Tensor(&'a Tensor),
    Attribute(&'a AttributeValue),
}

impl Sources<'_> {
    /// Input `index` of `node`: where it comes from and, where it can be read as `value_of`
    /// reads it, its value.
    fn input(&self, node: &Node, index: usize, value_of: fn(Found) -> Option<Value>) -> Parameter {
        let Some(name) = node.input(index) else {
            return Parameter {
                from: Source::Absent,
                value: None,
            };
        };
        let graph = &self.model.graph;
        if let Some((_, tensor)) = graph.initializers.iter().find(|(n, _)| n == name) {
            return Parameter {
                from: Source::Initializer,
                value: value_of(Found::Tensor(tensor)),
            };
        }
        // A fed input, or (in a graph of several nodes) another node's output: no value then.
        let fed = graph
            .inputs
            .iter()
            .position(|n| n == name)
            .and_then(|k| self.inputs.get(k));
        Parameter {
            from: Source::Input,
            value: fed.and_then(|tensor| value_of(Found::Tensor(tensor))),
        }
    }

    /// Attribute `name` of `node`, read as `value_of` reads it.
    fn attribute(&self, node: &Node, name: &str, value_of: fn(Found) -> Option<Value>) -> Parameter {
        match node.attribute(name) {
            Some(value) => Parameter {
                from: Source::Attribute,
                value: value_of(Found::Attribute(value)),
            },
            None => Parameter {
                from: Source::Absent,
                value: None,
            },
        }
    }
}

/// pads, axes or shape: the integers as written, row-major, negatives kept.
fn integers(found: Found) -> Option<Value> {
    match found {
        Found::Attribute(AttributeValue::Ints(values)) => {
            small_list(values).then(|| values.iter().map(|&v| integer(v.into())).collect())
        }
        Found::Attribute(AttributeValue::Int(v)) => Some(json!([integer((*v).into())])),
        // Floats, bools or strings where integers belong cannot be read as pads.
        Found::Tensor(tensor) => (tensor_is_integer(tensor) && small(tensor)).then(|| Value::Array(elements(tensor))),
        Found::Attribute(_) => None,
    }
}

/// constant_value: its element type, shape and value (an array when it has other than one
/// element, which must be refused).
fn constant(found: Found) -> Option<Value> {
    match found {
        Found::Attribute(AttributeValue::Float(v)) => {
            Some(json!({"dtype": dtype_name(crate::tensor::DataType::Float), "shape": [], "value": float32(*v)}))
        }
        Found::Attribute(_) => None,
        Found::Tensor(tensor) if !small(tensor) => {
            Some(json!({"dtype": dtype_name(tensor.data_type()), "shape": tensor.shape()}))
        }
        Found::Tensor(tensor) => {
            let mut values = elements(tensor);
            let value = if values.len() == 1 {
                values.pop().expect("one element")
            } else {
                Value::Array(values)
            };
            Some(json!({"dtype": dtype_name(tensor.data_type()), "shape": tensor.shape(), "value": value}))
        }
    }
}

/// Whether `tensor`'s elements take at most [`MAX_VALUE_BYTES`] (strings counted at the
/// longest one's length each).
fn small(tensor: &Tensor) -> bool {
    tensor.len().saturating_mul(tensor.max_element_bytes()) <= MAX_VALUE_BYTES
}

/// Whether an attribute's list takes at most [`MAX_VALUE_BYTES`] as elements of its type.
fn small_list<T>(values: &[T]) -> bool {
    values.len().saturating_mul(size_of::<T>()) <= MAX_VALUE_BYTES
}

/// Whether `tensor` holds integers of some width (sub-byte ones too).
fn tensor_is_integer(tensor: &Tensor) -> bool {
    !tensor.data_type().is_floating() && !matches!(tensor, Tensor::String(_) | Tensor::Bool(_))
}

/// Each element of `tensor` as JSON, row-major.
fn elements(tensor: &Tensor) -> Vec<Value> {
    fn all<T>(values: &ndarray::ArrayD<T>, f: impl Fn(&T) -> Value) -> Vec<Value> {
        values.iter().map(f).collect()
    }
    match tensor {
        Tensor::Float(a) => all(a, |&v| float32(v)),
        Tensor::Double(a) => all(a, |&v| float(v)),
        Tensor::Float16(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Bfloat16(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Float8E4M3FN(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Float8E4M3FNUZ(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Float8E5M2(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Float8E5M2FNUZ(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Float8E8M0(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Float4E2M1(a) => all(a, |v| float32(v.to_f32())),
        Tensor::Complex64(a) => all(a, |v| json!([float32(v.re), float32(v.im)])),
        Tensor::Complex128(a) => all(a, |v| json!([float(v.re), float(v.im)])),
        Tensor::Int8(a) => all(a, |&v| integer(v.into())),
        Tensor::Int16(a) => all(a, |&v| integer(v.into())),
        Tensor::Int32(a) => all(a, |&v| integer(v.into())),
        Tensor::Int64(a) => all(a, |&v| integer(v.into())),
        Tensor::Uint8(a) => all(a, |&v| integer(v.into())),
        Tensor::Uint16(a) => all(a, |&v| integer(v.into())),
        Tensor::Uint32(a) => all(a, |&v| integer(v.into())),
        Tensor::Uint64(a) => all(a, |&v| integer(v.into())),
        Tensor::Int4(a) => all(a, |v| integer(v.0.into())),
        Tensor::Uint4(a) => all(a, |v| integer(v.0.into())),
        Tensor::Int2(a) => all(a, |v| integer(v.0.into())),
        Tensor::Uint2(a) => all(a, |v| integer(v.0.into())),
        Tensor::Bool(a) => all(a, |&v| Value::Bool(v)),
        Tensor::String(a) => all(a, |v| String::from_utf8_lossy(v).into_owned().into()),
    }
}

/// An attribute's value: numbers and strings as parameters write them, lists as arrays, the
/// kinds no Pad-family node uses by their type alone.
fn attribute_json(value: &AttributeValue) -> Value {
    match value {
        AttributeValue::Float(v) => float32(*v),
        AttributeValue::Int(v) => integer((*v).into()),
        AttributeValue::String(s) => String::from_utf8_lossy(s).into_owned().into(),
        AttributeValue::Floats(v) if !small_list(v) => json!({"type": "floats", "length": v.len()}),
        AttributeValue::Ints(v) if !small_list(v) => json!({"type": "ints", "length": v.len()}),
        AttributeValue::Strings(v) if v.iter().map(Vec::len).sum::<usize>() > MAX_VALUE_BYTES => {
            json!({"type": "strings", "length": v.len()})
        }
        AttributeValue::Floats(v) => v.iter().map(|&f| float32(f)).collect(),
        AttributeValue::Ints(v) => v.iter().map(|&i| integer(i.into())).collect(),
        AttributeValue::Strings(v) => v
            .iter()
            .map(|s| Value::from(String::from_utf8_lossy(s).into_owned()))
            .collect(),
        AttributeValue::Tensor(_) => json!({"type": "tensor"}),
        AttributeValue::Unsupported(code) => json!({"type": attribute_type_name(*code)}),
    }
}

/// onnx.proto's `AttributeType` names, lower-cased, for the kinds carried by code only.
fn attribute_type_name(code: i32) -> &'static str {
    match code {
        attribute_type::GRAPH => "graph",
        attribute_type::TENSORS => "tensors",
        10 => "graphs",
        11 => "sparse_tensor",
        12 => "sparse_tensors",
        13 => "type_proto",
        14 => "type_protos",
        _ => "undefined",
    }
}

/// An integer, as a decimal string beyond ±2^53 where a double would round it.
fn integer(value: i128) -> Value {
    if value.abs() <= EXACT_IN_DOUBLE {
        // Within ±2^53, so within i64.
        (value as i64).into()
    } else {
        value.to_string().into()
    }
}

/// An f32 by its shortest decimal (`0.1`, not `0.10000000149011612`); it reads back as the
/// same f32.
fn float32(value: f32) -> Value {
    if !value.is_finite() {
        return float(value.into());
    }
    float(format!("{value}").parse().unwrap_or(value.into()))
}

/// A float; NaN and the infinities, which JSON has no numbers for, as `"nan"`, `"inf"`, `"-inf"`.
fn float(value: f64) -> Value {
    if value.is_nan() {
        "nan".into()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::tensor::{DecodeOptions, read_tensor_file};

    /// A corpus case's model and the inputs of its first data set.
    fn case(relative: &str) -> (Model, Vec<Tensor>) {
        let dir = crate::data::data_dir().join(relative);
        let options = DecodeOptions {
            base_dir: Some(dir.clone()),
            ..DecodeOptions::default()
        };
        let model = Model::read(&dir.join("model.onnx"), &options).unwrap();
        let inputs = (0..model.graph.inputs.len())
            .map(|k| read_tensor_file(&data_set_file(&dir, k), &options).unwrap())
            .collect();
        (model, inputs)
    }

    fn data_set_file(dir: &Path, k: usize) -> std::path::PathBuf {
        dir.join("test_data_set_0").join(format!("input_{k}.pb"))
    }

    #[test]
    fn an_attribute_pads_pad_2_gives_its_pads_and_value_from_attributes() {
        let (model, inputs) = case("onnx-1.2.1/node/test_constant_pad");
        let node = describe(&model, &inputs);
        assert_eq!(
            (&node["op"], &node["domain"], &node["version"], &node["mode"]),
            (&json!("Pad"), &json!("ai.onnx"), &json!(2), &json!("constant"))
        );
        assert_eq!(node["graph"], json!({"nodes": 1, "op_types": ["Pad"]}));
        assert_eq!(
            node["pads"],
            json!({"from": "attribute", "value": [0, 0, 1, 3, 0, 0, 2, 4]})
        );
        assert_eq!(
            node["constant_value"],
            json!({"from": "attribute", "value": {"dtype": "float32", "shape": [], "value": 1.2}})
        );
        assert_eq!(node["axes"], json!({"from": "absent"}));
        assert_eq!(node["attributes"]["pads"], json!([0, 0, 1, 3, 0, 0, 2, 4]));
    }

    #[test]
    fn a_pad_18_takes_pads_and_axes_from_this_data_sets_inputs() {
        let (model, inputs) = case("onnx-1.13.1/node/test_constant_pad_axes");
        let node = describe(&model, &inputs);
        assert_eq!((&node["version"], &node["mode"]), (&json!(18), &json!("constant")));
        assert_eq!(node["pads"], json!({"from": "input", "value": [0, 3, 0, 4]}));
        assert_eq!(node["axes"], json!({"from": "input", "value": [1, 3]}));
        assert_eq!(
            node["constant_value"],
            json!({"from": "input", "value": {"dtype": "float32", "shape": [], "value": 1.2}})
        );
        // Per data set: other pads, another node description.
        let mut other = inputs.clone();
        other[1] = Tensor::from_vec(&[4], vec![-1i64, 0, 0, 1 << 60]).unwrap();
        let node = describe(&model, &other);
        assert_eq!(
            node["pads"],
            json!({"from": "input", "value": [-1, 0, 0, "1152921504606846976"]})
        );
    }

    #[test]
    fn a_com_microsoft_pad_names_its_domain_and_its_two_dimensional_pads_as_written() {
        let (model, inputs) = case("extended/test_ext_ms_pad1_constant_double_pads2d_value0d");
        let node = describe(&model, &inputs);
        assert_eq!(
            (&node["op"], &node["domain"], &node["version"]),
            (&json!("Pad"), &json!("com.microsoft"), &json!(1))
        );
        let pads = node["pads"]["value"].as_array().unwrap();
        assert_eq!(pads.len(), 2 * inputs[0].shape().len(), "{node}");
        assert_eq!(node["constant_value"]["value"]["shape"], json!([]), "{node}");
        assert_eq!(node["constant_value"]["value"]["dtype"], json!("float64"), "{node}");
    }

    #[test]
    fn a_center_crop_pad_gives_its_shape_and_axes_and_no_mode() {
        let (model, inputs) = case("onnx-1.22.0/node/test_center_crop_pad_crop_axes_hwc");
        let node = describe(&model, &inputs);
        assert_eq!((&node["op"], &node["version"]), (&json!("CenterCropPad"), &json!(18)));
        assert_eq!(node.get("mode"), None);
        assert_eq!(node["shape"], json!({"from": "input", "value": [10, 9]}));
        assert_eq!(node["axes"], json!({"from": "attribute", "value": [0, 1]}));
        assert_eq!(node.get("pads"), None);
    }

    #[test]
    fn an_expanded_case_is_a_graph_whose_pad_reads_a_computed_input_without_a_value() {
        let (model, inputs) = case("onnx-1.22.0/node/test_center_crop_pad_crop_axes_hwc_expanded");
        let node = describe(&model, &inputs);
        assert_eq!(node["op"], json!("Pad"));
        let nodes = node["graph"]["nodes"].as_u64().unwrap();
        assert!(nodes > 1, "{node}");
        assert_eq!(nodes as usize, model.graph.nodes.len());
        let op_types = node["graph"]["op_types"].as_array().unwrap();
        assert!(
            op_types.contains(&json!("Pad")) && op_types.contains(&json!("Concat")),
            "{node}"
        );
        assert_eq!(node["pads"], json!({"from": "input"}));
    }

    #[test]
    fn a_must_refuse_wrap_on_pad_18_is_passed_as_written() {
        let (model, inputs) = case("extended/test_ext_pad18_err_mode_wrap");
        let node = describe(&model, &inputs);
        assert_eq!((&node["version"], &node["mode"]), (&json!(18), &json!("wrap")));
        assert_eq!(node["attributes"]["mode"], json!("wrap"));
    }

    #[test]
    fn a_constant_or_pads_over_64_kib_are_described_without_their_value() {
        let (model, mut inputs) = case("extended/test_ext_pad18_err_value_two_elements");
        let limit = MAX_VALUE_BYTES / 4;
        inputs[2] = Tensor::from_vec(&[limit], vec![1.5f32; limit]).unwrap();
        let at_the_bound = describe(&model, &inputs);
        assert_eq!(
            at_the_bound["constant_value"]["value"]["value"]
                .as_array()
                .map(Vec::len),
            Some(limit)
        );
        inputs[2] = Tensor::from_vec(&[limit + 1], vec![1.5f32; limit + 1]).unwrap();
        assert_eq!(
            describe(&model, &inputs)["constant_value"],
            json!({"from": "input", "value": {"dtype": "float32", "shape": [limit + 1]}})
        );
        // A request holding it stays near the tensor's own size, not 17 times it.
        let (model, mut inputs) = case("onnx-1.13.1/node/test_constant_pad_axes");
        let count = MAX_VALUE_BYTES / 8 + 1;
        inputs[1] = Tensor::from_vec(&[count], vec![1i64 << 60; count]).unwrap();
        let node = describe(&model, &inputs);
        assert_eq!(node["pads"], json!({"from": "input"}));
        assert!(node.to_string().len() < 1024, "{} bytes", node.to_string().len());
    }

    #[test]
    fn a_large_attribute_list_is_described_by_its_type_and_length() {
        assert_eq!(
            attribute_json(&AttributeValue::Ints(vec![7; 8192]))
                .as_array()
                .map(Vec::len),
            Some(8192)
        );
        assert_eq!(
            attribute_json(&AttributeValue::Ints(vec![7; 8193])),
            json!({"type": "ints", "length": 8193})
        );
        assert_eq!(
            attribute_json(&AttributeValue::Floats(vec![0.5; 16385])),
            json!({"type": "floats", "length": 16385})
        );
    }

    #[test]
    fn a_constant_of_two_elements_is_an_array_as_written() {
        let (model, inputs) = case("extended/test_ext_pad18_err_value_two_elements");
        let node = describe(&model, &inputs);
        let value = &node["constant_value"]["value"];
        assert_eq!(value["shape"], json!([2]), "{node}");
        assert_eq!(value["value"].as_array().map(Vec::len), Some(2), "{node}");
    }

    #[test]
    fn int64_beyond_2_53_nan_and_negative_zero_constants_are_written_exactly() {
        let (model, mut inputs) = case("extended/test_ext_pad13_constant_int64_r1");
        inputs[2] = Tensor::from_vec(&[], vec![(1i64 << 53) + 1]).unwrap();
        let node = describe(&model, &inputs);
        assert_eq!(
            node["constant_value"]["value"],
            json!({"dtype": "int64", "shape": [], "value": "9007199254740993"})
        );
        inputs[2] = Tensor::from_vec(&[], vec![-(1i64 << 53)]).unwrap();
        assert_eq!(
            describe(&model, &inputs)["constant_value"]["value"]["value"],
            json!(-(1i64 << 53))
        );

        let (model, inputs) = case("extended/test_ext_pad25_constant_float_value_nan");
        assert_eq!(
            describe(&model, &inputs)["constant_value"]["value"]["value"],
            json!("nan")
        );
        let (model, inputs) = case("extended/test_ext_pad19_constant_float16_value_negzero");
        let node = describe(&model, &inputs);
        assert_eq!(node["constant_value"]["value"]["dtype"], json!("float16"));
        assert_eq!(node["constant_value"]["value"]["value"].to_string(), "-0.0");
        let (model, inputs) = case("extended/test_ext_pad2_constant_float_value_neginf");
        assert_eq!(
            describe(&model, &inputs)["constant_value"]["value"]["value"],
            json!("-inf")
        );
    }

    #[test]
    fn a_missing_input_is_given_without_a_value_never_an_error() {
        let (model, inputs) = case("onnx-1.13.1/node/test_constant_pad_axes");
        let node = describe(&model, &inputs[..1]);
        assert_eq!(node["pads"], json!({"from": "input"}));
        assert_eq!(node["op"], json!("Pad"));
    }
}
