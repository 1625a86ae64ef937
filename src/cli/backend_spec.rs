//! The backend a `--backend` value names: `ref`, `exec:COMMAND` for an external worker
//! (docs/backend-protocol.md), or `exec-per-case:COMMAND` (`exec-per-case-raw:COMMAND` for raw
//! tensor files) for a command run once per data set
//! (docs/backend-protocol.md#one-process-per-data-set-exec-per-case). A gate builds its backend itself; only the command line reads
//! it from a string.

use std::path::PathBuf;
use std::time::Duration;

use crate::backend::{
    Driven, ExecBackend, ExecPerCaseBackend, KEEP_RUNS_VARIABLE, Language, RUNTIME_VARIABLE, RefBackend, TensorFiles,
};
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
    backend_and_language(spec, timeout, max_tensor_bytes).map(|(backend, _)| backend)
}

/// [`backend_from_spec`], with how the backend's author speaks, as the spec and a worker's
/// hello say it.
pub(super) fn backend_and_language(
    spec: &str,
    timeout: Duration,
    max_tensor_bytes: u64,
) -> Result<(Box<dyn Driven>, Language), Fatal> {
    match spec.split_once(':') {
        _ if spec == "ref" => Ok((Box::new(RefBackend), Language::Rust)),
        Some(("exec", command)) if !command.trim().is_empty() => {
            let worker = ExecBackend::start_cancelled_by(command, timeout, max_tensor_bytes, signals::cancel())?;
            let language = worker.language();
            Ok((Box::new(worker), language))
        }
        Some((scheme @ ("exec-per-case" | "exec-per-case-raw"), command)) if !command.trim().is_empty() => {
            let tensors = if scheme == "exec-per-case-raw" {
                TensorFiles::Raw
            } else {
                TensorFiles::TensorProto
            };
            // Read once here: the command has no hello to state its runtime.
            let runtime = std::env::var(RUNTIME_VARIABLE).ok();
            let keep_runs = std::env::var_os(KEEP_RUNS_VARIABLE).filter(|dir| !dir.is_empty());
            let backend = ExecPerCaseBackend::new(
                command,
                tensors,
                runtime.as_deref(),
                timeout,
                max_tensor_bytes,
                signals::cancel(),
            )?
            .keeping_runs(keep_runs.map(PathBuf::from))?;
            Ok((Box::new(backend), Language::PerCaseCommand))
        }
        _ => Err(Fatal(format!(
            "unknown backend {spec:?}; use ref, exec:COMMAND, exec-per-case:COMMAND or exec-per-case-raw:COMMAND"
        ))),
    }
}

/// The directory a per-case command's rerun keeps its runs in, unless the run named one.
const KEPT_RUNS: &str = "pad-conformance-runs";
/// The longest runtime a rerun line repeats.
const MAX_RERUN_RUNTIME: usize = 256;

/// What a failure's `rerun:` line sets in front of `pad-conformance` for backend `spec`: for a
/// per-case command, its runs kept ([`KEEP_RUNS_VARIABLE`]: each run's files, and the script
/// that runs the command again with every variable it was given) and the runtime the run was
/// told ([`RUNTIME_VARIABLE`]), when it fits a line; nothing for another backend.
pub(super) fn rerun_environment(spec: &str) -> Vec<(String, String)> {
    if !spec.starts_with("exec-per-case:") && !spec.starts_with("exec-per-case-raw:") {
        return Vec::new();
    }
    let kept = std::env::var(KEEP_RUNS_VARIABLE).ok().filter(|dir| !dir.is_empty());
    let mut environment = vec![(
        KEEP_RUNS_VARIABLE.to_owned(),
        kept.unwrap_or_else(|| KEPT_RUNS.to_owned()),
    )];
    if let Ok(runtime) = std::env::var(RUNTIME_VARIABLE)
        && runtime.len() <= MAX_RERUN_RUNTIME
    {
        environment.push((RUNTIME_VARIABLE.to_owned(), runtime));
    }
    environment
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
