//! The backend a `--backend` value names: `ref`, `exec:COMMAND` for an external worker
//! (docs/backend-protocol.md), or `exec-per-case:COMMAND` (`exec-per-case-raw:COMMAND` for raw
//! tensor files) for a command run once per data set
//! (docs/backend-protocol.md#one-process-per-data-set-exec-per-case). A gate builds its backend itself; only the command line reads
//! it from a string.

use std::time::Duration;

use crate::backend::{Driven, ExecBackend, ExecPerCaseBackend, RUNTIME_VARIABLE, RefBackend, TensorFiles};
use crate::data::seconds::{MAX_SECONDS, bounded_seconds};

use super::fatal::Fatal;
use super::signals;

/// The backend `spec` names; an external worker is killed after `timeout` (from
/// [`worker_timeout`]) on one data set, may declare outputs of at most `max_tensor_bytes`, and
/// is stopped by the command's signal handler.
pub(super) fn backend_from_spec(
    spec: &str,
    timeout: Duration,
    max_tensor_bytes: u64,
) -> Result<Box<dyn Driven>, Fatal> {
    match spec.split_once(':') {
        _ if spec == "ref" => Ok(Box::new(RefBackend)),
        Some(("exec", command)) if !command.trim().is_empty() => Ok(Box::new(ExecBackend::start_cancelled_by(
            command,
            timeout,
            max_tensor_bytes,
            signals::cancel(),
        )?)),
        Some((scheme @ ("exec-per-case" | "exec-per-case-raw"), command)) if !command.trim().is_empty() => {
            let tensors = if scheme == "exec-per-case-raw" {
                TensorFiles::Raw
            } else {
                TensorFiles::TensorProto
            };
            // Read once here: the command has no hello to state its runtime.
            let runtime = std::env::var(RUNTIME_VARIABLE).ok();
            Ok(Box::new(ExecPerCaseBackend::new(
                command,
                tensors,
                runtime.as_deref(),
                timeout,
                max_tensor_bytes,
                signals::cancel(),
            )?))
        }
        _ => Err(Fatal(format!(
            "unknown backend {spec:?}; use ref, exec:COMMAND, exec-per-case:COMMAND or exec-per-case-raw:COMMAND"
        ))),
    }
}

/// `--timeout`: a positive number of seconds, at most [`MAX_SECONDS`].
pub(super) fn worker_timeout(seconds: f64) -> Result<Duration, Fatal> {
    positive_seconds("--timeout", seconds)
}

/// An option's positive number of seconds, at most [`MAX_SECONDS`] (a deadline from now must
/// not overflow).
pub(super) fn positive_seconds(option: &str, seconds: f64) -> Result<Duration, Fatal> {
    match bounded_seconds(seconds) {
        Ok(duration) if seconds > 0.0 => Ok(duration),
        _ if seconds > MAX_SECONDS => Err(Fatal(format!(
            "{option} {seconds} is over the bound of {MAX_SECONDS} seconds (30 days)"
        ))),
        _ => Err(Fatal(format!("{option} {seconds} is not a positive number of seconds"))),
    }
}
