//! A model and its inputs read back as the configuration that builds them
//! ([`FuzzCase::build`]): what `promote` repairs into a must-refuse finding's valid twin, from
//! the files it publishes rather than from what a sidecar says. Only the node test the fuzzer
//! writes reads back; anything else is refused, saying what does not fit.

use std::collections::HashMap;

use super::case::FuzzCase;
use crate::model::{AttributeValue, Model};
use crate::operators::{OpVersion, PadOp};
use crate::tensor::{DataType, Tensor};

/// Why a model is no configuration the fuzzer writes.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum NotAConfiguration {
    /// The graph holds another number of nodes than one.
    #[error("its graph holds {0} nodes, not the one Pad-family node the fuzzer writes")]
    Nodes(usize),
    /// Its node calls no operator of the family.
    #[error("its node is {0}, not a Pad-family operator")]
    Operator(String),
    /// An input the node names has no tensor: neither fed by the data set nor an initializer.
    #[error("its node's input {index} ({name:?}) is neither fed by the data set nor an initializer")]
    Unfed {
        /// The node's input index.
        index: usize,
        /// Its name.
        name: String,
    },
    /// The node takes an input or attribute the fuzzer never writes for its operator.
    #[error("{0}, which the fuzzer never writes")]
    Unexpected(String),
}

/// The configuration `model` is, its graph inputs being `inputs` (in the graph's order).
pub(crate) fn configuration_of(model: &Model, inputs: &[Tensor]) -> Result<FuzzCase, NotAConfiguration> {
    let [node] = model.graph.nodes.as_slice() else {
        return Err(NotAConfiguration::Nodes(model.graph.nodes.len()));
    };
    let operator = OpVersion::of(node).ok_or_else(|| NotAConfiguration::Operator(node.label()))?;
    let tensors: HashMap<&str, &Tensor> = model
        .graph
        .initializers
        .iter()
        .map(|(name, tensor)| (name.as_str(), tensor))
        .chain(model.graph.inputs.iter().map(String::as_str).zip(inputs))
        .collect();
    let input = |index: usize| -> Result<Option<&Tensor>, NotAConfiguration> {
        match node.input(index) {
            None => Ok(None),
            Some(name) => tensors
                .get(name)
                .copied()
                .map(Some)
                .ok_or_else(|| NotAConfiguration::Unfed {
                    index,
                    name: name.to_owned(),
                }),
        }
    };
    let data = input(0)?
        .ok_or_else(|| NotAConfiguration::Unexpected("a node without its data input".into()))?
        .clone();
    let unexpected = |what: &str| NotAConfiguration::Unexpected(format!("{} with {what}", node.label()));
    let mut case = FuzzCase {
        operator,
        mode: None,
        data,
        pads: Vec::new(),
        pads_2d: false,
        constant: None,
        axes: None,
        int32_indices: false,
    };
    let mut attribute_names = vec!["mode"];
    match (operator.op, operator.version) {
        (PadOp::CenterCropPad, _) => {
            attribute_names = vec!["axes"];
            let shape = input(1)?.ok_or_else(|| unexpected("no shape input"))?;
            (case.pads, case.int32_indices) = indices(shape).ok_or_else(|| unexpected("a shape not int32 or int64"))?;
            case.axes = match node.attribute("axes") {
                None => None,
                Some(AttributeValue::Ints(axes)) => Some(axes.clone()),
                Some(_) => return Err(unexpected("an axes attribute not of ints")),
            };
            if node.inputs.len() > 2 {
                return Err(unexpected("more than two inputs"));
            }
        }
        (PadOp::Pad, 1 | 2) => {
            let name = if operator.version == 1 { "paddings" } else { "pads" };
            attribute_names.extend([name, "value"]);
            case.pads = match node.attribute(name) {
                Some(AttributeValue::Ints(pads)) => pads.clone(),
                _ => return Err(unexpected(&format!("no {name} attribute of ints"))),
            };
            case.constant = match node.attribute("value") {
                None => None,
                Some(AttributeValue::Float(value)) => {
                    Some(Tensor::from_vec(&[], vec![*value]).expect("one value for a scalar"))
                }
                Some(_) => return Err(unexpected("a value attribute not a float")),
            };
            if node.inputs.len() > 1 {
                return Err(unexpected("inputs after the data"));
            }
        }
        _ => {
            let pads = input(1)?.ok_or_else(|| unexpected("no pads input"))?;
            case.pads = pads.to_vec::<i64>().map_err(|_| unexpected("pads not int64"))?;
            case.pads_2d = match pads.shape() {
                [_] => false,
                [1, _] => true,
                _ => return Err(unexpected("pads neither [n] nor [1, n]")),
            };
            case.constant = input(2)?.cloned();
            if let Some(axes) = input(3)? {
                if axes.shape().len() != 1 {
                    return Err(unexpected("axes not 1-D"));
                }
                let (axes, int32) = indices(axes).ok_or_else(|| unexpected("axes not int32 or int64"))?;
                case.axes = Some(axes);
                case.int32_indices = int32;
            }
            if node.inputs.len() > 4 {
                return Err(unexpected("more than four inputs"));
            }
        }
    }
    for attribute in &node.attributes {
        if !attribute_names.contains(&attribute.name.as_str()) {
            return Err(unexpected(&format!("an attribute {:?}", attribute.name)));
        }
    }
    case.mode = match node.attribute("mode") {
        None => None,
        Some(AttributeValue::String(mode)) => Some(String::from_utf8_lossy(mode).into_owned()),
        Some(_) => return Err(unexpected("a mode attribute not a string")),
    };
    Ok(case)
}

