//! The second oracle a promoted finding is checked by: ONNX's reference evaluator
//! (onnx.reference.ReferenceEvaluator) through scripts/backends/onnx-reference-worker, run with
//! the Python interpreter PAD_CONFORMANCE_PYTHON names, or any worker `--oracle` names. Its
//! verdict on a finding, judged as a run judges a backend, either confirms the expected result,
//! contradicts it, or cannot tell.

use std::path::{Path, PathBuf};

use crate::data::bundled::{self, BundleError};
use crate::judge::check::Outcome;
use crate::judge::verdict::Verdict;
use crate::text::escape_line;
use serde::{Deserialize, Serialize};

use crate::cli::scoreboard::shell_quote;

/// The environment variable naming the Python that runs the worker.
pub(super) const PYTHON_ENV: &str = "PAD_CONFORMANCE_PYTHON";

/// The worker script (with the module it imports), bundled with the corpus and unpacked with it
/// into the cache: the binary needs no checkout.
pub(super) fn onnx_reference_worker() -> Result<PathBuf, BundleError> {
    bundled::unpacked_file("scripts/backends/onnx-reference-worker")
}

/// The `exec:` backend that runs ONNX's reference evaluator, the script `worker`, with `python`.
pub(super) fn onnx_reference_spec(python: &Path, worker: &Path) -> String {
    format!(
        "exec:{} {}",
        shell_quote(&python.to_string_lossy()),
        shell_quote(&worker.to_string_lossy())
    )
}

/// What the second oracle says of a finding's expected result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Confirmation {
    /// It computes the same outputs, or refuses what must be refused.
    Confirmed,
    /// It cannot tell (there is none, or it refuses, fails on or does not support the case,
    /// or answers one the reference refuses — ONNX's evaluator checks no element type, mode
    /// or axes): the expected result rests on the reference alone.
    ReferenceOnly(String),
    /// It computes other outputs: the finding is not promoted.
    Contradicted(String),
}

/// How a promoted case's sidecar records its oracles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum OracleStatus {
    /// The reference and a second oracle agree.
    Confirmed,
    /// The reference alone.
    ReferenceOnly,
}

impl Confirmation {
    /// The verdict of the second oracle `oracle`, judged on the finding as a run judges a
    /// backend.
    pub(super) fn of(outcome: &Outcome, oracle: &str) -> Confirmation {
        let said = || escape_line(outcome.message().lines().next().unwrap_or_default()).into_owned();
        match outcome.verdict() {
            Some(
                Verdict::Passed { .. } | Verdict::RefusedAsRequired { .. } | Verdict::RefusedForAnotherReason { .. },
            ) => Confirmation::Confirmed,
            Some(Verdict::Mismatch { .. } | Verdict::Unstable { .. }) => Confirmation::Contradicted(said()),
            Some(Verdict::AcceptedMustRefuse { .. }) => {
                Confirmation::ReferenceOnly(format!("{oracle} answers the case, which it does not check"))
            }
            Some(Verdict::RefusedValid { .. }) => {
                Confirmation::ReferenceOnly(format!("{oracle} refuses the case: {}", said()))
            }
            // A refusal its twin does not verify says nothing of the rule.
            Some(Verdict::RefusalNotVerified { .. }) => {
                Confirmation::ReferenceOnly(format!("{oracle}'s refusal is not verified: {}", said()))
            }
            Some(Verdict::Failed { .. }) => Confirmation::ReferenceOnly(format!("{oracle} failed: {}", said())),
            Some(Verdict::Unsupported { .. }) => {
                Confirmation::ReferenceOnly(format!("{oracle} does not support the case: {}", said()))
            }
            Some(Verdict::NotLoadable { .. } | Verdict::NotApplicable { .. }) | None => {
                Confirmation::ReferenceOnly(format!("{oracle} could not judge the case: {}", said()))
            }
        }
    }

    /// The status a promoted case records.
    pub(super) fn status(&self) -> OracleStatus {
        match self {
            Confirmation::Confirmed => OracleStatus::Confirmed,
            _ => OracleStatus::ReferenceOnly,
        }
    }
}
