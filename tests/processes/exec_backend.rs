//! The external worker protocol end to end, through the built binary: a worker written in
//! Rust (this test binary, re-executed with the argument `--serve-worker`: exec_backend/worker.rs)
//! that answers right, answers wrong, refuses, hangs, crashes or prints garbage; baselines;
//! the matrix's JSON; and human lines streamed as data sets finish. Every run checks that the
//! worker processes, and whatever they started, are gone when it ends.
//!
//! main.rs runs this binary as the worker when [`serve_if_asked`] says so, so no other binary
//! or language is needed.

mod node_worker;
mod worker;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::support::files::{copy_case_alone, copy_dir};

/// Serves as the worker, and exits, when the first argument asks for it.
pub fn serve_if_asked() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some(worker::ARG) => worker::serve(),
        Some(worker::BACKEND_ARG) => worker::serve_backend(args.get(2).map_or("", String::as_str)),
        _ => return,
    }
    std::process::exit(0);
}

pub const TESTS: &[(&str, fn())] = &[
    (
        "a_right_worker_passes_and_names_itself",
        a_right_worker_passes_and_names_itself,
    ),
    (
        "a_wrong_answer_fails_and_a_refusal_errors",
        a_wrong_answer_fails_and_a_refusal_errors,
    ),
    (
        "the_kind_of_an_error_reply_decides_its_verdict",
        the_kind_of_an_error_reply_decides_its_verdict,
    ),
    (
        "each_refusal_carries_the_stderr_of_its_own_request",
        each_refusal_carries_the_stderr_of_its_own_request,
    ),
    (
        "a_rust_backend_gets_the_same_verdict_in_process_and_through_worker",
        a_rust_backend_gets_the_same_verdict_in_process_and_through_worker,
    ),
    (
        "misbehaving_workers_cost_one_case_each",
        misbehaving_workers_cost_one_case_each,
    ),
    (
        "a_timed_out_worker_takes_its_shell_and_children_with_it",
        a_timed_out_worker_takes_its_shell_and_children_with_it,
    ),
    (
        "a_worker_that_closes_its_output_is_reported_as_closed",
        a_worker_that_closes_its_output_is_reported_as_closed,
    ),
    (
        "a_worker_that_exits_is_reported_as_exited_even_if_its_child_holds_its_output",
        a_worker_that_exits_is_reported_as_exited_even_if_its_child_holds_its_output,
    ),
    // Sends SIGINT: Windows has no signal one process sends another (Ctrl-C goes to a console).
    #[cfg(unix)]
    (
        "an_interrupted_run_takes_its_workers_with_it",
        an_interrupted_run_takes_its_workers_with_it,
    ),
    // Only Linux has a subreaper: elsewhere a process that left its session is out of reach.
    #[cfg(target_os = "linux")]
    (
        "what_a_worker_detached_with_setsid_ends_with_the_run",
        what_a_worker_detached_with_setsid_ends_with_the_run,
    ),
    #[cfg(target_os = "linux")]
    (
        "an_interrupted_run_takes_what_its_workers_detached_with_it",
        an_interrupted_run_takes_what_its_workers_detached_with_it,
    ),
    (
        "a_command_that_is_not_a_worker_is_an_infrastructure_error",
        a_command_that_is_not_a_worker_is_an_infrastructure_error,
    ),
    ("baselines_gate_on_regressions_only", baselines_gate_on_regressions_only),
    ("matrix_json_parses_back", matrix_json_parses_back),
    (
        "a_worker_states_its_runtime_as_data_apart_from_its_name",
        a_worker_states_its_runtime_as_data_apart_from_its_name,
    ),
    (
        "human_lines_appear_as_data_sets_finish",
        human_lines_appear_as_data_sets_finish,
    ),
    (
        "a_worker_that_reads_only_the_node_and_raw_tensors_passes",
        a_worker_that_reads_only_the_node_and_raw_tensors_passes,
    ),
    (
        "an_optimizer_s_model_is_evaluated_by_the_reference_and_judged",
        an_optimizer_s_model_is_evaluated_by_the_reference_and_judged,
    ),
    (
        "an_output_of_a_bool_byte_of_2_fails_as_a_wrong_answer_not_a_protocol_break",
        an_output_of_a_bool_byte_of_2_fails_as_a_wrong_answer_not_a_protocol_break,
    ),
    (
        "a_hello_that_accepts_what_was_not_offered_is_refused_at_the_handshake",
        a_hello_that_accepts_what_was_not_offered_is_refused_at_the_handshake,
    ),
];

/// `exec:` and the command that runs this binary as a worker: plain words, so the runner
/// starts it directly, with no shell in between.
fn worker_backend() -> String {
    format!("exec:{} {}", std::env::current_exe().unwrap().display(), worker::ARG)
}

pub(crate) struct Fixture {
    pub(crate) dir: tempfile::TempDir,
}

impl Fixture {
    /// Two vendored cases, test_edge_pad and test_wrap_pad, and the worker script.
    pub(crate) fn new() -> Fixture {
        let dir = pad_conformance::testing::scratch_dir().unwrap();
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0/node");
        for case in ["test_edge_pad", "test_wrap_pad"] {
            copy_dir(&data.join(case), &dir.path().join("cases").join(case));
        }
        Fixture { dir }
    }