/// The values of an int32 or int64 tensor, and whether it is int32.
fn indices(tensor: &Tensor) -> Option<(Vec<i64>, bool)> {
    match tensor.data_type() {
        DataType::Int64 => Some((tensor.to_vec::<i64>().ok()?, false)),
        DataType::Int32 => Some((tensor.to_vec::<i32>().ok()?.into_iter().map(i64::from).collect(), true)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::fuzz::generate::{Shape, generate};
    use crate::tensor::DecodeOptions;

    /// The model `case` builds, read back as a model file is.
    fn read_back(case: &FuzzCase) -> Result<FuzzCase, NotAConfiguration> {
        let (proto, inputs) = case.build("t");
        let model = Model::from_proto(std::path::Path::new("t.onnx"), proto, &DecodeOptions::default()).unwrap();
        configuration_of(&model, &inputs)
    }

    /// The model and inputs `case` builds, serialized.
    fn bytes(case: &FuzzCase) -> Vec<Vec<u8>> {
        use prost::Message;
        let (model, inputs) = case.build("t");
        let mut all = vec![model.encode_to_vec()];
        all.extend(
            crate::fuzz::encoded_inputs(&model, &inputs)
                .iter()
                .map(Message::encode_to_vec),
        );
        all
    }

    /// Every configuration the generator draws — valid or not, of every operator version —
    /// reads back as itself, but for what the model cannot hold: Pad-1/2's constant is a
    /// float attribute, written only when the constant is a float, and the type of indices
    /// where there are none but the pads.
    #[test]
    fn every_drawn_configuration_reads_back_as_the_model_it_builds() {
        let shape = Shape {
            max_elements: 64,
            refusals: 0.5,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..2000 {
            let case = generate(&mut rng, &shape);
            let read = read_back(&case).unwrap_or_else(|e| panic!("{case}: {e}"));
            let mut expected = case.clone();
            if case.operator.op == PadOp::Pad && case.operator.version <= 2 {
                expected.constant = case
                    .constant
                    .as_ref()
                    .and_then(super::super::case::as_f32)
                    .map(|v| Tensor::from_vec(&[], vec![v]).unwrap());
            }
            // Index types show only where there are indices besides the pads.
            if case.operator.op != PadOp::CenterCropPad && case.axes.is_none() {
                expected.int32_indices = false;
            }
            // Compared as bytes: a NaN is not equal to itself.
            assert_eq!(bytes(&read), bytes(&expected), "{case}");
            assert_eq!(format!("{read}"), format!("{expected}"));
        }
    }

    #[test]
    fn a_model_that_is_no_fuzz_configuration_is_refused_saying_why() {
        let read = |case: &str| {
            let dir = crate::data::data_dir().join(case);
            let options = DecodeOptions {
                base_dir: Some(dir.clone()),
                ..DecodeOptions::default()
            };
            let model = Model::read(&dir.join("model.onnx"), &options).unwrap();
            let inputs: Vec<Tensor> = (0..model.graph.inputs.len())
                .map(|k| {
                    let path = dir.join(format!("test_data_set_0/input_{k}.pb"));
                    crate::tensor::read_tensor_file(&path, &options).unwrap()
                })
                .collect();
            configuration_of(&model, &inputs)
        };
        let expanded = read("onnx-1.22.0/node/test_center_crop_pad_crop_expanded").unwrap_err();
        assert!(matches!(expanded, NotAConfiguration::Nodes(n) if n > 1), "{expanded}");
        // An upstream node test is one: it reads back.
        let wrap = read("onnx-1.22.0/node/test_wrap_pad").unwrap();
        assert_eq!(wrap.mode.as_deref(), Some("wrap"));
        assert_eq!(wrap.pads, [0, 0, 1, 1, 0, 0, 1, 1]);
        // int32 pads: a refusal the fuzzer never draws.
        let (proto, mut inputs) = wrap.build("t");
        inputs[1] = inputs[1].cast(DataType::Int32).unwrap();
        let model = Model::from_proto(std::path::Path::new("t.onnx"), proto, &DecodeOptions::default()).unwrap();
        assert_eq!(
            configuration_of(&model, &inputs).unwrap_err().to_string(),
            "Pad-25 with pads not int64, which the fuzzer never writes"
        );
    }
}
