//! Constant-input mode: the model rewritten so that every graph input after the data is an
//! initializer holding the data set's value, for runtimes that need pads, constant_value,
//! axes and shape as constants (tract, code generators).
//!
//! The rewrite works on the protobuf wire format: the graph's `input` entries for those
//! names are dropped and `initializer` entries appended, and every other byte of model.onnx
//! is kept as it was, fields this crate does not declare included.

use std::path::{Path, PathBuf};

use bytes::Bytes;
use prost::Message;

use super::{Model, ReadError};
use crate::proto::ModelProto;
use crate::tensor::{DecodeOptions, FileError, FileProblem, Tensor, encode_tensor, read_limited};

/// Why a model cannot be handed over with constant inputs.
#[derive(Debug, thiserror::Error)]
// Public as the fuzzer's errors hold it: without the fuzzer (no `cli`), no path reaches it.
#[cfg_attr(not(feature = "cli"), allow(unreachable_pub))]
pub enum RewriteError {
    /// model.onnx, or the rewritten model, cannot be read or written.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// What in model.onnx's encoding stopped the rewrite.
    #[error("rewriting {} with constant inputs: {source}", crate::text::shown_path(path))]
    Wire {
        /// The model file.
        path: PathBuf,
        /// Why.
        #[source]
        source: WireError,
    },
}

impl From<FileError> for RewriteError {
    fn from(error: FileError) -> RewriteError {
        RewriteError::Read(error.into())
    }
}

/// `ModelProto.graph`, `GraphProto.initializer`, `GraphProto.input`, `ValueInfoProto.name`.
const MODEL_GRAPH: u32 = 7;
const GRAPH_INITIALIZER: u32 = 5;
const GRAPH_INPUT: u32 = 11;
const VALUE_INFO_NAME: u32 = 1;

/// Rewrites `model` (read from `model.path`) for `inputs`, writes the result to
/// `dir`/model.onnx, and returns it with the inputs still fed: the data alone.
pub(crate) fn inputs_as_constants(
    model: &Model,
    inputs: &[Tensor],
    dir: &Path,
    options: &DecodeOptions,
) -> Result<(Model, Vec<Tensor>), RewriteError> {
    let after_data: Vec<String> = model.graph.inputs.iter().skip(1).cloned().collect();
    named_inputs_as_constants(model, inputs, &after_data, dir, options)
}

/// [`inputs_as_constants`] for the graph inputs `names` only (a profile's inputs of form
/// `initializer`): returns the model and the inputs still fed, in graph order.
pub(crate) fn named_inputs_as_constants(
    model: &Model,
    inputs: &[Tensor],
    names: &[String],
    dir: &Path,
    options: &DecodeOptions,
) -> Result<(Model, Vec<Tensor>), RewriteError> {
    let original = read_limited(&model.path, options.max_bytes)?;
    let made_constant = |name: &str| names.iter().any(|n| n == name);
    let named = model.graph.inputs.iter().map(String::as_str).zip(inputs);
    let constants: Vec<(&str, &Tensor)> = named.clone().filter(|(name, _)| made_constant(name)).collect();
    let fed: Vec<Tensor> = named
        .filter(|(name, _)| !made_constant(name))
        .map(|(_, t)| t.clone())
        .collect();
    let rewritten = rewrite(&original, &constants).map_err(|source| RewriteError::Wire {
        path: model.path.clone(),
        source,
    })?;
    let path = dir.join("model.onnx");
    std::fs::write(&path, &rewritten).map_err(|e| FileProblem::Io(e).writing(&path))?;
    let proto = ModelProto::decode(Bytes::from(rewritten)).map_err(|e| FileProblem::from(e).at(&path))?;
    let folded = Model::from_proto(&path, proto, options)?;
    Ok((folded, fed))
}

/// The serialized model with `constants` moved from the graph's inputs to its initializers.
fn rewrite(model: &[u8], constants: &[(&str, &Tensor)]) -> Result<Vec<u8>, WireError> {
    let mut out = Vec::with_capacity(model.len());
    for field in fields(model)? {
        if field.number != MODEL_GRAPH {
            out.extend_from_slice(field.raw);
            continue;
        }
        let mut graph = Vec::with_capacity(field.payload.len());
        for graph_field in fields(field.payload)? {
            let dropped = graph_field.number == GRAPH_INPUT
                && constants
                    .iter()
                    .any(|(name, _)| value_name(graph_field.payload) == Some(name.as_bytes()));
            if !dropped {
                graph.extend_from_slice(graph_field.raw);
            }
        }
        for (name, tensor) in constants {
            let tensor = encode_tensor(tensor, name).encode_to_vec();
            put_length_delimited(&mut graph, GRAPH_INITIALIZER, &tensor);
        }
        put_length_delimited(&mut out, MODEL_GRAPH, &graph);
    }
    Ok(out)
}

/// One field of a serialized message: its number, its bytes (key included) and, for a
/// length-delimited field, its payload.
struct Field<'a> {
    number: u32,
    raw: &'a [u8],
    payload: &'a [u8],
}