    /// The two cases of [`Fixture::new`], and the must-refuse case [`MUST_REFUSE`] between them
    /// (without its twin).
    pub(crate) fn with_must_refuse() -> Fixture {
        let fixture = Fixture::new();
        let case = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("onnx-testdata/extended")
            .join(MUST_REFUSE);
        copy_case_alone(&case, &fixture.cases().join(MUST_REFUSE));
        fixture
    }

    fn cases(&self) -> PathBuf {
        self.dir.path().join("cases")
    }

    fn backend(&self) -> String {
        worker_backend()
    }

    /// The worker run through a shell that stays between the runner and it, and records
    /// its own pid too.
    fn backend_through_shell(&self) -> String {
        format!(
            "exec:cd {} && echo $$ >> \"$WORKER_PIDS\" && {} {}; true",
            self.dir.path().display(),
            std::env::current_exe().unwrap().display(),
            worker::ARG
        )
    }

    /// The worker behind a shell that first starts a helper in a session of its own
    /// (`setsid`), out of reach of the worker's process group, and records the helper's pid.
    #[cfg(target_os = "linux")]
    fn backend_detaching_a_helper(&self) -> String {
        format!(
            "exec:setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! >> \"$WORKER_PIDS\"; exec {} {}",
            std::env::current_exe().unwrap().display(),
            worker::ARG
        )
    }

    /// Runs the binary, then checks that every process the workers recorded is gone.
    pub(crate) fn run(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        let pids = self.dir.path().join("pids");
        let _ = std::fs::remove_file(&pids);
        let mut command = Command::new(env!("CARGO_BIN_EXE_pad-conformance"));
        command
            .env("NO_COLOR", "1")
            .env("WORKER_PIDS", &pids)
            .env_remove("WORKER_MODE");
        for (k, v) in env {
            command.env(k, v);
        }
        let output = command.args(args).output().unwrap();
        let recorded = std::fs::read_to_string(&pids).unwrap_or_default();
        for pid in recorded.lines() {
            assert_gone(pid.parse().unwrap(), args);
        }
        output
    }

    /// Runs both cases through the worker (one thread, the command line's default timeout of
    /// 60 s: the worker answers in milliseconds on an idle machine and in seconds on a busy
    /// one); returns the exit code and the JSON report. A test of a hang runs the hanging case
    /// alone with a short timeout ([`HANG_TIMEOUT`]), so that no case meant to finish has it.
    fn check(&self, env: &[(&str, &str)], extra: &[&str]) -> (Option<i32>, serde_json::Value) {
        self.check_with(&self.backend(), "60", env, extra)
    }

    pub(crate) fn check_with(
        &self,
        backend: &str,
        timeout: &str,
        env: &[(&str, &str)],
        extra: &[&str],
    ) -> (Option<i32>, serde_json::Value) {
        let cases = self.cases();
        let mut args = vec![
            "--backend",
            backend,
            "--jobs",
            "1",
            "--timeout",
            timeout,
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        args.push(cases.to_str().unwrap());
        let out = self.run(env, &args);
        let json = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code(), json)
    }
}

/// Waits for process `pid` to be gone (or a zombie, if nothing reaps it here), polling: a
/// minute without that fails, a bound no busy machine reaches.
fn assert_gone(pid: u32, args: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = process_state(pid);
        if state.is_none() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "process {pid} (state {state:?}) outlived the run {args:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The state of process `pid` (its /proc state letter on Linux), or `None` when it is gone or
/// a zombie.
#[cfg(target_os = "linux")]
pub(crate) fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The state follows the parenthesized command name, which may itself hold spaces.
    let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
    (!matches!(state, 'Z' | 'X')).then_some(state)
}

/// Whether process `pid` exists (macOS and the other Unixes have no /proc): kill(2) with no
/// signal says. A zombie counts as alive here, so the test is stricter, not looser.
#[cfg(all(unix, not(target_os = "linux")))]
fn process_state(pid: u32) -> Option<char> {
    // SAFETY: kill(2) with signal 0 sends nothing; it only checks the process exists.
    let alive = unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    alive.then_some('?')
}

/// Whether process `pid` is still running: its handle, if it can be opened, not yet signalled.
#[cfg(windows)]
fn process_state(pid: u32) -> Option<char> {
    use windows_sys::Win32::Foundation::{CloseHandle, WAIT_TIMEOUT};
    use windows_sys::Win32::System::Threading::{OpenProcess, PROCESS_SYNCHRONIZE, WaitForSingleObject};
    // SAFETY: OpenProcess returns a handle or null; the handle is waited on without blocking
    // and closed.
    unsafe {
        let handle = OpenProcess(PROCESS_SYNCHRONIZE, 0, pid);
        if handle.is_null() {
            return None;
        }
        let running = WaitForSingleObject(handle, 0) == WAIT_TIMEOUT;
        CloseHandle(handle);
        running.then_some('R')
    }
}

pub(crate) fn case<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap()
}

fn a_right_worker_passes_and_names_itself() {
    let fixture = Fixture::new();
    let (code, report) = fixture.check(&[], &[]);
    assert_eq!(code, Some(0));
    assert_eq!(report["backend"], "test-worker");
    assert_eq!(report["summary"]["passed"], 2);
}

