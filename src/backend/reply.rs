//! A worker's reply to a `run` request, read and checked (docs/backend-protocol.md): the line
//! must be JSON, answer the request's id, and name output files that are regular files inside
//! the request's output directory, links resolved. A worker cannot pass by naming the data
//! set's own expected output, or any file it did not write.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ErrorKind;
use super::worker_error::WorkerError;
use crate::operators::Rule;
use crate::tensor::{DataType, MAX_RANK, dtype_from_name};

/// What a worker answered to a `run` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkerReply {
    /// `{"type": "result", "outputs": [...]}`: the output files, as the worker named them.
    Outputs(Vec<OutputFile>),
    /// `{"type": "result", "model": "..."}`, from a worker that accepted model replies: the
    /// rewritten model file, as the worker named it, for the runner's reference to evaluate.
    Model(PathBuf),
    /// `{"type": "error", "kind": ..., "message": ...}`: the worker refuses the model or its
    /// inputs, does not support them, or failed on them.
    Error {
        /// The reply's `kind`; [`ErrorKind::Refused`] when it has none.
        kind: ErrorKind,
        /// The reply's `message`.
        message: String,
        /// The refusal rule the reply names (its optional `rule`, a
        /// [`Rule`](crate::operators::Rule) id).
        rule: Option<Rule>,
        /// The backend's own error code (its optional `code`: an exception's type, a status
        /// name), which splits failure groups and never decides a verdict.
        code: Option<String>,
    },
}

/// An output file a worker's reply names: a path (a `TensorProto` file) or, from a worker
/// that accepted raw tensors, `{"path", "dtype", "shape"}` (docs/backend-protocol.md#raw-outputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// The path, as the worker named it.
    pub path: PathBuf,
    /// For a raw file, its declared element type and shape.
    pub raw: Option<(DataType, Vec<u64>)>,
}

impl OutputFile {
    /// A `TensorProto` file.
    pub fn proto(path: impl Into<PathBuf>) -> OutputFile {
        OutputFile {
            path: path.into(),
            raw: None,
        }
    }
}

/// Parses one line a worker printed as its reply to request `id`, raw outputs allowed. Anything else — not JSON,
/// another id, another type, outputs that are not strings, an error `kind` other than
/// `refused`, `unsupported` or `failed` — is a protocol error.
pub fn parse_reply(line: &str, id: u64) -> Result<WorkerReply, WorkerError> {
    let reply: Value = serde_json::from_str(line)
        .map_err(|e| WorkerError::Protocol(format!("the worker printed {:?}, not JSON ({e})", shortened(line))))?;
    check_reply(&reply, id, true, false)
}

/// The longest error `code` a worker may send: a type or status name, not a message.
const MAX_CODE_CHARS: usize = 100;

/// A code is a name: 1 to [`MAX_CODE_CHARS`] characters, none a control character.
fn valid_code(code: &str) -> bool {
    (1..=MAX_CODE_CHARS).contains(&code.chars().count()) && !code.chars().any(char::is_control)
}

