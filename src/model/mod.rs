//! A loaded model: the graph's nodes with op, domain, resolved operator version and
//! attributes; its initializers, inputs and outputs; the opset import per domain.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use prost::Message;

pub(crate) mod constant_inputs;
// Operator-version resolution and labels: for the tool.
pub(crate) mod opset;
pub(crate) mod value_info;

use crate::family::{ModeAttribute, PadMode, PadOp};
use crate::proto::{AttributeProto, ModelProto, NodeProto, attribute_type};
use crate::tensor::{DecodeOptions, FileError, FileProblem, Tensor, TensorError, decode_tensor, read_limited};
use value_info::ValueInfo;

/// A model.onnx that cannot be read: the file, or the model it holds.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A file that could not be read or decoded (boxed: it is large, and rare).
    #[error(transparent)]
    File(Box<FileError>),
    /// A model.onnx that decodes but is not a model this project can read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Model {
        /// The model file.
        path: PathBuf,
        /// What is wrong with it (boxed: it is large, and rare).
        #[source]
        source: Box<ModelError>,
    },
}

impl From<FileError> for ReadError {
    fn from(error: FileError) -> ReadError {
        ReadError::File(Box::new(error))
    }
}

/// A model read from model.onnx.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Model {
    /// The model.onnx the model was read from, for messages.
    pub path: PathBuf,
    /// `ModelProto.ir_version`: the version of the file format it was written in.
    pub ir_version: i64,
    /// Opset version per domain, `""` standing for `ai.onnx` too.
    pub opset_imports: BTreeMap<String, i64>,
    /// The main graph.
    pub graph: Graph,
}

/// The main graph.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Graph {
    /// In topological order, as ONNX requires.
    pub nodes: Vec<Node>,
    /// Constant inputs, by name, decoded.
    pub initializers: Vec<(String, Tensor)>,
    /// The inputs a caller feeds: the graph inputs that are not initializers.
    pub inputs: Vec<String>,
    /// The output names, in the graph's order.
    pub outputs: Vec<String>,
    /// What the graph declares about each of `inputs`: element type and shape, same order.
    pub input_types: Vec<ValueInfo>,
    /// What the graph declares about each of `outputs`, same order.
    pub output_types: Vec<ValueInfo>,
}

/// One operator call.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Node {
    /// The node's name; may be empty.
    pub name: String,
    /// The operator, e.g. `Pad`.
    pub op_type: String,
    /// `""` for the standard domain.
    pub domain: String,
    /// The operator version the model's opset selects (the opset itself for operators this
    /// project does not know).
    pub version: i64,
    /// Input names; an empty name marks an omitted optional input.
    pub inputs: Vec<String>,
    /// Output names.
    pub outputs: Vec<String>,
    /// The attributes, in the model's order.
    pub attributes: Vec<Attribute>,
}

/// The most nodes, initializers, graph inputs or graph outputs a model may have, and the most
/// inputs, outputs or attributes one node may have. Pad-family cases have a handful; the
/// limit refuses hostile graphs before they are converted. (Nesting is bounded when the
/// file is decoded: prost refuses messages nested over 100 deep.)
pub(crate) const MAX_GRAPH_ITEMS: usize = 100_000;

/// Why a decoded model.onnx is not a model this project can read.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The graph, or one node, has more items of a kind than 100,000.
    #[error("{what}: {count}, over the limit of {limit}")]
    TooMany {
        /// What was counted: `graph.node`, `node 3 (Concat) input`, …
        what: String,
        /// How many there are.
        count: usize,
        /// 100,000.
        limit: usize,
    },
    /// The ModelProto has no graph.
    #[error("the model has no graph")]
    NoGraph,
    /// An initializer that does not decode.
    #[error("initializer {name:?}: {problem}")]
    Initializer {
        /// The initializer's name.
        name: String,
        /// Why it does not decode.
        #[source]
        problem: TensorError,
    },
    /// A node whose domain the model does not import.
    #[error("{node}: domain {domain:?} is not in opset_import")]
    DomainNotImported {
        /// `node 0 (Pad "pad")`.
        node: String,
        /// The domain as the node spells it.
        domain: String,
    },
    /// A node of an operator that the imported opset predates.
    #[error("{node}: opset {opset} predates the operator, which exists since version {first}")]
    OpsetPredatesOperator {
        /// `node 0 (Pad "pad")`.
        node: String,
        /// The imported opset.
        opset: i64,
        /// The operator's first version.
        first: i64,
    },
    /// An attribute that cannot be read.
    #[error("{node}: attribute {name:?}: {problem}")]
    Attribute {
        /// `node 0 (Pad "pad")`.
        node: String,
        /// The attribute's name.
        name: String,
        /// What is wrong with it.
        #[source]
        problem: AttributeProblem,
    },
}

