//! What one trial found, as the harness keeps it: enough to judge it against a baseline,
//! record a baseline, and count lossy passes; and what an isolated child sends its parent.

use serde::{Deserialize, Serialize};

use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::{Failure, Verdict};

/// One data set's result in the harness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialResult {
    /// `onnx-1.22.0/node/test_wrap_pad/0`.
    pub name: String,
    /// What happened: the verdict's status.
    pub status: Status,
    /// The verdict (absent from a child of an older build).
    #[serde(default)]
    pub verdict: Option<Verdict>,
    /// Why it failed, errored or was skipped.
    pub message: String,
    /// Whether every output was bit-identical; `None` when no outputs were compared.
    pub bit_exact: Option<bool>,
    /// The largest absolute error over floating outputs.
    pub max_abs_error: Option<f64>,
    /// Whether its basis is one the run gates on (docs/semantics.md#basis).
    pub gates: bool,
}

impl TrialResult {
    /// The result of an outcome, with where the backend panicked, if it did.
    pub fn new(outcome: &Outcome, panic_location: Option<String>) -> TrialResult {
        let mut message = outcome.message.clone();
        if let Some(location) = panic_location
            && outcome.status == Status::Errored
        {
            message.push_str(&format!("\n  at {location}"));
        }
        TrialResult {
            name: outcome.name(),
            status: outcome.status,
            verdict: outcome.verdict.clone(),
            message,
            bit_exact: outcome.bit_exact,
            max_abs_error: outcome.max_abs_error,
            gates: outcome.gates,
        }
    }

    /// A data set the child process could not find or list: no backend is to blame.
    pub fn not_loadable(name: &str, message: String) -> TrialResult {
        TrialResult {
            verdict: Some(Verdict::NotLoadable {
                detail: message.clone(),
            }),
            ..TrialResult::failed(name, Failure::Runner, message)
        }
    }

    /// The result of a child process that failed (crashed, timed out, gave no result): the
    /// backend's failure, `message` saying how.
    pub fn failed(name: &str, failure: Failure, message: String) -> TrialResult {
        TrialResult {
            name: name.to_owned(),
            status: Status::Errored,
            verdict: Some(Verdict::Failed {
                failure,
                detail: message.clone(),
                must_refuse: false,
            }),
            message,
            bit_exact: None,
            max_abs_error: None,
            gates: true,
        }
    }

    /// Failed or errored on a basis the run does not gate on: reported, never a failure.
    pub fn is_non_gating_failure(&self) -> bool {
        !self.gates && matches!(self.status, Status::Failed | Status::Errored)
    }

    /// Passed, but not bit for bit: within tolerance.
    pub fn is_lossy_pass(&self) -> bool {
        self.status == Status::Passed && self.bit_exact == Some(false)
    }
}
