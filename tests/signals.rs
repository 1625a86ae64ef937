//! The built binary under SIGINT and SIGTERM: every command stops on the first signal,
//! writes what finished (or says it wrote nothing) and exits 128 + the signal's number; a
//! second signal ends it at once.

mod support;

use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use support::files::testdata;

/// A worker that completes the handshake, then never answers.
const HANG: &str =
    r#"exec:read hello; echo '{"type": "hello", "version": 1, "name": "hang"}'; read request; sleep 600"#;

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Sends `signal` to `child` once it has had `after` to get going, and waits for it.
fn interrupt(child: Child, after: Duration, signal: libc::c_int) -> (Output, String) {
    std::thread::sleep(after);
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

fn one_case() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::files::copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    dir
}

#[test]
fn a_fuzz_run_on_a_hanging_worker_stops_and_reports_the_cases_that_finished() {
    let child = spawn(&[
        "fuzz",
        "--backend",
        HANG,
        "--jobs",
        "1",
        "--cases",
        "50",
        "--format",
        "json",
    ]);
    let (out, stderr) = interrupt(child, Duration::from_millis(1500), libc::SIGTERM);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("interrupted after 0 cases"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The case in flight was cut short by the signal: it is no finding of the backend's.
    assert_eq!(report["cases"], 0, "{report}");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(0), "{report}");
}

#[test]
fn a_fuzz_run_without_a_worker_stops_on_sigint() {
    let child = spawn(&["fuzz", "--cases", "100000000", "--jobs", "1", "--format", "json"]);
    let (out, stderr) = interrupt(child, Duration::from_millis(1500), libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = report["cases"].as_u64().unwrap();
    assert!(cases > 0 && cases < 100_000_000, "{report}");
    assert!(stderr.contains(&format!("interrupted after {cases} cases")), "{stderr}");
}

#[test]
fn an_interrupted_matrix_writes_the_backends_that_finished() {
    let tree = one_case();
    let child = spawn(&[
        "matrix",
        "--backend",
        "ref",
        "--backend",
        HANG,
        "--format",
        "json",
        tree.path().to_str().unwrap(),
    ]);
    let (out, stderr) = interrupt(child, Duration::from_millis(1500), libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("hang's run discarded (0 of 1 data sets ran)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the table holds the 1 of 2 backends that finished"),
        "{stderr}"
    );
    let matrix: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let backends: Vec<&str> = matrix["backends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(backends, ["ref"], "{matrix}");
    assert_eq!(matrix["cases"][0]["results"][0]["status"], "passed", "{matrix}");
}

/// Outside a run — here a worker's handshake that never comes — nothing is half-done that a
/// report could hold: the command says so and exits at once.
#[test]
fn a_signal_outside_a_run_exits_at_once_saying_nothing_was_written() {
    let tree = one_case();
    let child = spawn(&[
        "--backend",
        "exec:sleep 600",
        "--timeout",
        "600",
        tree.path().to_str().unwrap(),
    ]);
    let (out, stderr) = interrupt(child, Duration::from_millis(500), libc::SIGTERM);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("interrupted; no report written"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// A run that cannot finish after the first signal (its report blocked on a full pipe no one
/// reads) dies of the second.
#[test]
fn a_second_signal_ends_the_command_at_once() {
    let mut child = spawn(&["--backend", "ref", "--jobs", "1"]);
    // The pipe shrunk to a page: the streamed report fills it at once, and the writer
    // blocks until it is read, which it never is.
    let stdout = child.stdout.as_ref().unwrap().as_raw_fd();
    // SAFETY: fcntl(2) on a pipe this process holds open.
    unsafe { libc::fcntl(stdout, libc::F_SETPIPE_SZ, 4096) };
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first signal waits for the report"
    );
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{stderr}");
}