/// What is wrong with an attribute.
#[derive(Debug, thiserror::Error)]
pub enum AttributeProblem {
    /// Declared a tensor, holding none.
    #[error("type is TENSOR but t is not set")]
    MissingTensor,
    /// A tensor value that does not decode.
    #[error(transparent)]
    Tensor(#[from] TensorError),
}

/// A named attribute value.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Attribute {
    /// The attribute's name, e.g. `mode`.
    pub name: String,
    /// Its value.
    pub value: AttributeValue,
}

/// The attribute kinds the Pad family and the ops of its function bodies use.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AttributeValue {
    /// A FLOAT attribute.
    Float(f32),
    /// An INT attribute.
    Int(i64),
    /// A STRING attribute, as bytes (UTF-8 by convention).
    String(Vec<u8>),
    /// A TENSOR attribute, decoded.
    Tensor(Tensor),
    /// A FLOATS attribute.
    Floats(Vec<f32>),
    /// An INTS attribute.
    Ints(Vec<i64>),
    /// A STRINGS attribute, each as bytes.
    Strings(Vec<Vec<u8>>),
    /// Graphs, sparse tensors, type protos: carried by code only, never used here.
    Unsupported(i32),
}

impl Node {
    /// Which Pad-family operator this node calls, if any.
    pub fn pad_op(&self) -> Option<PadOp> {
        PadOp::of(&self.domain, &self.op_type)
    }

    /// The attribute called `name`.
    pub fn attribute(&self, name: &str) -> Option<&AttributeValue> {
        self.attributes.iter().find(|a| a.name == name).map(|a| &a.value)
    }

    /// A Pad node's `mode` (`constant` when absent); `None` for other operators.
    pub fn pad_mode(&self) -> Option<ModeAttribute> {
        (self.op_type == "Pad").then(|| match self.attribute("mode") {
            Some(AttributeValue::String(s)) => ModeAttribute::from_name(&String::from_utf8_lossy(s)),
            _ => PadMode::Constant.into(),
        })
    }

    /// The input at `index`, or `None` when it is absent or omitted (empty name).
    pub fn input(&self, index: usize) -> Option<&str> {
        self.inputs.get(index).map(String::as_str).filter(|n| !n.is_empty())
    }
}

impl Node {
    /// `Pad-19`, `com.microsoft.Pad-1`: the operator and version, without the node's name.
    pub fn label(&self) -> String {
        opset::operator_label(&self.domain, &self.op_type, self.version)
    }
}

impl fmt::Display for Node {
    /// `Pad-19 "pad_node"` or `com.microsoft.Pad-1`: how messages name a node.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())?;
        if !self.name.is_empty() {
            write!(f, " {:?}", self.name)?;
        }
        Ok(())
    }
}

impl Model {
    /// Reads and decodes model.onnx. `options.base_dir` should be the model's directory.
    pub(crate) fn read(path: &Path, options: &DecodeOptions) -> Result<Model, ReadError> {
        let bytes = read_limited(path, options.max_bytes)?;
        let proto = ModelProto::decode(Bytes::from(bytes)).map_err(|e| FileProblem::from(e).at(path))?;
        Model::from_proto(path, proto, options)
    }

    /// Builds a model from a decoded `ModelProto`; `path` names it in errors.
    pub(crate) fn from_proto(path: &Path, proto: ModelProto, options: &DecodeOptions) -> Result<Model, ReadError> {
        let error = |source: ModelError| ReadError::Model {
            path: path.to_owned(),
            source: Box::new(source),
        };
        let mut opset_imports = BTreeMap::new();
        for import in &proto.opset_import {
            opset_imports.insert(
                crate::family::normalize_domain(&import.domain).to_owned(),
                import.version,
            );
        }
        let graph = proto.graph.ok_or_else(|| error(ModelError::NoGraph))?;
        for (what, count) in [
            ("graph.node", graph.node.len()),
            ("graph.initializer", graph.initializer.len()),
            ("graph.input", graph.input.len()),
            ("graph.output", graph.output.len()),
            ("opset_import", proto.opset_import.len()),
        ] {
            check_count(what, count).map_err(&error)?;
        }
        let mut initializers = Vec::with_capacity(graph.initializer.len());
        for init in &graph.initializer {
            let tensor = decode_tensor(init, options).map_err(|problem| {
                error(ModelError::Initializer {
                    name: init.name.clone(),
                    problem,
                })
            })?;
            initializers.push((init.name.clone(), tensor));
        }
        // A set, so that many initializers listed as graph inputs cost linear time.
        let initializer_names: HashSet<&str> = graph.initializer.iter().map(|i| i.name.as_str()).collect();
        let is_initializer = |name: &str| initializer_names.contains(name);
        let fed: Vec<_> = graph.input.iter().filter(|v| !is_initializer(&v.name)).collect();
        let nodes = graph
            .node
            .iter()
            .enumerate()
            .map(|(index, node)| convert_node(index, node, &opset_imports, options).map_err(&error))
            .collect::<Result<_, _>>()?;
        Ok(Model {
            path: path.to_owned(),
            ir_version: proto.ir_version,
            opset_imports,
            graph: Graph {
                nodes,
                initializers,
                inputs: fed.iter().map(|v| v.name.clone()).collect(),
                outputs: graph.output.iter().map(|v| v.name.clone()).collect(),
                input_types: fed.iter().map(|v| ValueInfo::from_proto(v)).collect(),
                output_types: graph.output.iter().map(ValueInfo::from_proto).collect(),
            },
        })
    }

