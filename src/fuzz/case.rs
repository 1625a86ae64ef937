//! A generated configuration of one Pad-family node, and the model and inputs it becomes:
//! the same node-test layout as a vendored case (graph inputs x, pads, value, axes — or
//! shape — and attributes for Pad-1/2 and CenterCropPad's axes).

use std::fmt;

use crate::operators::{OpVersion, PadOp};
use crate::proto::{
    AttributeProto, Dimension, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorShapeProto, TypeProto,
    TypeProtoTensor, ValueInfoProto, attribute_type,
};
use crate::tensor::{DataType, Tensor, encode_tensor};

/// com.microsoft Pad models import this ai.onnx opset beside the contrib domain.
const MICROSOFT_ONNX_OPSET: i64 = 11;

/// One generated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct FuzzCase {
    /// The operator version the model imports.
    pub operator: OpVersion,
    /// The `mode` attribute as written (possibly one no version accepts); `None`: absent.
    pub mode: Option<String>,
    /// The data input.
    pub data: Tensor,
    /// Pad: the pads in ONNX layout (begins, then ends); CenterCropPad: the target shape.
    pub pads: Vec<i64>,
    /// Write pads as a [1, n] tensor (com.microsoft Pad accepts it; ai.onnx Pad must refuse).
    pub pads_2d: bool,
    /// The constant value (input 2, or Pad-1/2's `value` attribute); `None`: absent.
    pub constant: Option<Tensor>,
    /// Pad-18+'s axes input, or CenterCropPad's axes attribute; `None`: absent.
    pub axes: Option<Vec<i64>>,
    /// Write axes (Pad) or the target shape (CenterCropPad) as int32 rather than int64.
    pub int32_indices: bool,
}

impl FuzzCase {
    /// The model and the graph inputs in order, as a node test holds them; the output declares
    /// one symbolic dimension per axis of the data (its sizes not yet known).
    pub fn build(&self, name: &str) -> (ModelProto, Vec<Tensor>) {
        self.build_declaring(name, None)
    }

    /// [`build`](Self::build), the output declaring `output`'s shape: the one the reference
    /// computed. onnx.checker requires a shape, so a loader that runs it would otherwise
    /// refuse every model for that; a case the reference refuses keeps the symbolic one.
    pub fn build_declaring(&self, name: &str, output: Option<&[usize]>) -> (ModelProto, Vec<Tensor>) {
        let op = self.operator;
        let mut inputs: Vec<(String, Tensor)> = vec![("x".into(), self.data.clone())];
        let mut node_inputs = vec!["x".to_owned()];
        let mut attributes = Vec::new();
        if let Some(mode) = &self.mode {
            attributes.push(string_attribute("mode", mode));
        }
        let index_type = |values: &[i64], shape: &[usize]| {
            if self.int32_indices {
                let values = values.iter().map(|&v| v as i32).collect();
                Tensor::from_vec(shape, values)
            } else {
                Tensor::from_vec(shape, values.to_vec())
            }
            .expect("the shape holds the values")
        };
        match (op.op, op.version) {
            (PadOp::CenterCropPad, _) => {
                inputs.push(("shape".into(), index_type(&self.pads, &[self.pads.len()])));
                node_inputs.push("shape".into());
                if let Some(axes) = &self.axes {
                    attributes.push(ints_attribute("axes", axes));
                }
            }
            (PadOp::Pad, 1 | 2) => {
                let name = if op.version == 1 { "paddings" } else { "pads" };
                attributes.push(ints_attribute(name, &self.pads));
                if let Some(value) = self.constant.as_ref().and_then(as_f32) {
                    attributes.push(float_attribute("value", value));
                }
            }
            _ => {
                let shape = if self.pads_2d {
                    vec![1, self.pads.len()]
                } else {
                    vec![self.pads.len()]
                };
                let pads = Tensor::from_vec(&shape, self.pads.clone()).expect("the shape holds the pads");
                inputs.push(("pads".into(), pads));
                node_inputs.push("pads".into());
                match &self.constant {
                    Some(value) => {
                        inputs.push(("value".into(), value.clone()));
                        node_inputs.push("value".into());
                    }
                    None if self.axes.is_some() => node_inputs.push(String::new()),
                    None => {}
                }
                if let Some(axes) = &self.axes {
                    inputs.push(("axes".into(), index_type(axes, &[axes.len()])));
                    node_inputs.push("axes".into());
                }
            }
        }
        attributes.sort_by(|a, b| a.name.cmp(&b.name));
        let node = NodeProto {
            input: node_inputs,
            output: vec!["y".into()],
            name: "node".into(),
            op_type: op.op.op_type().into(),
            domain: op.op.domain().into(),
            attribute: attributes,
        };
        let graph = GraphProto {
            node: vec![node],
            name: name.into(),
            input: inputs
                .iter()
                .map(|(n, t)| value_info(n, t.data_type(), t.shape()))
                .collect(),
            output: vec![output_info(self.data.data_type(), output, self.data.shape().len())],
            ..Default::default()
        };
        let opset_import = match op.op {
            PadOp::MicrosoftPad => vec![opset("", MICROSOFT_ONNX_OPSET), opset("com.microsoft", op.version)],
            _ => vec![opset("", op.version)],
        };
        let model = ModelProto {
            ir_version: ir_version(op, self.data.data_type()),
            producer_name: "pad-conformance fuzz".into(),
            graph: Some(graph),
            opset_import,
            ..Default::default()
        };
        (model, inputs.into_iter().map(|(_, t)| t).collect())
    }

    /// The number of elements of the data.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }
}

