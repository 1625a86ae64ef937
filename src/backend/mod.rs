//! Backends: what runs a model. The trait is small — a name and one `run` method — and the
//! verification stays outside it, in [`crate::check`].

mod exec;
mod reference;
mod reply;
mod serve;
mod worker_error;
mod worker_groups;

use crate::model::Model;
use crate::tensor::Tensor;

pub use exec::{ExecBackend, PROTOCOL_VERSION, StartError};
pub use reference::RefBackend;
pub use reply::{WorkerReply, parse_reply, resolve_outputs};
pub use serve::{ServeError, Worker};
pub use worker_error::{ExecError, WorkerError, WorkerFailure};
pub use worker_groups::kill_worker_groups;

/// Any error a backend reports; its message ends up in the case's outcome.
///
/// An error counts as the backend's refusal of the model or inputs — what a data set that
/// must be refused expects — unless it is a [`BackendFailure`] (or the exec backend's
/// [`ExecError::Failed`]): a failure is never a refusal (docs/semantics.md#what-counts-as-a-refusal).
pub type BackendError = Box<dyn std::error::Error + Send + Sync>;

/// A backend's own failure, as opposed to its refusal: an internal error, a lost device, a
/// crashed helper. Return it (boxed) so that a data set that must be refused is errored, not
/// passed.
///
/// ```
/// use pad_conformance::backend::{BackendError, BackendFailure, is_failure};
/// let failure: BackendError = Box::new(BackendFailure("the GPU went away".into()));
/// let refusal: BackendError = "mode wrap is not implemented".into();
/// assert!(is_failure(&failure) && !is_failure(&refusal));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BackendFailure(pub String);

/// Whether `error` is a failure (never a refusal): a [`BackendFailure`] or an exec worker's
/// crash, timeout or protocol error.
pub fn is_failure(error: &BackendError) -> bool {
    error.downcast_ref::<BackendFailure>().is_some()
        || matches!(error.downcast_ref::<ExecError>(), Some(ExecError::Failed(_)))
}

/// Something that evaluates ONNX models.
///
/// A backend gets the loaded model (with `model.path` pointing at model.onnx, for backends
/// that read the file themselves) and the inputs in the order of the graph's inputs, and
/// returns the graph's outputs in order, or an error when it refuses or fails.
///
/// ```
/// use pad_conformance::backend::{Backend, BackendError};
/// use pad_conformance::model::Model;
/// use pad_conformance::Tensor;
///
/// /// A backend that returns its inputs unchanged (and so fails most cases).
/// struct Echo;
///
/// impl Backend for Echo {
///     fn name(&self) -> &str {
///         "echo"
///     }
///     fn run(&self, _model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
///         Ok(inputs.first().cloned().into_iter().collect())
///     }
/// }
/// ```
pub trait Backend: Send + Sync {
    /// A short name for reports: `ref`, `onnxruntime`, …
    fn name(&self) -> &str;
    /// Runs `model` on `inputs`.
    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError>;

    /// Whether the backend reads the file at `model.path` rather than only the loaded
    /// model: the fuzzer writes each generated model to disk only for backends that do.
    fn reads_model_file(&self) -> bool {
        true
    }
}

/// What external backends need to know.
#[derive(Clone, Copy, Debug)]
pub struct BackendOptions {
    /// How long one data set may take before the worker is killed.
    pub timeout: std::time::Duration,
    /// The largest tensor a worker's output file may declare.
    pub max_tensor_bytes: u64,
}

/// The backend a `--backend` value names: `ref`, or `exec:COMMAND` for an external worker
/// (docs/backend-protocol.md).
pub fn backend_from_spec(spec: &str, options: &BackendOptions) -> Result<Box<dyn Backend>, SpecError> {
    match spec.split_once(':') {
        _ if spec == "ref" => Ok(Box::new(RefBackend)),
        Some(("exec", command)) if !command.trim().is_empty() => Ok(Box::new(ExecBackend::start(
            command,
            options.timeout,
            options.max_tensor_bytes,
        )?)),
        _ => Err(SpecError::Unknown(spec.to_owned())),
    }
}

/// A `--backend` value that names no backend that can run.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// Neither `ref` nor `exec:COMMAND`.
    #[error("unknown backend {0:?}; use ref or exec:COMMAND")]
    Unknown(String),
    /// The worker does not start.
    #[error(transparent)]
    Worker(#[from] StartError),
}