/// Reads a parsed `result` or `error` reply for request `id`; `raw`: the worker accepted raw
/// tensors, so an output may be an object; `model`: it accepted model replies, so a result
/// names a model and no outputs.
pub(super) fn check_reply(reply: &Value, id: u64, raw: bool, model: bool) -> Result<WorkerReply, WorkerError> {
    let protocol = |what: &str| WorkerError::Protocol(format!("{what} in reply {}", shortened(&reply.to_string())));
    match reply.get("id").and_then(Value::as_u64) {
        Some(got) if got == id => {}
        Some(got) => return Err(protocol(&format!("a reply to request {got}, not to request {id}"))),
        None => return Err(protocol(&format!("expected id {id}"))),
    }
    match reply.get("type").and_then(Value::as_str) {
        Some("result") if model => match reply.get("model") {
            Some(path) => output_path(path).map(WorkerReply::Model).ok_or_else(|| {
                protocol(&format!(
                    "the model {} is not a non-empty string without NUL",
                    shortened(&path.to_string())
                ))
            }),
            None => Err(protocol("no model from a worker that accepted model replies")),
        },
        Some("result") if reply.get("model").is_some() => {
            Err(protocol("a model from a worker that did not accept model replies"))
        }
        Some("result") => {
            let outputs = reply
                .get("outputs")
                .and_then(Value::as_array)
                .ok_or_else(|| protocol("no outputs array"))?;
            outputs
                .iter()
                .map(|output| match output {
                    Value::Object(_) if raw => raw_output(output).map_err(|why| protocol(&why)),
                    Value::Object(_) => Err(protocol(
                        "an output object from a worker that did not accept raw tensors",
                    )),
                    _ => output_path(output)
                        .map(OutputFile::proto)
                        .ok_or_else(|| protocol(NOT_A_PATH)),
                })
                .collect::<Result<_, _>>()
                .map(WorkerReply::Outputs)
        }
        Some("error") => {
            // Absent, the reply is a refusal, as before the field existed. Present, it must
            // name a kind: anything else would be read as some kind the worker did not mean.
            let kind = match reply.get("kind") {
                None => ErrorKind::Refused,
                Some(value) => value.as_str().and_then(ErrorKind::from_name).ok_or_else(|| {
                    protocol(&format!(
                        "the error's kind {} is none of \"refused\", \"unsupported\", \"failed\"",
                        shortened(&value.to_string())
                    ))
                })?,
            };
            let ErrorFields { rule, code, message } = error_fields(reply).map_err(|why| protocol(&why))?;
            Ok(WorkerReply::Error {
                kind,
                message: message.unwrap_or_else(|| "(no message)".to_owned()),
                rule,
                code,
            })
        }
        _ => Err(protocol("type is neither \"result\" nor \"error\"")),
    }
}

const NOT_A_PATH: &str = "an output path is not a non-empty string without NUL";

/// An output path: a non-empty string without NUL.
fn output_path(path: &Value) -> Option<PathBuf> {
    path.as_str()
        .filter(|p| !p.is_empty() && !p.contains('\0'))
        .map(PathBuf::from)
}

/// A raw output's `{"path", "dtype", "shape"}`: a path as above, a dtype the raw layout names
/// and a shape of non-negative integers of at most 1024 extents; else a message naming the
/// field and the value. The file's size is checked against them when it is read.
fn raw_output(output: &Value) -> Result<OutputFile, String> {
    let path = output.get("path").unwrap_or(&Value::Null);
    let path = output_path(path).ok_or_else(|| format!("{NOT_A_PATH}: path {}", shortened(&path.to_string())))?;
    let raw = raw_descriptor(output).map_err(|why| format!("the output's {why}"))?;
    Ok(OutputFile { path, raw: Some(raw) })
}