fn a_wrong_answer_fails_and_a_refusal_errors() {
    let fixture = Fixture::new();
    let (code, report) = fixture.check(
        &[
            ("WORKER_MODE_test_edge_pad", "wrong"),
            ("WORKER_MODE_test_wrap_pad", "refuse"),
        ],
        &[],
    );
    assert_eq!(code, Some(1));
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "failed");
    assert!(edge["message"].as_str().unwrap().contains("shape differs"), "{edge}");
    let wrap = case(&report, "test_wrap_pad");
    assert_eq!(wrap["status"], "errored");
    assert!(
        wrap["message"].as_str().unwrap().contains("no kernel for this"),
        "{wrap}"
    );
}

/// A case of the extended corpus whose one data set must be refused (Pad-18, mode wrap).
pub(crate) const MUST_REFUSE: &str = "test_ext_pad18_err_mode_wrap";

/// An `error` reply without `kind`, or of kind `refused`, passes a data set that must be
/// refused; `failed` errors it; `unsupported` makes it unsupported, on any data set; a kind
/// of no meaning is a protocol error, which costs that case only.
fn the_kind_of_an_error_reply_decides_its_verdict() {
    let fixture = Fixture::with_must_refuse();
    let mode_of_must_refuse = format!("WORKER_MODE_{MUST_REFUSE}");
    for (mode, code, status, message) in [
        ("refuse", 0, "passed", "refused as expected: no kernel for this"),
        ("refuse-refused", 0, "passed", "refused as expected: no kernel for this"),
        (
            "refuse-failed",
            1,
            "errored",
            "backend test-worker failed (it reported an internal failure, kind failed), which is not a refusal: no kernel for this",
        ),
        (
            "refuse-unsupported",
            0,
            "unsupported",
            "backend test-worker says unsupported (kind unsupported): no kernel for this",
        ),
        (
            "refuse-crashed",
            1,
            "errored",
            "backend test-worker broke the worker protocol, which is not a refusal: protocol error: the error's kind \"crashed\" is none of \"refused\", \"unsupported\", \"failed\" in reply",
        ),
    ] {
        let (got, report) = fixture.check(&[(mode_of_must_refuse.as_str(), mode)], &[]);
        assert_eq!(got, Some(code), "{mode}: {report}");
        let refused = case(&report, MUST_REFUSE);
        assert_eq!(refused["status"], status, "{mode}: {refused}");
        let got = refused["message"].as_str().unwrap();
        assert!(got.starts_with(message), "{mode}: {got}");
        // The worker carries on (or, after the protocol error, a new one starts).
        assert_eq!(case(&report, "test_edge_pad")["status"], "passed", "{mode}: {report}");
        assert_eq!(case(&report, "test_wrap_pad")["status"], "passed", "{mode}: {report}");
        let unsupported = usize::from(status == "unsupported");
        assert_eq!(report["summary"]["unsupported"], unsupported, "{mode}: {report}");
        assert_eq!(
            report["summary"]["passed"],
            3 - usize::from(status != "passed"),
            "{mode}"
        );
    }
    // On a data set with outputs: unsupported is unsupported; a failure or refusal errors.
    for (mode, status, message) in [
        (
            "refuse-unsupported",
            "unsupported",
            "backend test-worker says unsupported (kind unsupported): no kernel for this",
        ),
        (
            "refuse-failed",
            "errored",
            "backend test-worker failed (it reported an internal failure, kind failed): no kernel for this",
        ),
        (
            "refuse",
            "errored",
            "backend test-worker refused a valid input (kind refused): no kernel for this",
        ),
    ] {
        let env = [
            ("WORKER_MODE_test_edge_pad", mode),
            (mode_of_must_refuse.as_str(), "refuse"),
        ];
        let (_, report) = fixture.check(&env, &[]);
        let edge = case(&report, "test_edge_pad");
        assert_eq!(edge["status"], status, "{mode}: {edge}");
        assert_eq!(edge["message"], message, "{mode}: {edge}");
        assert_eq!(case(&report, MUST_REFUSE)["status"], "passed", "{mode}: {report}");
    }
}

