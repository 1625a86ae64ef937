//! The worker side of the external backend protocol (docs/backend-protocol.md): any Rust
//! [`Backend`] served on standard input and output, so that the CLI's `matrix`, scoreboard,
//! `diff` and `fuzz` can run it as `exec:COMMAND` beside other backends. A gate's test binary
//! can be its own worker: `main` serves when given the argument `worker`, and runs the
//! harness otherwise.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;

use super::{Backend, BackendError, BackendFailure, PROTOCOL_VERSION};
use crate::data::parse_error::ParseError;
use crate::model::Model;
use crate::model::constant_inputs::inputs_as_constants;
use crate::tensor::{DecodeOptions, read_tensor_file, write_tensor_file};

/// A backend served as an external worker.
///
/// ```no_run
/// use pad_conformance::{RefBackend, Worker};
/// use pad_conformance::Harness;
///
/// fn main() {
///     if std::env::args().nth(1).as_deref() == Some("worker") {
///         // pad-conformance matrix --backend ref --backend "exec:/path/to/this-binary worker"
///         if let Err(e) = Worker::new(RefBackend).serve() {
///             eprintln!("{e}");
///             std::process::exit(3);
///         }
///         return;
///     }
///     Harness::new(RefBackend).isolate().run();
/// }
/// ```
pub struct Worker<B> {
    backend: B,
    inputs_as_constants: bool,
}

/// Why a worker stopped before its input closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Reading a request or writing a reply failed.
    #[error("worker i/o: {0}")]
    Io(#[from] io::Error),
    /// A request that is not JSON of the protocol.
    #[error("worker: not a request of the protocol: {line:?}: {source}")]
    Request {
        /// The line read.
        line: String,
        /// What is wrong with it.
        #[source]
        source: ParseError,
    },
}

#[derive(Deserialize)]
struct Request {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: serde_json::Value,
    #[serde(default)]
    model: PathBuf,
    #[serde(default)]
    inputs: Vec<PathBuf>,
    #[serde(default)]
    output_dir: PathBuf,
}

impl<B: Backend> Worker<B> {
    /// A worker for `backend`.
    pub fn new(backend: B) -> Worker<B> {
        Worker {
            backend,
            inputs_as_constants: false,
        }
    }

    /// Hands the backend models whose inputs after the data are constants, as
    /// [`Harness::inputs_as_constants`](crate::harness::Harness::inputs_as_constants) does:
    /// the runner's options apply to every backend of a matrix, so a backend that needs
    /// constants asks for them here.
    pub fn inputs_as_constants(mut self) -> Worker<B> {
        self.inputs_as_constants = true;
        self
    }

    /// Serves requests from standard input until it closes. The backend's error is an `error`
    /// reply of its [`kind`](super::ErrorKind), so a
    /// [`BackendFailure`] — or a file of the request that cannot be read or written — is
    /// `failed`, never a refusal. A panic of the backend ends the process, which the runner
    /// reports as that data set's error.
    pub fn serve(&self) -> Result<(), ServeError> {
        self.serve_on(io::stdin().lock(), io::stdout().lock())
    }

