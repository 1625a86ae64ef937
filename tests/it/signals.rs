//! The built binary under SIGINT and SIGTERM: every command stops on the first signal,
//! writes what finished (or says it wrote nothing) and exits 128 + the signal's number; a
//! second signal ends it at once. Each signal is sent once the command is where the test
//! needs it (a worker's mark, a progress line, a full pipe), never after a guessed delay.

use std::ffi::{CStr, OsStr};
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use crate::support;
use support::files::testdata;
use support::hanging_worker::{BEFORE_HELLO, IN_REQUEST, Mark, interrupt, signals_at_default, wait_until};

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pad-conformance"));
    signals_at_default(&mut command)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the binary with `args`; its workers make `mark`.
fn spawn(args: &[&str], mark: &Mark) -> Child {
    mark.pass_to(&mut command(args)).spawn().expect("the binary runs")
}

fn one_case() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    support::files::copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    dir
}

#[test]
fn a_fuzz_run_on_a_hanging_worker_stops_and_reports_the_cases_that_finished() {
    let mark = Mark::new();
    let child = spawn(
        &[
            "fuzz",
            "--backend",
            IN_REQUEST,
            "--jobs",
            "1",
            "--cases",
            "50",
            "--format",
            "json",
        ],
        &mark,
    );
    // The worker holds the first case.
    mark.wait();
    let (out, stderr) = interrupt(child, libc::SIGTERM);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("interrupted after 0 cases"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The case in flight was cut short by the signal: it is no finding of the backend's.
    assert_eq!(report["cases"], 0, "{report}");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(0), "{report}");
}

