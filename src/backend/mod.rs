//! Backends: what runs a model. The trait is small — a name and one `run` method — and the
//! verification stays outside it, in [`crate::judge::check`].

mod accepts;
mod detached;
mod driven;
mod error;
mod exec;
mod exec_per_case;
mod failure;
mod language;
mod node_description;
mod process;
mod reference;
mod reply;
mod request;
mod runtime;
mod serve;
mod stderr;
mod worker_error;
mod worker_groups;
mod wrong_output;

use std::fmt;

use crate::model::Model;
use crate::operators::Rule;
use crate::tensor::Tensor;

pub(crate) use detached::{After, end_detached};
pub use driven::Driven;
pub(crate) use driven::Gate;
pub(crate) use error::Says;
pub use error::{BackendError, ErrorKind};
// For the Unix signal handler: on Windows the jobs' handles close with the process, ending all.
#[cfg(unix)]
pub(crate) use detached::kill_detached;
pub use exec::ExecBackend;
pub(crate) use exec::PROTOCOL_VERSION;
pub(crate) use exec_per_case::{ExecPerCaseBackend, KEEP_RUNS_VARIABLE, RUNTIME_VARIABLE, TensorFiles};
pub use failure::Failure;
pub(crate) use failure::exit_failure;
pub(crate) use language::Language;
pub(crate) use node_description::NodeValues;
pub use reference::RefBackend;
// The reply parser alone: for the fuzz target that feeds it hostile lines.
pub use reply::{OutputFile, WorkerReply, parse_reply};
pub use runtime::RuntimeInfo;
pub use serve::{ServeError, Worker};
pub(crate) use stderr::Writer;
pub use worker_groups::kill_worker_groups;
// For the judge's tests, which make the answer a worker's reading makes.
#[cfg(test)]
pub(crate) use wrong_output::WrongOutput;

/// A backend's own failure, as opposed to its refusal: an internal error, a lost device, a
/// crashed helper. Return it (`.into()`, or `?`) so that a data set that must be refused is
/// errored, not passed ([`ErrorKind::Failed`]).
///
/// ```
/// use pad_conformance::{BackendError, BackendFailure, ErrorKind};
/// let failure: BackendError = BackendFailure("the GPU went away".into()).into();
/// let refusal: BackendError = "mode wrap is not allowed before Pad-19".into();
/// assert_eq!(failure.kind(), ErrorKind::Failed);
/// assert_eq!(refusal.kind(), ErrorKind::Refused);
/// ```
///
/// It is no `std::error::Error`: boxed as one, it would lose what it says.
#[derive(Debug)]
pub struct BackendFailure(pub String);

/// The backend does not support what the data set asks — an element type, a mode, an opset —
/// though the model may well be valid: return it (`.into()`, or `?`) to have the data set
/// reported unsupported, never passed nor failed ([`ErrorKind::Unsupported`]).
///
/// ```
/// use pad_conformance::{BackendError, BackendUnsupported, ErrorKind};
/// let unsupported: BackendError = BackendUnsupported("float8 is not implemented".into()).into();
/// assert_eq!(unsupported.kind(), ErrorKind::Unsupported);
/// ```
#[derive(Debug)]
pub struct BackendUnsupported(pub String);

impl fmt::Display for BackendFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for BackendUnsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<BackendFailure> for BackendError {
    fn from(failure: BackendFailure) -> BackendError {
        BackendError::new(Says::Failed(Failure::Reported), failure.0)
    }
}

impl From<BackendUnsupported> for BackendError {
    fn from(unsupported: BackendUnsupported) -> BackendError {
        BackendError::new(Says::Unsupported, unsupported.0)
    }
}

/// A refusal that names the rule it refuses by ([`Rule`], docs/semantics.md#refusal-rules):
/// return it (`.into()`, or `?`) so that a data set whose rule is known can be compared with it.
///
/// ```
/// use pad_conformance::{BackendError, ErrorKind, Refusal, Rule};
/// let refusal: BackendError = Refusal::new(Rule::ModeNotInVersion, "no wrap").into();
/// assert_eq!((refusal.kind(), refusal.rule()), (ErrorKind::Refused, Some(Rule::ModeNotInVersion)));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Refusal {
    /// The rule.
    pub rule: Rule,
    /// What the backend says.
    pub message: String,
}

impl Refusal {
    /// A refusal of the data set by `rule`, with the backend's own words.
    pub fn new(rule: Rule, message: impl Into<String>) -> Refusal {
        Refusal {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<Refusal> for BackendError {
    fn from(refusal: Refusal) -> BackendError {
        BackendError::new(
            Says::Refused {
                rules: vec![refusal.rule],
            },
            refusal.message,
        )
    }
}

/// A backend's error with the backend's own code for it — an exception's type, a status name
/// — so that reports can tell apart failures that share a verdict (failure groups split by
/// it). The code never decides a verdict: the kind and rule are the wrapped error's.
///
/// ```
/// use pad_conformance::{BackendError, BackendFailure, CodedError, ErrorKind};
/// let error: BackendError = CodedError::new("EPFail", BackendFailure("lost the device".into())).into();
/// assert_eq!(error.kind(), ErrorKind::Failed);
/// assert_eq!(error.code(), Some("EPFail"));
/// assert_eq!(error.to_string(), "lost the device");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct CodedError {
    /// The backend's name for the error.
    pub code: String,
    /// The error itself: it says its kind.
    pub error: BackendError,
}

impl CodedError {
    /// `error`, coded `code` by the backend.
    pub fn new(code: impl Into<String>, error: impl Into<BackendError>) -> CodedError {
        CodedError {
            code: code.into(),
            error: error.into(),
        }
    }
}

impl fmt::Display for CodedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl From<CodedError> for BackendError {
    fn from(coded: CodedError) -> BackendError {
        coded.error.coded(Some(coded.code))
    }
}

/// Something that evaluates ONNX models.
///
/// A backend gets the loaded model (with `model.path` pointing at model.onnx, for backends
/// that read the file themselves) and the inputs in the order of the graph's inputs, and
/// returns the graph's outputs in order, or an error when it refuses or fails.
///
/// ```
/// use pad_conformance::{Backend, BackendError};
/// use pad_conformance::Model;
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

    /// The runtime behind the backend — name, version, build — as data apart from
    /// [`name`](Backend::name), for reports, the matrix and the scoreboard; `None` (the
    /// default) when the backend does not say.
    fn runtime(&self) -> Option<RuntimeInfo> {
        None
    }
}

/// A boxed (`Box<dyn Backend>`), shared (`Arc<B>`, one runtime serving several harnesses or
/// threads) or borrowed backend is a backend, and a driven one driven alike.
macro_rules! forward_backend {
    ($($pointer:ty),*) => {$(
        impl<B: Backend + ?Sized> Backend for $pointer {
            fn name(&self) -> &str {
                (**self).name()
            }
            fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
                (**self).run(model, inputs)
            }
            fn runtime(&self) -> Option<RuntimeInfo> {
                (**self).runtime()
            }
        }
        impl<B: Driven + ?Sized> Driven for $pointer {
            fn reads_model_file(&self) -> bool {
                (**self).reads_model_file()
            }
            fn answers_with_rewritten_model(&self) -> bool {
                (**self).answers_with_rewritten_model()
            }
        }
    )*};
}

forward_backend!(Box<B>, std::sync::Arc<B>, &B);
