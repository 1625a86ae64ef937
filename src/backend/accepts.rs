//! The protocol's optional additions, negotiated in the hello (docs/backend-protocol.md#negotiation):
//! the runner offers the node description, raw tensor files and model replies; a worker's
//! `accepts` takes what it wants. A worker that says nothing gets exactly the requests of before.

use serde_json::{Value, json};

/// How a worker's tensor files are written and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum TensorFormat {
    /// Serialized `TensorProto` files (input_K.pb): the protocol's first format.
    #[default]
    TensorProto,
    /// Elements with no header, their element type and shape in the request
    /// (docs/backend-protocol.md#raw-tensor-files).
    Raw,
}

impl TensorFormat {
    /// Every format the runner offers, in the order the hello lists them.
    const OFFERED: [TensorFormat; 2] = [TensorFormat::TensorProto, TensorFormat::Raw];

    /// The name the hello uses.
    fn name(self) -> &'static str {
        match self {
            TensorFormat::TensorProto => "tensorproto",
            TensorFormat::Raw => "raw",
        }
    }
}

/// What a worker's hello accepts; the default, for a worker that says nothing, is what every
/// worker got before the field existed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Accepts {
    /// Requests carry the runner's reading of the Pad-family node.
    pub(crate) node: bool,
    /// The format of input and output tensor files.
    pub(crate) tensors: TensorFormat,
    /// Replies hand back a rewritten model, which the runner evaluates with its reference
    /// (docs/backend-protocol.md#model-replies): a graph optimizer's answer.
    pub(crate) model: bool,
}

/// The runner hello's `offers`: everything [`Accepts::from_hello`] takes.
pub(crate) fn offers() -> Value {
    let tensors: Vec<_> = TensorFormat::OFFERED.iter().map(|f| f.name()).collect();
    json!({"node": true, "tensors": tensors, "model": true})
}

impl Accepts {
    /// The `accepts` of a worker's hello: absent, the default; else an object whose `node`,
    /// and `model`, if present, are bools and whose `tensors`, if present, is one of the
    /// formats offered.
    /// Unknown keys are ignored (room to grow). Anything else is an error naming the field and
    /// the value.
    pub(crate) fn from_hello(accepts: Option<&Value>) -> Result<Accepts, String> {
        let Some(accepts) = accepts else {
            return Ok(Accepts::default());
        };
        let Some(fields) = accepts.as_object() else {
            return Err(format!("the hello's accepts {accepts} is not an object"));
        };
        let flag = |name: &str| match fields.get(name) {
            None => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(format!("the hello's accepts.{name} {other} is not true or false")),
        };
        let node = flag("node")?;
        let model = flag("model")?;
        let tensors = match fields.get("tensors") {
            None => TensorFormat::TensorProto,
            Some(value) => TensorFormat::OFFERED
                .into_iter()
                .find(|f| value.as_str() == Some(f.name()))
                .ok_or_else(|| {
                    format!(
                        "the hello's accepts.tensors {value} is not one the runner offered: \"tensorproto\" or \"raw\""
                    )
                })?,
        };
        Ok(Accepts { node, tensors, model })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_offers_the_node_and_both_tensor_formats() {
        assert_eq!(
            offers(),
            json!({"node": true, "tensors": ["tensorproto", "raw"], "model": true})
        );
    }

    #[test]
    fn a_hello_s_accepts_is_optional_and_checked_when_present() {
        let old = Accepts::default();
        assert_eq!(Accepts::from_hello(None), Ok(old));
        assert_eq!(Accepts::from_hello(Some(&json!({}))), Ok(old));
        assert_eq!(
            Accepts::from_hello(Some(&json!({"node": true, "tensors": "raw", "later": [1]}))),
            Ok(Accepts {
                node: true,
                tensors: TensorFormat::Raw,
                model: false,
            })
        );
        assert_eq!(
            Accepts::from_hello(Some(&json!({"tensors": "raw"}))),
            Ok(Accepts {
                node: false,
                tensors: TensorFormat::Raw,
                model: false,
            })
        );
        assert_eq!(
            Accepts::from_hello(Some(&json!({"model": true}))),
            Ok(Accepts { model: true, ..old })
        );
        for (bad, says) in [
            (json!("raw"), r#"accepts "raw" is not an object"#),
            (json!(true), "accepts true is not an object"),
            (json!({"node": "yes"}), r#"accepts.node "yes" is not true or false"#),
            (json!({"node": 1}), "accepts.node 1 is not true or false"),
            (json!({"model": "yes"}), r#"accepts.model "yes" is not true or false"#),
            (
                json!({"tensors": "npy"}),
                r#"accepts.tensors "npy" is not one the runner offered"#,
            ),
            (json!({"tensors": ["raw"]}), r#"accepts.tensors ["raw"] is not one"#),
            (json!({"tensors": "RAW"}), r#"accepts.tensors "RAW""#),
        ] {
            let error = Accepts::from_hello(Some(&bad)).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}
