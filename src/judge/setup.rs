//! What a data set hands the backend, as a failure report shows it so that the failure can
//! be reproduced by hand: every input's name, element type and shape, the values of the small
//! ones (pads, axes, the constant value), and the Pad-family node's attributes.

use serde::{Deserialize, Serialize};

use crate::judge::element_check::Comparable;
use crate::model::{AttributeValue, Model};
use crate::tensor::{DataType, Tensor};

/// The most elements an input may have for its values to be shown: pads of a rank-8 tensor.
const MAX_SHOWN: usize = 16;

/// What a data set hands the backend.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// The graph inputs fed, in order.
    pub inputs: Vec<InputNote>,
    /// The Pad-family node's attributes, as the model states them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<AttributeNote>,
}

/// One input fed to the backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputNote {
    /// The graph input's name.
    pub name: String,
    /// Its element type: `float`, `int64`, …
    pub dtype: DataType,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its values, `[0, 1, 0, 1]`, when it is not the first (the data) and small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<String>,
}

/// One attribute of the Pad-family node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttributeNote {
    /// `mode`, `pads`, `value`, `axes`.
    pub name: String,
    /// Its value as written: `reflect`, `[0, 1, 0, 1]`.
    pub value: String,
}

impl Setup {
    /// The setup of `inputs` fed to `model`.
    pub fn of(model: &Model, inputs: &[Tensor]) -> Setup {
        let inputs = inputs
            .iter()
            .enumerate()
            .map(|(k, tensor)| InputNote {
                name: model
                    .graph
                    .inputs
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| format!("input {k}")),
                dtype: tensor.data_type(),
                shape: tensor.shape().to_vec(),
                values: (k > 0 && tensor.len() <= MAX_SHOWN).then(|| show_values(tensor)),
            })
            .collect();
        let attributes = model
            .pad_nodes()
            .next()
            .map(|(node, _)| {
                node.attributes
                    .iter()
                    .filter_map(|a| {
                        show_attribute(&a.value).map(|value| AttributeNote {
                            name: a.name.clone(),
                            value,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Setup { inputs, attributes }
    }

    /// `data float[1, 3], pads int64[4] = [0, 1, 0, 1]; mode = reflect`: one line.
    pub fn line(&self) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|i| {
                let values = i.values.as_ref().map(|v| format!(" = {v}")).unwrap_or_default();
                format!("{} {}{:?}{values}", i.name, i.dtype, i.shape)
            })
            .collect();
        let mut line = inputs.join(", ");
        if !self.attributes.is_empty() {
            let attributes: Vec<String> = self
                .attributes
                .iter()
                .map(|a| format!("{} = {}", a.name, a.value))
                .collect();
            line.push_str(&format!("; {}", attributes.join(", ")));
        }
        line
    }
}

fn show_values(tensor: &Tensor) -> String {
    fn list<T: Comparable>(values: impl Iterator<Item = T>) -> String {
        let shown: Vec<String> = values.map(|v| v.show()).collect();
        format!("[{}]", shown.join(", "))
    }
    crate::tensor::dispatch!(tensor, a => list(a.iter().cloned()))
}

fn show_attribute(value: &AttributeValue) -> Option<String> {
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    Some(match value {
        AttributeValue::Float(x) => x.show(),
        AttributeValue::Int(x) => x.to_string(),
        AttributeValue::String(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        AttributeValue::Floats(xs) => list(xs.iter().map(Comparable::show).collect()),
        AttributeValue::Ints(xs) => list(xs.iter().map(i64::to_string).collect()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_inputs_show_their_values_and_the_data_its_shape() {
        let setup = Setup {
            inputs: vec![],
            attributes: vec![],
        };
        assert_eq!(setup.line(), "");
        let pads = Tensor::from_vec(&[4], vec![0i64, 1, 0, -1]).unwrap();
        assert_eq!(show_values(&pads), "[0, 1, 0, -1]");
        let value = Tensor::from_vec(&[], vec![-0.0f32]).unwrap();
        assert_eq!(show_values(&value), "[-0]");
        assert_eq!(
            show_attribute(&AttributeValue::Ints(vec![2, -1])).as_deref(),
            Some("[2, -1]")
        );
        assert_eq!(
            show_attribute(&AttributeValue::String(b"edge".to_vec())).as_deref(),
            Some("edge")
        );
    }
}