    /// The Pad-family nodes of the graph.
    pub fn pad_nodes(&self) -> impl Iterator<Item = (&Node, PadOp)> {
        self.graph.nodes.iter().filter_map(|n| n.pad_op().map(|op| (n, op)))
    }

    /// How many nodes the graph has, when it has more than one: a graph of helper ops around
    /// the Pad-family node, which a worker that runs one node cannot run.
    pub(crate) fn graph_nodes(&self) -> Option<usize> {
        let nodes = self.graph.nodes.len();
        (nodes > 1).then_some(nodes)
    }

    /// The distinct op types of the graph, in order of first appearance.
    pub fn op_types(&self) -> Vec<&str> {
        let mut seen = HashSet::new();
        self.graph
            .nodes
            .iter()
            .map(|n| n.op_type.as_str())
            .filter(|op| seen.insert(*op))
            .collect()
    }
}

fn check_count(what: &str, count: usize) -> Result<(), ModelError> {
    if count > MAX_GRAPH_ITEMS {
        return Err(ModelError::TooMany {
            what: what.to_owned(),
            count,
            limit: MAX_GRAPH_ITEMS,
        });
    }
    Ok(())
}

fn convert_node(
    index: usize,
    node: &NodeProto,
    opset_imports: &BTreeMap<String, i64>,
    options: &DecodeOptions,
) -> Result<Node, ModelError> {
    let label = || {
        if node.name.is_empty() {
            format!("node {index} ({})", node.op_type)
        } else {
            format!("node {index} ({} {:?})", node.op_type, node.name)
        }
    };
    for (what, count) in [
        ("input", node.input.len()),
        ("output", node.output.len()),
        ("attribute", node.attribute.len()),
    ] {
        check_count(&format!("{} {what}", label()), count)?;
    }
    let domain = crate::family::normalize_domain(&node.domain).to_owned();
    let opset = *opset_imports
        .get(&domain)
        .ok_or_else(|| ModelError::DomainNotImported {
            node: label(),
            domain: node.domain.clone(),
        })?;
    let version = match opset::operator_version(&domain, &node.op_type, opset) {
        Ok(version) => version.unwrap_or(opset),
        Err(first) => {
            return Err(ModelError::OpsetPredatesOperator {
                node: label(),
                opset,
                first,
            });
        }
    };
    let attributes = node
        .attribute
        .iter()
        .map(|a| {
            Ok(Attribute {
                name: a.name.clone(),
                value: attribute_value(a, options).map_err(|problem| ModelError::Attribute {
                    node: label(),
                    name: a.name.clone(),
                    problem,
                })?,
            })
        })
        .collect::<Result<_, ModelError>>()?;
    Ok(Node {
        name: node.name.clone(),
        op_type: node.op_type.clone(),
        domain,
        version,
        inputs: node.input.clone(),
        outputs: node.output.clone(),
        attributes,
    })
}

fn attribute_value(a: &AttributeProto, options: &DecodeOptions) -> Result<AttributeValue, AttributeProblem> {
    let kind = if a.r#type != 0 { a.r#type } else { inferred_type(a) };
    Ok(match kind {
        attribute_type::FLOAT => AttributeValue::Float(a.f.unwrap_or_default()),
        attribute_type::INT => AttributeValue::Int(a.i),
        attribute_type::STRING => AttributeValue::String(a.s.to_vec()),
        attribute_type::TENSOR => {
            let proto = a.t.as_ref().ok_or(AttributeProblem::MissingTensor)?;
            AttributeValue::Tensor(decode_tensor(proto, options)?)
        }
        attribute_type::FLOATS => AttributeValue::Floats(a.floats.clone()),
        attribute_type::INTS => AttributeValue::Ints(a.ints.clone()),
        attribute_type::STRINGS => AttributeValue::Strings(a.strings.iter().map(|s| s.to_vec()).collect()),
        other => AttributeValue::Unsupported(other),
    })
}