/// A serialized message that cannot be walked field by field.
#[derive(Debug, thiserror::Error)]
#[cfg_attr(not(feature = "cli"), allow(unreachable_pub))]
pub enum WireError {
    /// A key or length varint that does not decode.
    #[error("{0}")]
    Varint(#[from] prost::DecodeError),
    /// A field number or length beyond what fits.
    #[error("a field number or length out of range")]
    OutOfRange,
    /// Groups (wire types 3 and 4), or no wire type at all.
    #[error("wire type {0} is not supported")]
    WireType(u64),
    /// A field that claims more bytes than remain.
    #[error("a field runs past the end of the message")]
    PastEnd,
}

/// The fields of a serialized message, in order.
fn fields(mut bytes: &[u8]) -> Result<Vec<Field<'_>>, WireError> {
    let mut fields = Vec::new();
    while !bytes.is_empty() {
        let start = bytes;
        let key = varint(&mut bytes)?;
        let number = u32::try_from(key >> 3).map_err(|_| WireError::OutOfRange)?;
        let payload = match key & 7 {
            0 => {
                varint(&mut bytes)?;
                &[][..]
            }
            1 => take(&mut bytes, 8)?,
            2 => {
                let len = usize::try_from(varint(&mut bytes)?).map_err(|_| WireError::OutOfRange)?;
                take(&mut bytes, len)?
            }
            5 => take(&mut bytes, 4)?,
            other => return Err(WireError::WireType(other)),
        };
        let used = start.len() - bytes.len();
        fields.push(Field {
            number,
            raw: &start[..used],
            payload,
        });
    }
    Ok(fields)
}

/// A ValueInfoProto's name, from its serialized bytes.
fn value_name(value_info: &[u8]) -> Option<&[u8]> {
    fields(value_info)
        .ok()?
        .into_iter()
        .find(|f| f.number == VALUE_INFO_NAME)
        .map(|f| f.payload)
}

fn varint(bytes: &mut &[u8]) -> Result<u64, WireError> {
    Ok(prost::encoding::decode_varint(bytes)?)
}

fn take<'a>(bytes: &mut &'a [u8], len: usize) -> Result<&'a [u8], WireError> {
    if bytes.len() < len {
        return Err(WireError::PastEnd);
    }
    let (head, tail) = bytes.split_at(len);
    *bytes = tail;
    Ok(head)
}

fn put_length_delimited(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    prost::encoding::encode_key(number, prost::encoding::WireType::LengthDelimited, out);
    prost::encoding::encode_varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Backend, RefBackend};
    use crate::case::{Patterns, discover};

    #[test]
    fn a_folded_model_takes_the_data_alone_and_computes_the_same() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0");
        let patterns = Patterns::new(&["test_constant_pad_axes"]).unwrap();
        let cases = discover(&[root], &patterns).unwrap();
        let case = &cases[0];
        let options = case.decode_options(1 << 30);
        let model = case.load_model(&options).unwrap();
        let data = case.load_data_set(&case.data_sets[0], &options).unwrap();
        assert_eq!(model.graph.inputs.len(), 4, "x, pads, value, axes");
        let dir = crate::data::scratch_dir().unwrap();
        let (folded, inputs) = inputs_as_constants(&model, &data.inputs, dir.path(), &options).unwrap();
        assert_eq!(folded.graph.inputs, ["x"]);
        assert_eq!(inputs.len(), 1);
        let names: Vec<&str> = folded.graph.initializers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["pads", "value", "axes"]);
        assert_eq!(folded.graph.initializers[0].1, data.inputs[1]);
        // The file on disk is the same model, and the rest of it is untouched.
        let reread = Model::read(&dir.path().join("model.onnx"), &options).unwrap();
        assert_eq!(reread.graph.inputs, ["x"]);
        assert_eq!(reread.opset_imports, model.opset_imports);
        assert_eq!(
            RefBackend.run(&folded, &inputs).unwrap(),
            RefBackend.run(&model, &data.inputs).unwrap()
        );
    }

    #[test]
    fn named_inputs_alone_become_initializers_and_the_rest_stay_fed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0");
        let patterns = Patterns::new(&["test_constant_pad_axes"]).unwrap();
        let cases = discover(&[root], &patterns).unwrap();
        let case = &cases[0];
        let options = case.decode_options(1 << 30);
        let model = case.load_model(&options).unwrap();
        let data = case.load_data_set(&case.data_sets[0], &options).unwrap();
        let dir = crate::data::scratch_dir().unwrap();
        let names = ["pads".to_owned(), "axes".to_owned()];
        let (folded, inputs) = named_inputs_as_constants(&model, &data.inputs, &names, dir.path(), &options).unwrap();
        assert_eq!(folded.graph.inputs, ["x", "value"]);
        assert_eq!(inputs, [data.inputs[0].clone(), data.inputs[2].clone()]);
        let names: Vec<&str> = folded.graph.initializers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["pads", "axes"]);
        assert_eq!(
            RefBackend.run(&folded, &inputs).unwrap(),
            RefBackend.run(&model, &data.inputs).unwrap()
        );
    }

    #[test]
    fn a_truncated_model_is_an_error_not_a_panic() {
        let model = [0x3a, 0x05, 0x2a, 0x01];
        assert!(rewrite(&model, &[]).is_err());
        assert!(rewrite(&[0x3f], &[]).is_err());
    }
}