    /// Serves the requests of `input`, replying on `output`.
    pub fn serve_on(&self, input: impl BufRead, mut output: impl Write) -> Result<(), ServeError> {
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let request: Request = serde_json::from_str(&line).map_err(|source| ServeError::Request {
                line: line.clone(),
                source: ParseError::json(source),
            })?;
            let reply = if request.kind == "hello" {
                // "rust": the runner's advice to this backend's author names BackendUnsupported.
                let mut hello = json!({
                    "type": "hello", "version": PROTOCOL_VERSION, "name": self.backend.name(), "language": "rust",
                });
                if let Some(runtime) = self.backend.runtime() {
                    hello["runtime"] = json!(runtime);
                }
                hello
            } else {
                match self.run(&request) {
                    Ok(outputs) => json!({"type": "result", "id": request.id, "outputs": outputs}),
                    Err(error) => {
                        let mut reply = json!({
                            "type": "error", "id": request.id, "kind": error.kind().name(),
                            "message": error.to_string(),
                        });
                        if let Some(rule) = error.rule() {
                            reply["rule"] = rule.id().into();
                        }
                        if let Some(code) = error.code() {
                            reply["code"] = code.into();
                        }
                        reply
                    }
                }
            };
            writeln!(output, "{reply}")?;
            output.flush()?;
        }
        Ok(())
    }

    /// Runs one request; the output files' paths, or the backend's error. Files that cannot
    /// be read or written are failures, not refusals.
    fn run(&self, request: &Request) -> Result<Vec<PathBuf>, BackendError> {
        let failure = |e: &dyn std::fmt::Display| -> BackendError { BackendFailure(e.to_string()).into() };
        let options = DecodeOptions {
            base_dir: request.model.parent().map(Path::to_owned),
            ..DecodeOptions::default()
        };
        let model = Model::read(&request.model, &options).map_err(|e| failure(&e))?;
        let inputs = request
            .inputs
            .iter()
            .map(|path| read_tensor_file(path, &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| failure(&e))?;
        let outputs = if self.inputs_as_constants && inputs.len() > 1 {
            let scratch = tempfile::tempdir().map_err(|e| failure(&e))?;
            let (model, data) =
                inputs_as_constants(&model, &inputs, scratch.path(), &options).map_err(|e| failure(&e))?;
            self.backend.run(&model, &data)?
        } else {
            self.backend.run(&model, &inputs)?
        };
        outputs
            .iter()
            .enumerate()
            .map(|(index, tensor)| {
                let path = request.output_dir.join(format!("output_{index}.pb"));
                let name = model.graph.outputs.get(index).map_or("", String::as_str);
                write_tensor_file(&path, tensor, name).map_err(|e| failure(&e))?;
                Ok(path)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{BackendUnsupported, ErrorKind, RefBackend};
    use crate::tensor::Tensor;

    fn wrap_pad() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0/node/test_wrap_pad")
    }

    fn request(id: u32, output_dir: &Path) -> String {
        let case = wrap_pad();
        json!({
            "type": "run", "id": id, "model": case.join("model.onnx"),
            "inputs": [case.join("test_data_set_0/input_0.pb"), case.join("test_data_set_0/input_1.pb")],
            "output_dir": output_dir,
        })
        .to_string()
    }

    fn exchange(worker: &Worker<impl Backend>, lines: &[String]) -> (Result<(), ServeError>, Vec<serde_json::Value>) {
        let mut out = Vec::new();
        let result = worker.serve_on(lines.join("\n").as_bytes(), &mut out);
        let replies = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (result, replies)
    }

    #[test]
    fn answers_the_handshake_and_writes_the_outputs() {
        let dir = crate::data::scratch_dir().unwrap();
        let hello = r#"{"type": "hello", "protocol": "pad-conformance-backend", "version": 1}"#.to_owned();
        let (result, replies) = exchange(&Worker::new(RefBackend), &[hello, request(7, dir.path())]);
        result.unwrap();
        let runtime = json!({"name": "pad-conformance reference", "version": env!("CARGO_PKG_VERSION")});
        assert_eq!(
            replies[0],
            json!({"type": "hello", "version": 1, "name": "ref", "language": "rust", "runtime": runtime})
        );
        let output = dir.path().join("output_0.pb");
        assert_eq!(replies[1], json!({"type": "result", "id": 7, "outputs": [output]}));
        let expected = read_tensor_file(
            &wrap_pad().join("test_data_set_0/output_0.pb"),
            &DecodeOptions::default(),
        );
        assert_eq!(
            read_tensor_file(&output, &DecodeOptions::default()).unwrap(),
            expected.unwrap()
        );
    }

    /// Refuses every model whose pads are not a constant; fails, or calls it unsupported, on
    /// request.
    struct Picky(Option<ErrorKind>);

    impl Backend for Picky {
        fn name(&self) -> &str {
            "picky"
        }
        fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
            match self.0 {
                Some(ErrorKind::Failed) => return Err(BackendFailure("lost the device".into()).into()),
                Some(ErrorKind::Unsupported) => return Err(BackendUnsupported("no wrap here".into()).into()),
                Some(ErrorKind::Refused) | None => {}
            }
            if inputs.len() > 1 {
                return Err("pads must be a constant".into());
            }
            RefBackend.run(model, inputs)
        }
    }

    #[test]
    fn refusals_are_error_replies_and_constant_inputs_are_made_on_request() {
        let dir = crate::data::scratch_dir().unwrap();
        let (result, replies) = exchange(&Worker::new(Picky(None)), &[request(1, dir.path())]);
        result.unwrap();
        assert_eq!(
            replies[0],
            json!({"type": "error", "id": 1, "kind": "refused", "message": "pads must be a constant"})
        );
        let (result, replies) = exchange(
            &Worker::new(Picky(None)).inputs_as_constants(),
            &[request(2, dir.path())],
        );
        result.unwrap();
        assert_eq!(replies[0]["type"], "result");
    }

    #[test]
    fn failures_and_unsupported_are_error_replies_of_their_kind_and_the_worker_carries_on() {
        let dir = crate::data::scratch_dir().unwrap();
        let (result, replies) = exchange(
            &Worker::new(Picky(Some(ErrorKind::Failed))),
            &[request(3, dir.path()), request(4, dir.path())],
        );
        result.unwrap();
        assert_eq!(
            replies,
            [
                json!({"type": "error", "id": 3, "kind": "failed", "message": "lost the device"}),
                json!({"type": "error", "id": 4, "kind": "failed", "message": "lost the device"}),
            ]
        );
        let (result, replies) = exchange(
            &Worker::new(Picky(Some(ErrorKind::Unsupported))),
            &[request(5, dir.path())],
        );
        result.unwrap();
        assert_eq!(
            replies,
            [json!({"type": "error", "id": 5, "kind": "unsupported", "message": "no wrap here"})]
        );
    }

    #[test]
    fn files_that_cannot_be_read_are_failures_not_refusals() {
        let dir = crate::data::scratch_dir().unwrap();
        let missing = dir.path().join("missing.onnx");
        let line = json!({
            "type": "run", "id": 6, "model": missing, "inputs": [], "output_dir": dir.path(),
        });
        let (result, replies) = exchange(&Worker::new(RefBackend), &[line.to_string()]);
        result.unwrap();
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["kind"], "failed", "{}", replies[0]);
        let message = replies[0]["message"].as_str().unwrap();
        assert!(message.contains("missing.onnx"), "{message}");
    }
}