/// Files older than IR version 2 leave `type` unset: infer it from the field that is set.
fn inferred_type(a: &AttributeProto) -> i32 {
    if !a.ints.is_empty() {
        attribute_type::INTS
    } else if !a.floats.is_empty() {
        attribute_type::FLOATS
    } else if !a.strings.is_empty() {
        attribute_type::STRINGS
    } else if a.t.is_some() {
        attribute_type::TENSOR
    } else if !a.s.is_empty() {
        attribute_type::STRING
    } else if a.f.is_some() {
        attribute_type::FLOAT
    } else {
        attribute_type::INT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{GraphProto, OperatorSetIdProto, TensorProto, ValueInfoProto};

    fn proto(graph: GraphProto) -> ModelProto {
        ModelProto {
            graph: Some(graph),
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: 21,
            }],
            ..Default::default()
        }
    }

    fn load(graph: GraphProto) -> Result<Model, ReadError> {
        Model::from_proto(Path::new("m/model.onnx"), proto(graph), &DecodeOptions::default())
    }

    #[test]
    fn a_model_read_from_its_file_has_the_version_its_opset_selects() {
        let dir = crate::data::data_dir().join("onnx-1.22.0/node/test_wrap_pad");
        let options = DecodeOptions {
            base_dir: Some(dir.clone()),
            ..DecodeOptions::default()
        };
        let model = Model::read(&dir.join("model.onnx"), &options).unwrap();
        let pad = &model.graph.nodes[0];
        assert_eq!((pad.op_type.as_str(), pad.version), ("Pad", 25));
        assert_eq!(pad.attribute("mode"), Some(&AttributeValue::String(b"wrap".to_vec())));
    }

    fn op(op_type: &str) -> NodeProto {
        NodeProto {
            op_type: op_type.into(),
            ..Default::default()
        }
    }

    #[test]
    fn graphs_over_the_item_limit_are_refused_naming_what_and_how_many() {
        let graph = GraphProto {
            node: vec![op("Relu"); MAX_GRAPH_ITEMS + 1],
            ..Default::default()
        };
        let message = load(graph).unwrap_err().to_string();
        assert!(message.contains("m/model.onnx"), "{message}");
        assert!(
            message.contains("graph.node: 100001, over the limit of 100000"),
            "{message}"
        );
        let mut node = op("Concat");
        node.input = vec!["x".into(); MAX_GRAPH_ITEMS + 5];
        let graph = GraphProto {
            node: vec![op("Relu"), node],
            ..Default::default()
        };
        let message = load(graph).unwrap_err().to_string();
        assert!(
            message.contains("node 1 (Concat) input: 100005, over the limit of 100000"),
            "{message}"
        );
    }

    #[test]
    fn many_initializers_listed_as_inputs_and_many_op_types_load_in_linear_time() {
        initializers_listed_as_inputs_and_op_types_load(10_000);
    }

    /// The check above at 60,000, where a quadratic search would make 3.6e9 comparisons (a
    /// third of a second of `cargo test` time: .ci/run runs it).
    #[test]
    #[ignore = "slow: run by .ci/run"]
    fn sixty_thousand_initializers_listed_as_inputs_load_in_linear_time() {
        initializers_listed_as_inputs_and_op_types_load(60_000);
    }

    /// `n` initializers also listed as graph inputs, plus one real input, and `n` nodes of
    /// `n` × 5/6 op types, each listed once.
    fn initializers_listed_as_inputs_and_op_types_load(n: usize) {
        let name = |i: usize| format!("w{i}");
        let initializer: Vec<TensorProto> = (0..n)
            .map(|i| TensorProto {
                name: name(i),
                data_type: 7,
                dims: vec![0],
                ..Default::default()
            })
            .collect();
        let mut input: Vec<ValueInfoProto> = (0..n)
            .map(|i| ValueInfoProto {
                name: name(i),
                r#type: None,
            })
            .collect();
        input.insert(
            n / 2,
            ValueInfoProto {
                name: "x".into(),
                r#type: None,
            },
        );
        // Five kinds for every six nodes: the later nodes repeat earlier op types.
        let kinds = n * 5 / 6;
        let node: Vec<NodeProto> = (0..n).map(|i| op(&format!("Op{}", i % kinds))).collect();
        let model = load(GraphProto {
            node,
            initializer,
            input,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(model.graph.inputs, ["x"]);
        assert_eq!(model.graph.initializers.len(), n);
        let ops = model.op_types();
        assert_eq!(ops.len(), kinds);
        assert_eq!((ops[0], ops[kinds - 1]), ("Op0", &*format!("Op{}", kinds - 1)));
    }
}