/// The element type and shape of a raw tensor file, as its descriptor states them (an object
/// in a reply, or a per-case command's output_K.json): `{"dtype": "float32", "shape": [2, 3]}`.
/// The error names the field and its value.
pub(crate) fn raw_descriptor(descriptor: &Value) -> Result<(DataType, Vec<u64>), String> {
    let field = |key: &str| descriptor.get(key).unwrap_or(&Value::Null);
    let dtype = field("dtype");
    let data_type = dtype.as_str().and_then(dtype_from_name).ok_or_else(|| {
        format!(
            "dtype {} is not an element type's name (float32, int64, …)",
            shortened(&dtype.to_string())
        )
    })?;
    let shape = field("shape");
    let extents = shape
        .as_array()
        .filter(|extents| extents.len() <= MAX_RANK)
        .ok_or_else(|| {
            format!(
                "shape {} is not an array of at most {MAX_RANK} extents",
                shortened(&shape.to_string())
            )
        })?;
    let shape = extents
        .iter()
        .map(|extent| {
            extent.as_u64().ok_or_else(|| {
                format!(
                    "shape has extent {}, not a non-negative integer",
                    shortened(&extent.to_string())
                )
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((data_type, shape))
}

/// The optional fields an error states besides its kind, as an `error` reply or a per-case
/// command's error.json gives them.
#[derive(Debug)]
pub(super) struct ErrorFields {
    /// `rule`: a rule id (`pad-conformance rules`).
    pub(super) rule: Option<Rule>,
    /// `code`: the backend's own name for the error, never decisive.
    pub(super) code: Option<String>,
    /// `message`, when it is a string.
    pub(super) message: Option<String>,
}

/// Reads `rule`, `code` and `message` from an error; a `rule` or `code` present but not
/// valid is an error naming the field and its value.
pub(super) fn error_fields(error: &Value) -> Result<ErrorFields, String> {
    // Optional; present, it must be a rule id (`pad-conformance rules`).
    let rule = match error.get("rule") {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_str().and_then(Rule::from_id).ok_or_else(|| {
            format!(
                "the error's rule {} is not a rule id (see `pad-conformance rules`)",
                shortened(&value.to_string())
            )
        })?),
    };
    // Optional; present, a short string (a type or status name), never decisive.
    let code = match error.get("code") {
        None | Some(Value::Null) => None,
        Some(Value::String(code)) if valid_code(code) => Some(code.clone()),
        Some(value) => {
            return Err(format!(
                "the error's code {} is not a string of 1 to {MAX_CODE_CHARS} printable characters",
                shortened(&value.to_string())
            ));
        }
    };
    let message = error.get("message").and_then(Value::as_str).map(str::to_owned);
    Ok(ErrorFields { rule, code, message })
}

/// The output files a worker named, each resolved (relative to `dir`, links followed) and
/// required to be a regular file inside `dir`, the output directory's path as resolved when
/// the runner made it (so a directory the worker swapped for a link is not followed).
pub(super) fn resolve_outputs(paths: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>, WorkerError> {
    paths
        .iter()
        .map(|named| {
            let refuse = |why: String| WorkerError::OutputPath {
                path: named.clone(),
                why,
            };
            // A relative path is the output directory's, never the runner's working directory's.
            let resolved = dir
                .join(named)
                .canonicalize()
                .map_err(|e| refuse(format!("does not resolve ({e})")))?;
            if !resolved.starts_with(dir) || resolved == dir {
                return Err(refuse(format!(
                    "resolves to {}, outside the output directory {}",
                    resolved.display(),
                    dir.display()
                )));
            }
            match std::fs::metadata(&resolved) {
                Ok(m) if m.is_file() => Ok(resolved),
                Ok(_) => Err(refuse("is not a regular file".into())),
                Err(e) => Err(refuse(format!("cannot be read ({e})"))),
            }
        })
        .collect()
}

/// A line as a message shows it: at most 200 characters.
pub(super) fn shortened(line: &str) -> String {
    const SHOWN: usize = 200;
    match line.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}… ({} bytes)", &line[..end], line.len()),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_must_answer_their_own_request() {
        let line = r#"{"type": "result", "id": 3, "outputs": ["output_0.pb"]}"#;
        assert_eq!(
            parse_reply(line, 3).unwrap(),
            WorkerReply::Outputs(vec![OutputFile::proto("output_0.pb")])
        );
        let stray = parse_reply(line, 4).unwrap_err().to_string();
        assert!(stray.contains("a reply to request 3, not to request 4"), "{stray}");
        for bad in [
            "",
            "{",
            "[]",
            r#"{"id": 3}"#,
            r#"{"type": "result", "id": 3}"#,
            r#"{"type": "result", "id": 3, "outputs": [1]}"#,
            r#"{"type": "result", "id": 3, "outputs": [""]}"#,
            "{\"type\": \"result\", \"id\": 3, \"outputs\": [\"a\\u0000b\"]}",
            r#"{"type": "result", "id": -3, "outputs": []}"#,
        ] {
            assert!(matches!(parse_reply(bad, 3), Err(WorkerError::Protocol(_))), "{bad}");
        }
        let long = "x".repeat(100_000);
        let message = parse_reply(&long, 1).unwrap_err().to_string();
        assert!(message.len() < 400 && message.contains("(100000 bytes)"), "{message}");
    }

    #[test]
    fn a_model_reply_is_read_only_from_a_worker_that_accepted_it() {
        let check = |line: &str, model: bool| check_reply(&serde_json::from_str(line).unwrap(), 3, false, model);
        let named = r#"{"type": "result", "id": 3, "model": "optimized.onnx"}"#;
        assert_eq!(
            check(named, true).unwrap(),
            WorkerReply::Model(PathBuf::from("optimized.onnx"))
        );
        for (line, model, says) in [
            (named, false, "a model from a worker that did not accept model replies"),
            (
                r#"{"type": "result", "id": 3, "outputs": ["o.pb"]}"#,
                true,
                "no model from a worker that accepted model replies",
            ),
            (
                r#"{"type": "result", "id": 3, "model": 7}"#,
                true,
                "the model 7 is not a non-empty string",
            ),
            (
                r#"{"type": "result", "id": 3, "model": ""}"#,
                true,
                r#"the model "" is not"#,
            ),
        ] {
            let error = check(line, model).unwrap_err().to_string();
            assert!(error.contains(says), "{line}: {error}");
        }
    }

    #[test]
    fn a_raw_output_is_an_object_with_a_known_dtype_and_a_shape_of_extents() {
        let line = r#"{"type": "result", "id": 3, "outputs": [{"path": "o.bin", "dtype": "float32", "shape": [3, 0]}, "p.pb"]}"#;
        assert_eq!(
            parse_reply(line, 3).unwrap(),
            WorkerReply::Outputs(vec![
                OutputFile {
                    path: PathBuf::from("o.bin"),
                    raw: Some((DataType::Float, vec![3, 0]))
                },
                OutputFile::proto("p.pb"),
            ])
        );
        let refused = |output: &str, raw: bool| {
            let reply: Value =
                serde_json::from_str(&format!(r#"{{"type": "result", "id": 3, "outputs": [{output}]}}"#)).unwrap();
            check_reply(&reply, 3, raw, false).unwrap_err().to_string()
        };
        for (output, says) in [
            (
                r#"{"path": "o.bin", "dtype": "float128", "shape": [1]}"#,
                r#"dtype "float128" is not an element type"#,
            ),
            (r#"{"path": "o.bin", "dtype": 1, "shape": [1]}"#, "dtype 1 is not"),
            (r#"{"path": "o.bin", "shape": [1]}"#, "dtype null is not"),
            (
                r#"{"path": "o.bin", "dtype": "int8", "shape": [2, -1]}"#,
                "extent -1, not a non-negative integer",
            ),
            (
                r#"{"path": "o.bin", "dtype": "int8", "shape": [1e30]}"#,
                "extent 1e+30, not a non-negative integer",
            ),
            (
                r#"{"path": "o.bin", "dtype": "int8", "shape": 4}"#,
                "shape 4 is not an array",
            ),
            (r#"{"path": "", "dtype": "int8", "shape": []}"#, r#"path """#),
            (r#"{"dtype": "int8", "shape": []}"#, "path null"),
        ] {
            let message = refused(output, true);
            assert!(message.contains(says), "{output}: {message}");
        }
        let rank = format!(r#"{{"path": "o.bin", "dtype": "int8", "shape": {:?}}}"#, vec![1; 1025]);
        assert!(refused(&rank, true).contains("at most 1024 extents"));
        let message = refused(r#"{"path": "o.bin", "dtype": "int8", "shape": []}"#, false);
        assert!(message.contains("did not accept raw tensors"), "{message}");
    }

    #[test]
    fn an_error_replys_code_is_kept_when_it_is_a_name_and_a_protocol_error_otherwise() {
        let code = |line: &str| match parse_reply(line, 3) {
            Ok(WorkerReply::Error { code, .. }) => Ok(code),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(code(r#"{"type": "error", "id": 3, "message": "no"}"#), Ok(None));
        assert_eq!(code(r#"{"type": "error", "id": 3, "code": null}"#), Ok(None));
        assert_eq!(
            code(r#"{"type": "error", "id": 3, "kind": "failed", "code": "TypeError", "message": "no"}"#),
            Ok(Some("TypeError".to_owned()))
        );
        for bad in [r#""""#, "3", r#"["TypeError"]"#, r#""a\nb""#] {
            let line = format!(r#"{{"type": "error", "id": 3, "code": {bad}}}"#);
            let error = code(&line).unwrap_err();
            assert!(
                error.contains("the error's code") && error.contains("is not a string"),
                "{error}"
            );
        }
        let long = format!(r#"{{"type": "error", "id": 3, "code": "{}"}}"#, "x".repeat(101));
        assert!(code(&long).is_err());
    }

    #[test]
    fn an_error_reply_says_its_kind_and_is_a_refusal_without_one() {
        let error = |kind: ErrorKind, message: &str| WorkerReply::Error {
            kind,
            message: message.to_owned(),
            rule: None,
            code: None,
        };
        for (line, expected) in [
            (
                r#"{"type": "error", "id": 3, "message": "Pad-18 does not accept mode wrap"}"#,
                error(ErrorKind::Refused, "Pad-18 does not accept mode wrap"),
            ),
            (
                r#"{"type": "error", "id": 3, "kind": "refused", "message": "no"}"#,
                error(ErrorKind::Refused, "no"),
            ),
            (
                r#"{"type": "error", "id": 3, "kind": "unsupported", "message": "no float8"}"#,
                error(ErrorKind::Unsupported, "no float8"),
            ),
            (
                r#"{"type": "error", "id": 3, "kind": "failed", "message": "MemoryError"}"#,
                error(ErrorKind::Failed, "MemoryError"),
            ),
            (
                r#"{"type": "error", "id": 3, "kind": "failed"}"#,
                error(ErrorKind::Failed, "(no message)"),
            ),
        ] {
            assert_eq!(parse_reply(line, 3).unwrap(), expected, "{line}");
        }
        for (line, named) in [
            (
                r#"{"type": "error", "id": 3, "kind": "crashed"}"#,
                r#"kind "crashed" is none"#,
            ),
            (
                r#"{"type": "error", "id": 3, "kind": "Failed"}"#,
                r#"kind "Failed" is none"#,
            ),
            (r#"{"type": "error", "id": 3, "kind": ""}"#, r#"kind "" is none"#),
            (r#"{"type": "error", "id": 3, "kind": null}"#, "kind null is none"),
            (r#"{"type": "error", "id": 3, "kind": 2}"#, "kind 2 is none"),
            (
                r#"{"type": "error", "id": 3, "kind": ["failed"]}"#,
                r#"kind ["failed"] is none"#,
            ),
        ] {
            let message = match parse_reply(line, 3) {
                Err(e @ WorkerError::Protocol(_)) => e.to_string(),
                other => panic!("{line}: {other:?}"),
            };
            assert!(
                message.starts_with(&format!(
                    r#"protocol error: the error's {named} of "refused", "unsupported", "failed" in reply"#
                )),
                "{message}"
            );
        }
        let long = format!(r#"{{"type": "error", "id": 3, "kind": "{}"}}"#, "x".repeat(10_000));
        let message = parse_reply(&long, 3).unwrap_err().to_string();
        assert!(message.len() < 1000 && message.contains("(10002 bytes)"), "{message}");
    }

    #[cfg(unix)]
    #[test]
    fn outputs_must_be_regular_files_inside_the_output_dir() {
        let root = crate::data::scratch_dir().unwrap();
        let out = root.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("output_0.pb"), b"").unwrap();
        std::fs::write(root.path().join("expected.pb"), b"").unwrap();
        std::os::unix::fs::symlink(root.path().join("expected.pb"), out.join("link.pb")).unwrap();
        std::os::unix::fs::symlink("output_0.pb", out.join("inside.pb")).unwrap();
        std::fs::create_dir(out.join("sub")).unwrap();
        let out = out.canonicalize().unwrap();
        let ok = resolve_outputs(&[PathBuf::from("output_0.pb"), out.join("inside.pb")], &out).unwrap();
        let own = out.join("output_0.pb");
        assert_eq!(ok, [own.clone(), own]);
        for (named, why) in [
            (root.path().join("expected.pb"), "outside the output directory"),
            (PathBuf::from("link.pb"), "outside the output directory"),
            (PathBuf::from("../expected.pb"), "outside the output directory"),
            (PathBuf::from("."), "outside the output directory"),
            (PathBuf::from("sub"), "is not a regular file"),
            (PathBuf::from("missing.pb"), "does not resolve"),
        ] {
            let message = resolve_outputs(std::slice::from_ref(&named), &out)
                .unwrap_err()
                .to_string();
            assert!(message.contains(why), "{named:?}: {message}");
            assert!(message.contains(&named.display().to_string()), "{message}");
        }
        // The worker swaps its output directory for a link to where the expected output lies.
        std::fs::rename(&out, root.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(root.path(), &out).unwrap();
        let message = resolve_outputs(&[PathBuf::from("expected.pb")], &out)
            .unwrap_err()
            .to_string();
        assert!(message.contains("outside the output directory"), "{message}");
    }
}
