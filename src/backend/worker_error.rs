//! What can go wrong with an external worker, as values: the worker's own error reply (a
//! refusal, unless its `kind` says otherwise) is kept apart from its failures (a crash, a
//! timeout, a protocol error), which are never a refusal
//! (docs/semantics.md#what-counts-as-a-refusal). How each failed ([`Failure`]) is decided
//! here, once, so that no one above knows the worker's list of failures.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitStatus;

use super::error::{BackendError, ErrorKind, Says};
use super::failure::{Failure, exit_failure};
use super::stderr::Stderr;
use super::wrong_output::WrongOutput;
use crate::platform::Overrun;
use crate::tensor::{FileError, GroupError, Tensor};

/// Why a worker gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The command could not be started.
    #[error("starting: {0}")]
    Start(#[source] std::io::Error),
    /// The handshake failed.
    #[error("handshake: {0}")]
    Handshake(#[source] Box<WorkerError>),
    /// The handshake reply was not a hello of this protocol version.
    #[error("handshake: expected a hello with version {version}, got {reply}")]
    BadHello {
        /// The version this runner speaks.
        version: u64,
        /// The reply the worker sent.
        reply: String,
    },
    /// No reply within the time limit, read on the backend's run clock.
    #[error("{0}")]
    TimedOut(Overrun),
    /// The worker exited in the middle of a request.
    #[error("worker exited ({0})")]
    Exited(ExitStatus),
    /// The worker closed its input or output without exiting, and was killed.
    #[error("worker {0} without exiting; killed")]
    Closed(String),
    /// The run was cancelled while the request was in flight (or before a worker started);
    /// the worker was killed.
    #[error("cancelled; worker killed")]
    Cancelled,
    /// The worker was already shut down.
    #[error("worker already shut down")]
    ShutDown,
    /// A reply that breaks the protocol (docs/backend-protocol.md).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The model's path could not be resolved for the request.
    #[error("{}: {source}", crate::text::shown_path(path))]
    ModelPath {
        /// model.onnx.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The request's scratch directory could not be made.
    #[error("{}: {source}", crate::text::shown_path(path))]
    Scratch {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A request file could not be made.
    #[error("{0}")]
    Request(#[source] Box<FileError>),
    /// An output path that is not a regular file inside the request's output directory.
    #[error("protocol error: output {path:?} {why}")]
    OutputPath {
        /// The path as the worker named it.
        path: PathBuf,
        /// Where it leads instead, or what it is.
        why: String,
    },
    /// More output files than the graph has outputs.
    #[error("protocol error: {named} outputs named, but the graph has {expected}")]
    TooManyOutputs {
        /// How many the worker named.
        named: usize,
        /// The graph's outputs.
        expected: usize,
    },
    /// A line the worker printed with no request waiting for it (a duplicate or stray reply).
    #[error("protocol error: a reply nothing asked for: {0}")]
    StrayReply(String),
    /// An output file the worker named could not be read.
    #[error("worker output: {0}")]
    Output(#[source] Box<FileError>),
    /// The model a model reply named could not be read or decoded.
    #[error("the rewritten model: {0}")]
    RewrittenModel(#[source] Box<crate::model::ReadError>),
    /// The reference refuses the model a model reply named, or it takes an input the data
    /// set has not: the optimizer broke the model.
    #[error("{optimizer}: the optimized model is invalid: {why}")]
    InvalidRewrite {
        /// The optimizer: the worker's runtime, or its name.
        optimizer: String,
        /// Why: what the reference says of it.
        why: String,
    },
}

impl WorkerError {
    /// How the worker failed.
    pub(crate) fn failure(&self) -> Failure {
        match self {
            WorkerError::TimedOut(_) => Failure::Timeout,
            WorkerError::Exited(status) => exit_failure(*status),
            WorkerError::Closed(_) => Failure::Crash {
                code: None,
                signal: None,
            },
            WorkerError::Protocol(_)
            | WorkerError::OutputPath { .. }
            | WorkerError::TooManyOutputs { .. }
            | WorkerError::StrayReply(_)
            | WorkerError::Output(_)
            | WorkerError::RewrittenModel(_)
            | WorkerError::BadHello { .. }
            | WorkerError::Handshake(_) => Failure::Protocol,
            WorkerError::InvalidRewrite { .. } => Failure::InvalidRewrite,
            WorkerError::Start(_)
            | WorkerError::ShutDown
            | WorkerError::Cancelled
            | WorkerError::ModelPath { .. }
            | WorkerError::Scratch { .. }
            | WorkerError::Request(_) => Failure::Runner,
        }
    }
}

/// A worker's failure, with what it printed on stderr meanwhile.
#[derive(Debug)]
pub struct WorkerFailure {
    /// What went wrong.
    pub error: WorkerError,
    /// What the worker (or the per-case command) printed on stderr meanwhile, its first and
    /// last lines.
    pub stderr: Stderr,
}

impl fmt::Display for WorkerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.error, self.stderr)
    }
}

impl std::error::Error for WorkerFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<WorkerError> for WorkerFailure {
    fn from(error: WorkerError) -> WorkerFailure {
        WorkerFailure {
            error,
            stderr: Stderr::default(),
        }
    }
}

/// Why the output files a worker named are not its answer.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// They cannot be read: a failure of the worker.
    Failed(WorkerError),
    /// They were read, and one holds an impossible value.
    Wrong(Box<WrongOutput>),
}

impl From<WorkerError> for Unanswered {
    fn from(error: WorkerError) -> Unanswered {
        Unanswered::Failed(error)
    }
}

/// The outputs a group of output files read to, for a graph whose outputs are `names`: an
/// impossible value in a file otherwise well formed is a wrong output, judged as one; any
/// other error is the worker's failure ([`WorkerError::Output`]), a malformed file.
pub(crate) fn outputs_read(
    read: Result<Vec<Tensor>, GroupError>,
    names: &[String],
    answered: usize,
) -> Result<Vec<Tensor>, Unanswered> {
    read.map_err(|GroupError { file, error }| match error.impossible_value() {
        Some(value) => Unanswered::Wrong(Box::new(WrongOutput {
            index: file,
            name: names.get(file).cloned().unwrap_or_default(),
            answered,
            value,
        })),
        None => Unanswered::Failed(WorkerError::Output(Box::new(error))),
    })
}

/// What the exec backends report for a data set they could not answer with outputs; it
/// becomes the [`BackendError`] the judge reads.
#[derive(Debug)]
pub(crate) enum ExecError {
    /// The worker's own error reply: it refuses the model or inputs, or, as the reply's
    /// `kind` says, does not support them or failed on them.
    Refused {
        /// The reply's `kind`: [`ErrorKind::Refused`] when it gave none.
        kind: ErrorKind,
        /// The reply's message.
        message: String,
        /// The refusal rule the reply names, if any.
        rule: Option<crate::operators::Rule>,
        /// The reply's `code`: the backend's own name for the error, if it gave one.
        code: Option<String>,
        /// The worker's stderr meanwhile.
        stderr: Stderr,
    },
    /// The worker failed: crashed, hung, broke the protocol, or named unreadable outputs.
    Failed(WorkerFailure),
    /// The worker's outputs hold a value their element type cannot have.
    WrongOutput(Box<WrongOutput>),
}

impl ExecError {
    /// Why the outputs were no answer, with what the worker printed on stderr meanwhile.
    pub(crate) fn unanswered(unanswered: Unanswered, stderr: Stderr) -> ExecError {
        match unanswered {
            Unanswered::Failed(error) => ExecError::Failed(WorkerFailure { error, stderr }),
            Unanswered::Wrong(wrong) => ExecError::WrongOutput(wrong),
        }
    }
}

impl From<ExecError> for BackendError {
    fn from(error: ExecError) -> BackendError {
        match error {
            ExecError::Refused {
                kind,
                message,
                rule,
                code,
                stderr,
            } => {
                let says = match kind {
                    ErrorKind::Refused => Says::Refused {
                        rules: rule.into_iter().collect(),
                    },
                    ErrorKind::Unsupported => Says::Unsupported,
                    ErrorKind::Failed => Says::Failed(Failure::Reported),
                };
                BackendError::new(says, format!("{message}{stderr}")).coded(code)
            }
            ExecError::Failed(failure) => BackendError::new(Says::Failed(failure.error.failure()), failure.to_string()),
            ExecError::WrongOutput(wrong) => {
                let message = wrong.to_string();
                BackendError::new(Says::WrongOutput(wrong), message)
            }
        }
    }
}

impl<E: Into<WorkerFailure>> From<E> for ExecError {
    fn from(failure: E) -> ExecError {
        ExecError::Failed(failure.into())
    }
}