/// A pseudo-terminal: (the side this process reads, the side a child writes to). A command
/// whose standard error is a terminal shows its progress there.
fn terminal() -> (File, File) {
    // SAFETY: posix_openpt, grantpt, unlockpt and ptsname_r on the descriptor opened here,
    // which `File` then owns; the name buffer outlives the call that fills it.
    unsafe {
        let ours = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(ours >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let ours = File::from_raw_fd(ours);
        assert_eq!(libc::grantpt(ours.as_raw_fd()), 0);
        assert_eq!(libc::unlockpt(ours.as_raw_fd()), 0);
        let mut name = [0 as libc::c_char; 128];
        #[cfg(target_os = "linux")]
        assert_eq!(libc::ptsname_r(ours.as_raw_fd(), name.as_mut_ptr(), name.len()), 0);
        // macOS's libc has no ptsname_r binding; ptsname's static buffer is copied at once
        // (this test's only caller of it).
        #[cfg(not(target_os = "linux"))]
        {
            let shared = libc::ptsname(ours.as_raw_fd());
            assert!(!shared.is_null(), "ptsname: {}", std::io::Error::last_os_error());
            let bytes = CStr::from_ptr(shared).to_bytes_with_nul();
            assert!(bytes.len() <= name.len());
            std::ptr::copy_nonoverlapping(shared, name.as_mut_ptr(), bytes.len());
        }
        let theirs = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(OsStr::from_bytes(CStr::from_ptr(name.as_ptr()).to_bytes()))
            .unwrap();
        (ours, theirs)
    }
}

/// Whether `text`, a terminal's output, shows a progress line of at least one case.
fn shows_a_finished_case(text: &str) -> bool {
    text.split('\r').any(|line| {
        line.split_once(" cases, ")
            .and_then(|(cases, _)| cases.parse::<u64>().ok())
            .is_some_and(|cases| cases > 0)
    })
}

#[test]
fn a_fuzz_run_without_a_worker_stops_on_sigint() {
    let (ours, theirs) = terminal();
    let child = command(&["fuzz", "--cases", "100000000", "--jobs", "1", "--format", "json"])
        .stderr(theirs)
        .spawn()
        .expect("the binary runs");
    // What the command writes to the terminal, read as it comes; the reads end with an error
    // once the command, the last holder of the far side, has exited.
    let (chunks, received) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut ours = ours;
        let mut buffer = [0; 4096];
        while let Ok(n @ 1..) = ours.read(&mut buffer) {
            if chunks.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    // Interrupted once its progress line counts a finished case.
    let mut shown = Vec::new();
    wait_until("a progress line counting a case", || {
        shown.extend(received.try_iter().flatten());
        shows_a_finished_case(&String::from_utf8_lossy(&shown))
    });
    let (out, _) = interrupt(child, libc::SIGINT);
    reader.join().unwrap();
    shown.extend(received.try_iter().flatten());
    let stderr = String::from_utf8_lossy(&shown);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = report["cases"].as_u64().unwrap();
    assert!(cases > 0 && cases < 100_000_000, "{report}");
    assert!(stderr.contains(&format!("interrupted after {cases} cases")), "{stderr}");
}

#[test]
fn an_interrupted_matrix_writes_the_backends_that_finished() {
    let tree = one_case();
    let mark = Mark::new();
    let child = spawn(
        &[
            "matrix",
            "--backend",
            "ref",
            "--backend",
            IN_REQUEST,
            "--format",
            "json",
            tree.path().to_str().unwrap(),
        ],
        &mark,
    );
    // The backends run one after the other: ref has finished once the second holds a request.
    mark.wait();
    let (out, stderr) = interrupt(child, libc::SIGINT);
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
/// report could hold: the command says so and exits at once, its worker's scratch directory
/// removed.
#[test]
fn a_signal_outside_a_run_exits_at_once_saying_nothing_was_written() {
    let tree = one_case();
    let tmp = pad_conformance::testing::scratch_dir().unwrap();
    let mark = Mark::new();
    let child = mark
        .pass_to(
            command(&[
                "--backend",
                BEFORE_HELLO,
                "--timeout",
                "600",
                tree.path().to_str().unwrap(),
            ])
            .env("TMPDIR", tmp.path()),
        )
        .spawn()
        .expect("the binary runs");
    mark.wait();
    assert_eq!(entries(tmp.path()).len(), 1, "the worker's scratch directory is made");
    let (out, stderr) = interrupt(child, libc::SIGTERM);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("interrupted; no report written"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(entries(tmp.path()), Vec::<String>::new(), "scratch left behind");
}

/// `bench --scaling` writes a scratch corpus; a signal while it is written removes it.
#[test]
fn an_interrupted_scaling_bench_removes_its_scratch_corpus() {
    let tmp = pad_conformance::testing::scratch_dir().unwrap();
    let child = command(&[
        "bench",
        "--scaling",
        "--data-sets",
        "1000000",
        "--scratch",
        tmp.path().to_str().unwrap(),
    ])
    .spawn()
    .expect("the binary runs");
    wait_until("the scratch corpus to be written", || {
        entries(tmp.path())
            .first()
            .is_some_and(|d| std::fs::read_dir(tmp.path().join(d)).is_ok_and(|mut e| e.next().is_some()))
    });
    let (out, stderr) = interrupt(child, libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(entries(tmp.path()), Vec::<String>::new(), "scratch left behind");
}

/// The names in `dir`.
fn entries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// A run that cannot finish after the first signal (its report blocked on a full pipe no one
/// reads) dies of the second. Linux only: it shrinks the pipe (F_SETPIPE_SZ) and sees the
/// blocked write in /proc, which macOS has neither of.
#[cfg(target_os = "linux")]
#[test]
fn a_second_signal_ends_the_command_at_once() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::Duration;
    let mut child = command(&["--backend", "ref", "--jobs", "1"])
        .spawn()
        .expect("the binary runs");
    // The pipe shrunk to a page: the streamed report fills it at once, and the writer
    // blocks until it is read, which it never is.
    let stdout = child.stdout.as_ref().unwrap().as_raw_fd();
    // SAFETY: fcntl(2) on a pipe this process holds open.
    unsafe { libc::fcntl(stdout, libc::F_SETPIPE_SZ, 4096) };
    let pid = child.id();
    wait_until("the report to block on the full pipe", || writing_to_a_full_pipe(pid));
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

#[cfg(target_os = "linux")]
/// Whether a thread of process `pid` is blocked in write(2) to its standard output: the
/// system call, and its first argument, the kernel shows for a task that waits in one.
fn writing_to_a_full_pipe(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let blocked = format!("{} 0x1 ", libc::SYS_write);
    tasks
        .flatten()
        .any(|task| std::fs::read_to_string(task.path().join("syscall")).is_ok_and(|call| call.starts_with(&blocked)))
}