/// The Rust backend [`worker::Kinded`] checked in process and served by `Worker` to an
/// `ExecBackend`: each kind of error gets the same status and message either way.
fn a_rust_backend_gets_the_same_verdict_in_process_and_through_worker() {
    use pad_conformance::Backend;
    use pad_conformance::ErrorKind;
    use pad_conformance::testing::{CheckOptions, Status, check_data_set};
    use pad_conformance::testing::{Driven, ExecBackend};
    use pad_conformance::testing::{Patterns, discover};

    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let roots = [data.join("extended"), data.join("onnx-1.22.0/node")];
    let cases = discover(&roots, &Patterns::new(&[MUST_REFUSE, "test_edge_pad"]).unwrap()).unwrap();
    let [must_refuse, edge] = [MUST_REFUSE, "test_edge_pad"].map(|name| {
        cases
            .iter()
            .find(|c| c.id.ends_with(name))
            .unwrap_or_else(|| panic!("{name}"))
    });
    assert!(must_refuse.data_sets[0].expected_error.is_some());
    assert!(edge.data_sets[0].expected_error.is_none());
    let options = CheckOptions::default();
    let refusal = "wrap is not allowed before Pad-19";
    let unsupported = "backend kinded says unsupported (kind unsupported): mode wrap is not implemented";
    for (kind, on_must_refuse, on_edge) in [
        (
            ErrorKind::Refused,
            (Status::Passed, format!("refused as expected: {refusal}")),
            (Status::Errored, format!("backend kinded refused a valid input (kind refused): {refusal}")),
        ),
        (
            ErrorKind::Unsupported,
            (Status::Unsupported, unsupported.to_owned()),
            (Status::Unsupported, unsupported.to_owned()),
        ),
        (
            ErrorKind::Failed,
            (
                Status::Errored,
                "backend kinded failed (it reported an internal failure, kind failed), which is not a refusal: the device went away".to_owned(),
            ),
            (
                Status::Errored,
                "backend kinded failed (it reported an internal failure, kind failed): the device went away".to_owned(),
            ),
        ),
    ] {
        let command = format!(
            "{} {} {}",
            std::env::current_exe().unwrap().display(),
            worker::BACKEND_ARG,
            kind.name()
        );
        let exec = ExecBackend::start(&command, Duration::from_secs(30), 1 << 20)
            .unwrap_or_else(|e| panic!("{kind}: the worker starts: {e}"));
        assert_eq!(exec.name(), "kinded");
        let in_process = worker::Kinded(kind);
        for (case, (status, message)) in [(must_refuse, &on_must_refuse), (edge, &on_edge)] {
            for backend in [&in_process as &dyn Driven, &exec] {
                let outcome = check_data_set(backend, case, 0, &options);
                assert_eq!(outcome.status(), *status, "{kind} {}: {}", case.id, outcome.message());
                assert_eq!(&outcome.message(), message, "{kind} {}", case.id);
            }
        }
        // The error itself says its kind, through the worker too.
        let model = must_refuse.load_model(&must_refuse.decode_options(1 << 20)).unwrap();
        let error = exec.run(&model, &[]).unwrap_err();
        assert_eq!(error.kind(), kind, "{error}");
    }
}

/// The `--timeout` of a test of a hang, given only to a run of the hanging case: it never
/// answers, so its verdict is the same however busy the machine is. (A worker's start has at
/// least 300 s whatever the timeout.)
const HANG_TIMEOUT: &str = "1";

fn misbehaving_workers_cost_one_case_each() {
    let fixture = Fixture::new();
    // A hang, alone: it times out, and the worker is killed (`run` checks its pid is gone).
    let hang = [("WORKER_MODE_test_edge_pad", "hang")];
    let (code, report) = fixture.check_with(&fixture.backend(), HANG_TIMEOUT, &hang, &["--filter", "test_edge_pad"]);
    assert_eq!(code, Some(1), "{report}");
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "errored", "{report}");
    assert!(
        edge["message"].as_str().unwrap().contains("timed out after 1 s"),
        "{edge}"
    );
    // The first case (test_edge_pad) misbehaves; the worker started afresh answers the second.
    for (mode, expected) in [
        // std's own words for an exit status differ between the systems.
        (
            "crash",
            if cfg!(windows) {
                "worker exited (exit code: 3)"
            } else {
                "worker exited (exit status: 3)"
            },
        ),
        ("garbage", "protocol error: the worker printed \"this is not json\""),
    ] {
        let (code, report) = fixture.check(&[("WORKER_MODE_test_edge_pad", mode)], &[]);
        assert_eq!(code, Some(1), "{mode}");
        let edge = case(&report, "test_edge_pad");
        assert_eq!(edge["status"], "errored", "{mode}");
        let message = edge["message"].as_str().unwrap();
        assert!(message.contains(expected), "{mode}: {message}");
        assert_eq!(case(&report, "test_wrap_pad")["status"], "passed", "{mode}: {report}");
        if mode == "crash" {
            assert!(
                message.contains("boom: segfault imitation"),
                "stderr is kept: {message}"
            );
        }
    }
}

/// A worker through a shell that stays (`…; true`), hanging while its own child hangs too:
/// the timeout kills all three, not the shell only. (`run` checks both recorded pids.) The
/// hanging case runs alone, the only one with the short timeout.
fn a_timed_out_worker_takes_its_shell_and_children_with_it() {
    let fixture = Fixture::new();
    let (code, report) = fixture.check_with(
        &fixture.backend_through_shell(),
        HANG_TIMEOUT,
        &[("WORKER_MODE_test_edge_pad", "spawn-hang")],
        &["--filter", "test_edge_pad"],
    );
    assert_eq!(code, Some(1), "{report}");
    let edge = case(&report, "test_edge_pad");
    assert!(
        edge["message"].as_str().unwrap().contains("timed out after 1 s"),
        "{edge}"
    );
    let pids = std::fs::read_to_string(fixture.dir.path().join("pids")).unwrap();
    assert_eq!(pids.lines().count(), 3, "the shell, the worker and its child: {pids}");
}

/// Closing stdout mid-request is reported as such, not as a timeout (the timeout is 60 s).
fn a_worker_that_closes_its_output_is_reported_as_closed() {
    let fixture = Fixture::new();
    let (code, report) = fixture.check(&[("WORKER_MODE_test_edge_pad", "close")], &[]);
    assert_eq!(code, Some(1));
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "errored");
    let message = edge["message"].as_str().unwrap();
    assert!(
        message.contains("worker closed its output without exiting"),
        "{message}"
    );
    assert_eq!(case(&report, "test_wrap_pad")["status"], "passed", "{report}");
}

