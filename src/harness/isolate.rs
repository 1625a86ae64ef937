//! Running each data set in a child process: the test binary itself, re-executed with the
//! trial's name in the environment, so that an abort, a stack overflow, a segfault in native
//! code or the OOM killer costs that one trial (errored, naming the signal) and the rest run.
//! catch_unwind covers panics only.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::trial_result::{TrialRef, failed, not_loadable};
use crate::judge::check::Outcome;
use crate::judge::verdict::{Failure, exit_failure};
use crate::platform::{Group, describe_crash, start_in_new_group};
use crate::text::strip_ansi;

/// Set in a child: the name of the one trial it runs.
const CHILD_TRIAL_ENV: &str = "PAD_CONFORMANCE_CHILD_TRIAL";
/// Set in a child: the directory of that trial's case, so the child lists that case alone
/// rather than discovering every case again.
const CHILD_CASE_ENV: &str = "PAD_CONFORMANCE_CHILD_CASE";
/// Set in a child: the index of the trial's data set among the case's.
const CHILD_DATA_SET_ENV: &str = "PAD_CONFORMANCE_CHILD_DATA_SET";
/// Set in a child: the file it writes its [`Outcome`] to, as JSON.
const CHILD_RESULT_ENV: &str = "PAD_CONFORMANCE_CHILD_RESULT";

/// The exit status of a child that could not find its case or data set: it says why on
/// stderr, and the trial is not loadable, not the backend's failure.
const NOT_FOUND_STATUS: i32 = 3;

/// How many lines of a crashed child's output an errored trial quotes.
const OUTPUT_LINES: usize = 20;

/// What a child process is asked to run, and where its result goes.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ChildRequest {
    /// The trial's name, which the result carries.
    pub name: String,
    /// The case directory.
    pub case_dir: PathBuf,
    /// The data set's index among the case's.
    pub data_set: usize,
    /// Where the result goes.
    pub result: PathBuf,
}

impl ChildRequest {
    /// In a child process: its request; `None` in any other process.
    pub(super) fn from_env() -> Option<ChildRequest> {
        Some(ChildRequest {
            name: std::env::var(CHILD_TRIAL_ENV).ok()?,
            case_dir: std::env::var_os(CHILD_CASE_ENV)?.into(),
            data_set: std::env::var(CHILD_DATA_SET_ENV).ok()?.parse().ok()?,
            result: std::env::var_os(CHILD_RESULT_ENV)?.into(),
        })
    }
}

/// In a child process: hands the result to the parent.
pub(super) fn write_result(path: &Path, result: &Outcome) -> std::io::Result<()> {
    std::fs::write(path, serde_json::to_vec(result).map_err(std::io::Error::other)?)
}

/// In a child process that cannot find its case or data set: says why and exits with
/// [`NOT_FOUND_STATUS`].
pub(super) fn not_found(why: &str) -> ! {
    eprintln!("{why}");
    std::process::exit(NOT_FOUND_STATUS)
}

/// Runs `trial` in a child process,
/// killing it (and its process group) after `time_limit`.
pub(super) fn run_in_child(trial: &TrialRef<'_>, time_limit: Duration) -> Outcome {
    // A child that did not take the child's path (its main does not end in Harness::run, or
    // the trials were run another way) would start children of its own, without end.
    if std::env::var_os(CHILD_TRIAL_ENV).is_some() {
        return failed(
            trial,
            Failure::Runner,
            "a child process started trials of its own: isolate() needs the test binary's main \
             to call Harness::run"
                .to_owned(),
        );
    }
    match spawn_and_wait(trial, time_limit) {
        Ok(result) => result,
        Err(e) => failed(
            trial,
            Failure::Runner,
            format!("could not run the trial in a child process: {e}"),
        ),
    }
}

