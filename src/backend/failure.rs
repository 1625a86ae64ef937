//! How a backend failed ([`Failure`]): decided where the failure is seen — a worker's error,
//! a panic caught, a process's exit — and carried typed to the judge's verdict.

use serde::{Deserialize, Serialize};

/// How a backend failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Failure {
    /// A Rust backend panicked.
    Panic,
    /// The process running it died: an exit status, or a signal.
    Crash {
        /// Its exit code, when it exited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<i32>,
        /// The signal that killed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<i32>,
    },
    /// No answer within the time limit.
    Timeout,
    /// A worker broke the protocol (a bad reply, outputs not its own, unreadable outputs).
    Protocol,
    /// The backend reported a failure of its own (`kind: failed`, a `BackendFailure`).
    Reported,
    /// The runner could not hand the data set over (a worker that does not start, a scratch
    /// directory that cannot be made): not the backend's defect.
    Runner,
    /// A graph optimizer's rewritten model that the reference refuses: the optimizer broke
    /// the model (docs/backend-protocol.md#model-replies).
    InvalidRewrite,
}

/// A process's exit, as a crash.
pub(crate) fn exit_failure(status: std::process::ExitStatus) -> Failure {
    Failure::Crash {
        code: status.code(),
        signal: crate::platform::exit_signal(status),
    }
}