/// A worker that exits while its child still holds its stdout (so no end of file comes) is
/// reported as exited, with its status, and the child is killed.
fn a_worker_that_exits_is_reported_as_exited_even_if_its_child_holds_its_output() {
    let fixture = Fixture::new();
    let (code, report) = fixture.check_with(
        &fixture.backend(),
        "30",
        &[("WORKER_MODE_test_edge_pad", "spawn-exit")],
        &[],
    );
    assert_eq!(code, Some(1));
    let edge = case(&report, "test_edge_pad");
    let message = edge["message"].as_str().unwrap();
    assert!(message.contains("worker exited (exit status: 5)"), "{message}");
    assert!(!message.contains("timed out"), "{message}");
    assert_eq!(case(&report, "test_wrap_pad")["status"], "passed", "{report}");
}

/// Workers run in process groups of their own, out of reach of the terminal's Ctrl-C: the
/// runner, interrupted, kills them (and what they started) before it dies of the signal.
#[cfg(unix)]
fn an_interrupted_run_takes_its_workers_with_it() {
    let fixture = Fixture::new();
    interrupt_a_hanging_run(&fixture, &fixture.backend(), 2);
}

/// A worker that started a helper with `setsid` before it serves: the helper is gone after
/// the run, with the worker. (`run` checks the recorded pid.)
#[cfg(target_os = "linux")]
fn what_a_worker_detached_with_setsid_ends_with_the_run() {
    let fixture = Fixture::new();
    let (code, report) = fixture.check_with(&fixture.backend_detaching_a_helper(), "60", &[], &[]);
    assert_eq!(code, Some(0), "{report}");
    let pids = std::fs::read_to_string(fixture.dir.path().join("pids")).unwrap();
    assert_eq!(
        pids.lines().count(),
        3,
        "the helper, then the worker per data set: {pids}"
    );
}

/// An interrupted run ends what its workers started with `setsid` too.
#[cfg(target_os = "linux")]
fn an_interrupted_run_takes_what_its_workers_detached_with_it() {
    let fixture = Fixture::new();
    // The helper, the worker inside its request, its hanging child.
    interrupt_a_hanging_run(&fixture, &fixture.backend_detaching_a_helper(), 3);
}