fn spawn_and_wait(trial: &TrialRef<'_>, time_limit: Duration) -> std::io::Result<Outcome> {
    let dir = tempfile::tempdir()?;
    let result_path = dir.path().join("result.json");
    let output_path = dir.path().join("output");
    let output = File::create(&output_path)?;
    let mut command = Command::new(std::env::current_exe()?);
    command
        .env(CHILD_TRIAL_ENV, trial.case.data_set_name(trial.index))
        .env(CHILD_CASE_ENV, &trial.case.dir)
        .env(CHILD_DATA_SET_ENV, trial.index.to_string())
        .env(CHILD_RESULT_ENV, &result_path)
        .stdin(Stdio::null())
        .stdout(output.try_clone()?)
        .stderr(output);
    // Its own group, so a time-out kills whatever the backend started too.
    let mut child = start_in_new_group(&mut command).spawn()?;
    let group = match Group::of(&child) {
        Ok(group) => group,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() >= time_limit {
            // Killed before it is reaped, so the group id is still its own.
            group.kill();
            child.wait()?;
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let tail = output_tail(&output_path);
    let Some(status) = status else {
        return Ok(failed(
            trial,
            Failure::Timeout,
            format!(
                "timed out after {} s: the child process running it was killed{tail}",
                time_limit.as_secs_f64()
            ),
        ));
    };
    // The child's result is one data set's verdict and message: a few kilobytes.
    match crate::data::side_file::read_capped(&result_path, 16 << 20) {
        Ok(bytes) if status.success() => match serde_json::from_slice::<Outcome>(&bytes) {
            // The case and its basis as the parent knows them: listed alone, the case's id is
            // its directory's name, and its corpus (whose manifest gives the basis) unknown.
            Ok(outcome) => Ok(Outcome {
                id: trial.case.id.clone(),
                data_set: trial.case.data_number(trial.index),
                basis: trial.case.basis.clone(),
                gates: trial.gating.gates(trial.case.basis.kind),
                ..outcome
            }),
            Err(e) => Ok(failed(
                trial,
                Failure::Protocol,
                format!("the child process's result does not parse: {e}{tail}"),
            )),
        },
        Err(_) if status.code() == Some(NOT_FOUND_STATUS) => Ok(not_loadable(trial, tail.trim_start().to_owned())),
        _ => Ok(failed(
            trial,
            exit_failure(status),
            format!("the child process running it {}{tail}", describe(status)),
        )),
    }
}

/// "was killed by signal 6 (SIGABRT)", "exited with status 3 without a result".
fn describe(status: ExitStatus) -> String {
    match (describe_crash(status), status.code()) {
        (Some(crash), _) => crash,
        (None, Some(code)) => format!("exited with status {code} without a result"),
        (None, None) => format!("ended without a result ({status})"),
    }
}

/// The last `max` bytes of the file at `path`: a child that printed gigabytes costs no more.
fn read_tail(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let (mut file, len) = crate::data::side_file::open_regular(path, u64::MAX)?;
    file.seek(SeekFrom::Start(len.saturating_sub(max)))?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The last lines the child printed, escapes stripped, as a message's tail.
fn output_tail(path: &Path) -> String {
    let text = read_tail(path, 64 << 10).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let text = strip_ansi(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let shown = &lines[lines.len().saturating_sub(OUTPUT_LINES)..];
    format!("\n  its output:\n    {}", shown.join("\n    "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_signal_is_named() {
        use std::os::unix::process::ExitStatusExt;
        let aborted = ExitStatus::from_raw(libc::SIGABRT);
        assert_eq!(describe(aborted), "was killed by signal 6 (SIGABRT)");
        let exited = ExitStatus::from_raw(3 << 8);
        assert_eq!(describe(exited), "exited with status 3 without a result");
    }

    #[cfg(windows)]
    #[test]
    fn a_crash_is_named_by_its_status() {
        use std::os::windows::process::ExitStatusExt;
        let crashed = ExitStatus::from_raw(0xc000_0005);
        assert_eq!(describe(crashed), "crashed with 0xc0000005 (STATUS_ACCESS_VIOLATION)");
        let exited = ExitStatus::from_raw(3);
        assert_eq!(describe(exited), "exited with status 3 without a result");
    }
}