impl fmt::Display for FuzzCase {
    /// `Pad-19 edge float[2, 3] pads [1, 0, 0, 2] axes [0, -1] constant float[]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = self.operator;
        write!(
            f,
            "{} {}",
            crate::model::opset::operator_label(op.op.domain(), op.op.op_type(), op.version),
            self.data.describe()
        )?;
        if let Some(mode) = &self.mode {
            write!(f, " mode {mode:?}")?;
        }
        let what = if op.op == PadOp::CenterCropPad { "shape" } else { "pads" };
        write!(f, " {what} {:?}", self.pads)?;
        if self.pads_2d {
            f.write_str(" (as [1, n])")?;
        }
        if let Some(axes) = &self.axes {
            write!(f, " axes {axes:?}")?;
        }
        if let Some(constant) = &self.constant {
            write!(f, " constant {}", constant.describe())?;
        }
        Ok(())
    }
}

/// The IR version a model of `op` holding `dtype` needs: the opset's, or the element type's
/// when newer.
fn ir_version(op: OpVersion, dtype: DataType) -> i64 {
    let opset = match op.op {
        PadOp::MicrosoftPad => MICROSOFT_ONNX_OPSET,
        _ => op.version,
    };
    let for_opset = match opset {
        1 | 2 => 3,
        11 => 6,
        13 => 7,
        18 => 8,
        19 => 9,
        21 => 10,
        23 => 11,
        24 => 12,
        _ => 13,
    };
    let for_dtype = match dtype {
        DataType::Float8E4M3FN | DataType::Float8E4M3FNUZ | DataType::Float8E5M2 | DataType::Float8E5M2FNUZ => 9,
        DataType::Int4 | DataType::Uint4 => 10,
        DataType::Float4E2M1 => 11,
        DataType::Float8E8M0 => 12,
        DataType::Int2 | DataType::Uint2 => 13,
        _ => 3,
    };
    for_opset.max(for_dtype)
}

/// A floating constant as Pad-1/2's float `value` attribute.
pub(super) fn as_f32(value: &Tensor) -> Option<f32> {
    match value {
        Tensor::Float(a) => a.iter().next().copied(),
        Tensor::Double(a) => a.iter().next().map(|&v| v as f32),
        Tensor::Float16(a) => a.iter().next().map(|v| v.to_f32()),
        _ => None,
    }
}

fn opset(domain: &str, version: i64) -> OperatorSetIdProto {
    OperatorSetIdProto {
        domain: domain.into(),
        version,
    }
}

/// The graph output `y`: of shape `output`, or when it is not known one symbolic dimension
/// (`y_0`, `y_1`, …) per axis of the data.
fn output_info(dtype: DataType, output: Option<&[usize]>, rank: usize) -> ValueInfoProto {
    let dims = match output {
        Some(dims) => dims.iter().map(|&d| fixed(d)).collect(),
        None => (0..rank)
            .map(|axis| Dimension {
                dim_value: None,
                dim_param: Some(format!("y_{axis}")),
            })
            .collect(),
    };
    tensor_info("y", dtype, dims)
}

/// A graph input of a fixed shape.
fn value_info(name: &str, dtype: DataType, dims: &[usize]) -> ValueInfoProto {
    tensor_info(name, dtype, dims.iter().map(|&d| fixed(d)).collect())
}

fn fixed(extent: usize) -> Dimension {
    Dimension {
        dim_value: Some(extent as i64),
        dim_param: None,
    }
}

fn tensor_info(name: &str, dtype: DataType, dims: Vec<Dimension>) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type: dtype.code(),
                shape: Some(TensorShapeProto { dim: dims }),
            }),
        }),
    }
}

fn string_attribute(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        s: value.as_bytes().to_vec().into(),
        r#type: attribute_type::STRING,
        ..Default::default()
    }
}

fn ints_attribute(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: values.to_vec(),
        r#type: attribute_type::INTS,
        ..Default::default()
    }
}

fn float_attribute(name: &str, value: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        f: Some(value),
        r#type: attribute_type::FLOAT,
        ..Default::default()
    }
}

/// The serialized tensors of `inputs`, named as the graph names them.
pub(crate) fn encoded_inputs(model: &ModelProto, inputs: &[Tensor]) -> Vec<crate::proto::TensorProto> {
    let names: Vec<&str> = model
        .graph
        .as_ref()
        .map(|g| g.input.iter().map(|v| v.name.as_str()).collect())
        .unwrap_or_default();
    inputs
        .iter()
        .zip(names.into_iter().chain(std::iter::repeat("")))
        .map(|(t, n)| encode_tensor(t, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_declares_the_shape_given_or_one_symbolic_dimension_per_axis() {
        let case = FuzzCase {
            operator: OpVersion {
                op: PadOp::Pad,
                version: 19,
            },
            mode: None,
            data: Tensor::from_vec(&[2, 3], vec![0f32; 6]).unwrap(),
            pads: vec![1, 0, 0, 1],
            pads_2d: false,
            constant: None,
            axes: None,
            int32_indices: false,
        };
        let dims = |model: ModelProto| -> Vec<(Option<i64>, Option<String>)> {
            let output = model.graph.unwrap().output.remove(0);
            let shape = output.r#type.unwrap().tensor_type.unwrap().shape.unwrap();
            shape.dim.into_iter().map(|d| (d.dim_value, d.dim_param)).collect()
        };
        assert_eq!(
            dims(case.build("t").0),
            [(None, Some("y_0".to_owned())), (None, Some("y_1".to_owned()))]
        );
        assert_eq!(
            dims(case.build_declaring("t", Some(&[3, 4])).0),
            [(Some(3), None), (Some(4), None)]
        );
    }
}