/// Runs the binary with `backend`, whose workers hang on their request with a child started,
/// until `count` pids are written, then interrupts it (SIGINT): it reports what ran, exits
/// 130, and every recorded process is gone.
#[cfg(unix)]
fn interrupt_a_hanging_run(fixture: &Fixture, backend: &str, count: usize) {
    let pids = fixture.dir.path().join("pids");
    let cases = fixture.cases();
    let runner =
        crate::support::hanging_worker::signals_at_default(&mut Command::new(env!("CARGO_BIN_EXE_pad-conformance")))
            .args(["--backend", backend, "--jobs", "1", "--timeout", "600"])
            .arg(&cases)
            .env("WORKER_PIDS", &pids)
            .env("WORKER_MODE", "spawn-hang")
            .stdout(std::process::Stdio::null())
            // Captured and asserted: what it says on being interrupted is no failure of cargo test.
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    // Every pid recorded: the worker is inside its request, its child started.
    let deadline = Instant::now() + Duration::from_secs(60);
    let recorded = loop {
        let text = std::fs::read_to_string(&pids).unwrap_or_default();
        if text.lines().count() >= count {
            break text;
        }
        assert!(Instant::now() < deadline, "the worker never started its request");
        std::thread::sleep(Duration::from_millis(20));
    };
    // SAFETY: kill(2) on the runner's pid, which this test spawned and has not reaped.
    let sent = unsafe { libc::kill(runner.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    // The first SIGINT stops the run (reporting what ran, exit 130), killing the workers.
    let out = runner.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: 0 of 2 data sets ran"), "{stderr}");
    for pid in recorded.lines() {
        assert_gone(pid.parse().unwrap(), &["(interrupted)"]);
    }
}

fn a_command_that_is_not_a_worker_is_an_infrastructure_error() {
    let fixture = Fixture::new();
    let out = fixture.run(
        &[],
        &["--backend", "exec:echo hello", fixture.cases().to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("handshake"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn baselines_gate_on_regressions_only() {
    let fixture = Fixture::new();
    let baseline = fixture.dir.path().join("baseline.json");
    let baseline_arg = baseline.to_str().unwrap();
    let wrong_edge = [("WORKER_MODE_test_edge_pad", "wrong")];
    // Record the known failure: the recording succeeds.
    let (code, _) = fixture.check(&wrong_edge, &["--write-baseline", baseline_arg]);
    assert_eq!(code, Some(0));
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert_eq!(recorded["expected"]["test_edge_pad/0"]["status"], "failed");
    assert_eq!(recorded["expected"].as_object().unwrap().len(), 1);
    // The same failure against the baseline: 0.
    let (code, _) = fixture.check(&wrong_edge, &["--baseline", baseline_arg]);
    assert_eq!(code, Some(0));
    // A new failure: 1.
    let (code, _) = fixture.check(&[("WORKER_MODE", "wrong")], &["--baseline", baseline_arg]);
    assert_eq!(code, Some(1));
    // The known failure fixed: reported, 0, but 1 under --strict.
    let backend = fixture.backend();
    let out = fixture.run(
        &[],
        &[
            "--backend",
            &backend,
            "--baseline",
            baseline_arg,
            fixture.cases().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    // The human report's recap names the entry to remove; its summary, then the gate's
    // verdict on standard error, come last.
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stdout.contains(
            "\n\nbaseline entries out of date (1):\nFIXED test_edge_pad/0: listed as a known failure (mismatch: output 0 \"y\": shape differs: expected [1, 3, 6, 7], actual [1, 3, 4, 5]): remove it from the baseline\nbackend test-worker: "
        ),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("\n2 passed, 0 failed, 0 errored, 0 skipped\n"),
        "{stdout}"
    );
    assert!(
        stderr.ends_with("baseline: 0 expected failures, 0 regressions, 1 unexpected passes\n"),
        "{stderr}"
    );
    let (code, _) = fixture.check(&[], &["--baseline", baseline_arg, "--strict"]);
    assert_eq!(code, Some(1));
}

fn matrix_json_parses_back() {
    let fixture = Fixture::new();
    let backend = fixture.backend();
    let out = fixture.run(
        &[("WORKER_MODE_test_wrap_pad", "wrong")],
        &[
            "matrix",
            "--backend",
            "ref",
            "--backend",
            &backend,
            "--format",
            "json",
            fixture.cases().to_str().unwrap(),
        ],
    );
    // The worker fails a data set: the matrix exits 1, as a run of it would.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let matrix: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let backends = matrix["backends"].as_array().unwrap();
    assert_eq!(backends[0]["name"], "ref");
    assert_eq!(backends[0]["summary"]["passed"], 2);
    assert_eq!(backends[1]["name"], "test-worker");
    assert_eq!(backends[1]["summary"]["failed"], 1);
    let wrap = matrix["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "test_wrap_pad/0")
        .unwrap();
    assert_eq!(wrap["op"], "Pad");
    assert_eq!(wrap["version"], 25);
    assert_eq!(wrap["mode"], "wrap");
    assert_eq!(wrap["dtype"], "int32");
    assert_eq!(wrap["results"][0]["status"], "passed");
    assert_eq!(wrap["results"][1]["status"], "failed");
}

fn a_worker_states_its_runtime_as_data_apart_from_its_name() {
    let fixture = Fixture::new();
    let runtime = r#"{"name": "test-runtime", "version": "9.9.1", "build": "debug", "later": true}"#;
    let (code, report) = fixture.check(&[("WORKER_RUNTIME", runtime)], &[]);
    assert_eq!(code, Some(0));
    assert_eq!(report["backend"], "test-worker");
    assert_eq!(
        report["runtime"],
        serde_json::json!({"name": "test-runtime", "version": "9.9.1", "build": "debug"})
    );
    // A worker older than the field: no runtime, as before.
    let (code, report) = fixture.check(&[], &[]);
    assert_eq!(code, Some(0));
    assert!(report.get("runtime").is_none(), "{report}");
    let backend = fixture.backend();
    let out = fixture.run(
        &[("WORKER_RUNTIME", runtime)],
        &[
            "matrix",
            "--backend",
            "ref",
            "--backend",
            &backend,
            "--jobs",
            "1",
            "--format",
            "json",
            fixture.cases().to_str().unwrap(),
        ],
    );
    let matrix: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(matrix["backends"][0]["runtime"]["name"], "pad-conformance reference");
    assert_eq!(matrix["backends"][1]["runtime"]["version"], "9.9.1");
    // A runtime that is not one is refused at the handshake, before any case runs.
    for (bad, says) in [
        (r#""onnxruntime 1.32.0""#, "is not an object"),
        (r#"{"version": "1"}"#, "has no name"),
        (r#"{"name": "x", "version": 1}"#, "runtime version 1 is not a string"),
    ] {
        let out = fixture.run(
            &[("WORKER_RUNTIME", bad)],
            &["--backend", &backend, fixture.cases().to_str().unwrap()],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(
            stderr.contains("handshake: protocol error: the hello's runtime") && stderr.contains(says),
            "{stderr}"
        );
    }
}

fn human_lines_appear_as_data_sets_finish() {
    // The worker answers test_edge_pad, then holds test_wrap_pad until this test has read
    // edge's line: were the report written only at the end, it would wait out --timeout and
    // wrap would be errored.
    let fixture = Fixture::new();
    let gate = fixture.dir.path().join("gate");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(["--jobs", "1", "--timeout", "60", "--backend", &fixture.backend()])
        .arg(fixture.cases())
        .env("NO_COLOR", "1")
        .env("WORKER_GATE", &gate)
        .env_remove("WORKER_MODE")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("PASS  test_edge_pad/0"), "{first}");
    std::fs::write(&gate, "").unwrap();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(rest[0].starts_with("PASS  test_wrap_pad/0"), "{rest:?}");
    assert_eq!(rest.last().unwrap(), "2 passed, 0 failed, 0 errored, 0 skipped");
    assert!(child.wait().unwrap().success());
}

/// Pad cases of every kind the node describes: attribute pads (Pad-2), pads and axes as
/// inputs (Pad-18), edge, reflect and wrap, a must-refuse mode, and a graph of 13 nodes.
const NODE_CASES: [(&str, &str); 7] = [
    ("onnx-1.2.1/node", "test_constant_pad"),
    ("onnx-1.13.1/node", "test_constant_pad_axes"),
    ("onnx-1.22.0/node", "test_edge_pad"),
    ("onnx-1.22.0/node", "test_reflect_pad"),
    ("onnx-1.22.0/node", "test_wrap_pad"),
    ("extended", MUST_REFUSE),
    ("onnx-1.22.0/node", "test_center_crop_pad_crop_expanded"),
];

fn a_worker_that_reads_only_the_node_and_raw_tensors_passes() {
    let fixture = Fixture::new();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    for (dir, case) in NODE_CASES {
        let to = fixture.cases().join(case);
        if !to.exists() {
            copy_case_alone(&data.join(dir).join(case), &to);
        }
    }
    let accepts = r#"{"node": true, "tensors": "raw"}"#;
    let (code, report) = fixture.check(&[("WORKER_ACCEPTS", accepts), ("WORKER_MODE", "node")], &[]);
    assert_eq!(code, Some(0), "{report}");
    for (_, id) in &NODE_CASES[..6] {
        assert_eq!(case(&report, id)["status"], "passed", "{id}: {report}");
    }
    let graph = case(&report, "test_center_crop_pad_crop_expanded");
    assert_eq!(graph["status"], "unsupported", "{graph}");
    assert!(
        graph["message"].as_str().unwrap().contains("a graph of 13 nodes"),
        "{graph}"
    );
    // A raw output of the wrong size errors its case, naming the file and both sizes; a path
    // string from a raw worker is still a TensorProto file.
    let (code, report) = fixture.check(
        &[
            ("WORKER_ACCEPTS", accepts),
            ("WORKER_MODE", "node"),
            ("WORKER_MODE_test_edge_pad", "raw-short"),
            ("WORKER_MODE_test_wrap_pad", "right"),
        ],
        &[],
    );
    assert_eq!(code, Some(1), "{report}");
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "errored", "{edge}");
    let message = edge["message"].as_str().unwrap();
    assert!(
        message
            .contains("output_0.bin: raw float32[2]: file of 3 bytes, but the element type and shape call for 8 bytes"),
        "{message}"
    );
    assert_eq!(case(&report, "test_wrap_pad")["status"], "passed", "{report}");
    // Without accepts, the same worker gets no node (its graph size reads as null).
    let (_, report) = fixture.check(&[("WORKER_MODE_test_edge_pad", "node")], &[]);
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "unsupported", "{edge}");
    assert!(
        edge["message"].as_str().unwrap().ends_with("a graph of null nodes"),
        "{edge}"
    );
}

/// A bool case whose one output is bool[3, 4].
const BOOL_CASE: &str = "test_ext_pad18_constant_bool_r2";

fn an_output_of_a_bool_byte_of_2_fails_as_a_wrong_answer_not_a_protocol_break() {
    let fixture = Fixture::new();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended");
    copy_dir(&data.join(BOOL_CASE), &fixture.cases().join(BOOL_CASE));
    let mode = format!("WORKER_MODE_{BOOL_CASE}");
    // As a raw file (the worker accepts raw tensors) and as a TensorProto's raw_data: the
    // same wrong answer, the same verdict, whatever the garbage byte is.
    for (accepts, worker_mode, stored) in [
        (r#"{"tensors": "raw"}"#, "bool-2-raw", "byte 2"),
        ("{}", "bool-2-proto", "2 in raw_data"),
    ] {
        let (code, report) = fixture.check(&[("WORKER_ACCEPTS", accepts), (mode.as_str(), worker_mode)], &[]);
        assert_eq!(code, Some(1), "{report}");
        let outcome = case(&report, BOOL_CASE);
        assert_eq!(outcome["status"], "failed", "{outcome}");
        assert_eq!(outcome["verdict"]["verdict"], "mismatch", "{outcome}");
        assert_eq!(outcome["verdict"]["shape"], false, "{outcome}");
        assert_eq!(
            outcome["message"],
            format!("mismatch: output 0 \"y\": element [0, 2] is {stored}, which is no bool"),
            "{outcome}"
        );
        // A wrong answer gates on its basis alone, as a wrong value does: the worker survived.
        assert_eq!(case(&report, "test_edge_pad")["status"], "passed", "{report}");
    }
}

fn an_optimizer_s_model_is_evaluated_by_the_reference_and_judged() {
    let fixture = Fixture::new();
    let node = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0/node");
    let model_of = |case: &str| node.join(case).join("model.onnx").to_str().unwrap().to_owned();
    let accepts = ("WORKER_ACCEPTS", r#"{"model": true}"#);
    let runtime = ("WORKER_RUNTIME", r#"{"name": "fold", "version": "0.1"}"#);
    // A case's own model handed back: the reference evaluates it, and the case passes; the
    // other case, handed a model that pads by another mode, fails as a changed answer.
    let (edge_model, wrap_model) = (model_of("test_edge_pad"), model_of("test_wrap_pad"));
    for (case_name, model) in [("test_edge_pad", &edge_model), ("test_wrap_pad", &wrap_model)] {
        let (code, report) = fixture.check(&[accepts, ("WORKER_MODE", "model"), ("WORKER_MODEL", model)], &[]);
        let outcome = case(&report, case_name);
        assert_eq!(outcome["status"], "passed", "{report}");
        assert_eq!(outcome["rewritten_model"], true, "{outcome}");
        let other = if case_name == "test_edge_pad" {
            "test_wrap_pad"
        } else {
            "test_edge_pad"
        };
        let changed = case(&report, other);
        assert_eq!(code, Some(1), "{report}");
        assert_eq!(changed["status"], "failed", "{changed}");
        assert_eq!(changed["verdict"]["verdict"], "mismatch", "{changed}");
        assert_eq!(changed["rewritten_model"], true, "{changed}");
    }
    // The human report says where a wrong answer came from.
    let cases = fixture.cases();
    let out = fixture.run(
        &[accepts, ("WORKER_MODE", "model"), ("WORKER_MODEL", &edge_model)],
        &["--backend", &fixture.backend(), "--jobs", "1", cases.to_str().unwrap()],
    );
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("answered by: the model the backend optimized, evaluated by the reference"),
        "{human}"
    );
    // A model the reference cannot run on the data set (test_constant_pad's takes an input,
    // "value", that test_edge_pad has not) fails, naming the optimizer.
    let constant_model = model_of("test_constant_pad");
    let (_, report) = fixture.check(
        &[
            accepts,
            runtime,
            ("WORKER_MODE", "model"),
            ("WORKER_MODEL", &constant_model),
        ],
        &[],
    );
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "errored", "{edge}");
    assert_eq!(edge["verdict"]["failure"], "invalid-rewrite", "{edge}");
    let message = edge["message"].as_str().unwrap();
    assert!(
        message.contains(
            "fold 0.1: the optimized model is invalid: its graph input \"value\" is none of the data set's inputs"
        ),
        "{message}"
    );
    // A rewritten model that breaks a Pad rule (wrap before Pad-19) is refused by the
    // reference: optimizer and reference together refuse the data set, a refused valid input
    // here (errored), which names the optimizer.
    let wrap_18 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("onnx-testdata/extended/test_ext_pad18_err_mode_wrap/model.onnx")
        .to_str()
        .unwrap()
        .to_owned();
    let (_, report) = fixture.check(
        &[accepts, runtime, ("WORKER_MODE", "model"), ("WORKER_MODEL", &wrap_18)],
        &[],
    );
    let edge = case(&report, "test_edge_pad");
    assert_eq!(edge["status"], "errored", "{edge}");
    assert_eq!(edge["rewritten_model"], true, "{edge}");
    assert_eq!(edge["verdict"]["verdict"], "refused-valid", "{edge}");
    let message = edge["message"].as_str().unwrap();
    assert!(
        message.contains("fold 0.1: the reference refuses the optimized model: ") && message.contains("wrap"),
        "{message}"
    );
    // Hostile model replies: outside the output directory, not a model, too large. Each a
    // clear error naming the file; the worker carries on.
    for (mode, says) in [
        ("model-outside", "outside the output directory"),
        ("model-garbage", "optimized.onnx"),
        ("model-large", "optimized.onnx"),
    ] {
        let (_, report) = fixture.check(&[accepts, ("WORKER_MODE", mode)], &["--max-tensor-bytes", "4096"]);
        let edge = case(&report, "test_edge_pad");
        assert_eq!(edge["status"], "errored", "{mode}: {edge}");
        let message = edge["message"].as_str().unwrap();
        assert!(message.contains(says), "{mode}: {message}");
        if mode == "model-outside" {
            // The path as the system writes it (backslashes on Windows).
            let model = Path::new("test_edge_pad").join("model.onnx");
            assert!(message.contains(model.to_str().unwrap()), "{message}");
        }
        if mode == "model-large" {
            assert!(message.contains("67108864"), "{message}");
        }
    }
    // A worker that did not accept model replies and sends one breaks the protocol.
    let (_, report) = fixture.check(&[("WORKER_MODE", "model-outside")], &[]);
    let edge = case(&report, "test_edge_pad");
    assert!(
        edge["message"]
            .as_str()
            .unwrap()
            .contains("a model from a worker that did not accept model replies"),
        "{edge}"
    );
}

fn a_hello_that_accepts_what_was_not_offered_is_refused_at_the_handshake() {
    let fixture = Fixture::new();
    let backend = fixture.backend();
    for (bad, says) in [
        (
            r#"{"tensors": "npy"}"#,
            r#"accepts.tensors "npy" is not one the runner offered"#,
        ),
        (r#"{"node": "yes"}"#, r#"accepts.node "yes" is not true or false"#),
        (r#"["raw"]"#, "accepts [\"raw\"] is not an object"),
    ] {
        let out = fixture.run(
            &[("WORKER_ACCEPTS", bad)],
            &["--backend", &backend, fixture.cases().to_str().unwrap()],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(
            stderr.contains("handshake: protocol error") && stderr.contains(says),
            "{stderr}"
        );
    }
}

/// One worker serving data set after data set, printing each one's traceback before its error
/// reply: each refusal's message carries its own traceback, whole, and never the one before
/// (the stderr a request takes is what the worker printed between sending it and the reply).
fn each_refusal_carries_the_stderr_of_its_own_request() {
    let fixture = Fixture::new();
    // Again and again: a reading thread that lags would show within a few rounds.
    for _ in 0..5 {
        let (_, report) = fixture.check(&[("WORKER_MODE", "traceback")], &[]);
        for (id, other) in [("test_edge_pad", "test_wrap_pad"), ("test_wrap_pad", "test_edge_pad")] {
            let message = case(&report, id)["message"].as_str().unwrap();
            assert!(
                message.ends_with(&format!(
                    "no kernel for {id}\nworker stderr:\nTraceback (most recent call last):\n  raised while running {id}"
                )),
                "{message}"
            );
            assert!(!message.contains(other), "{message}");
        }
    }
}
