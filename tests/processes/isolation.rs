//! `Harness::run` end to end, as a downstream gate runs it: this binary is both the test and,
//! with PROCESSES_GATE set, the gate under test — a backend that aborts, hangs or panics on three cases,
//! run with `.isolate()`. The tests run the gate as a child process and read what it prints,
//! the exit code and the baseline it records through PAD_CONFORMANCE_WRITE_BASELINE.
//! main.rs runs this binary as the gate when [`gate_if_asked`] says so.

use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pad_conformance::{Backend, BackendError, Harness, Model, RefBackend, Tensor};

/// The trials this process's backend was handed, for GATE_ABORT_SECOND.
static HANDED: AtomicUsize = AtomicUsize::new(0);

/// Aborts on test_edge_pad, panics on test_wrap_pad, and with GATE_HANG set hangs on
/// test_reflect_pad, which then has a time limit of 1 s of its own (only one test waits it
/// out; the other trials have 60 s). The gate runs those three and
/// two that pass, test_constant_pad and test_constant_pad_axes: each trial is a child process.
struct Crashy;

impl Backend for Crashy {
    fn name(&self) -> &str {
        "crashy"
    }
    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        // By component: Windows separates with a backslash.
        let case = |name: &str| model.path.components().any(|c| c.as_os_str() == name);
        if let Some(pids) = std::env::var_os("GATE_PIDS") {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(pids)
                .unwrap();
            // One write per line: writeln! may split it into several, and trials running
            // side by side in one process then interleave their lines.
            file.write_all(format!("{}\n", std::process::id()).as_bytes()).unwrap();
        }
        // Memory an earlier trial corrupted, as a count: the second trial a process hands
        // the backend aborts, whichever it is, and every other one passes. A fresh child
        // serving a retry alone never reaches a second trial.
        if std::env::var_os("GATE_ABORT_SECOND").is_some() {
            if HANDED.fetch_add(1, Ordering::SeqCst) == 1 {
                std::process::abort();
            }
            return RefBackend.run(model, inputs);
        }
        // A helper the backend starts and leaves running, as a runtime's server might.
        #[cfg(unix)]
        if let Some(helper) = std::env::var_os("GATE_HELPER")
            && case("test_constant_pad")
        {
            #[allow(clippy::zombie_processes, reason = "left running on purpose: the gate must end it")]
            let sleeper = std::process::Command::new("sleep").arg("120").spawn().unwrap();
            std::fs::write(helper, sleeper.id().to_string()).unwrap();
        }
        if case("test_edge_pad") {
            // With GATE_CRASH_ONCE naming a file: only the first try, which creates it.
            match std::env::var_os("GATE_CRASH_ONCE") {
                Some(mark) if std::fs::File::create_new(&mark).is_err() => return RefBackend.run(model, inputs),
                _ => std::process::abort(),
            }
        }
        if case("test_reflect_pad") && std::env::var_os("GATE_HANG").is_some() {
            std::thread::sleep(Duration::from_secs(600));
        }
        if case("test_wrap_pad") {
            panic!("wrap is not implemented");
        }
        RefBackend.run(model, inputs)
    }
}

fn gate() -> ! {
    if std::env::var_os("GATE_REFUSAL").is_some() {
        // A data set that must be refused, its twin left out by the pattern: refused, never
        // verified. GATE_REQUIRE asks the builder to fail on that.
        let extended = concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata/extended");
        let harness = Harness::new(RefBackend)
            .root(extended)
            .pattern("test_ext_pad18_err_axes_repeated");
        match std::env::var_os("GATE_REQUIRE") {
            Some(_) => harness.require_verified().run(),
            None => harness.run(),
        }
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata/onnx-1.22.0/node");
    let mut harness = Harness::new(Crashy)
        .root(root)
        .pattern("test_constant_pad")
        .pattern("test_constant_pad_axes")
        .pattern("test_edge_pad")
        .pattern("test_reflect_pad")
        .pattern("test_wrap_pad")
        // Trials meant to finish get a limit no busy machine reaches; only the one that
        // hangs is killed early, and it never finishes, so its verdict is the same however
        // busy the machine is.
        .time_limit(Duration::from_secs(60));
    if std::env::var_os("GATE_HANG").is_some() {
        harness = harness.time_limit_for("test_reflect_pad/0", Duration::from_secs(1));
    }
    if let Some(baseline) = std::env::var_os("GATE_BASELINE") {
        harness = harness.baseline(baseline);
    }
    harness.run()
}

/// How the aborted trial's child ended: std's abort is SIGABRT on Unix, a fail-fast exception
/// on Windows.
#[cfg(unix)]
const ABORTED: &str = "was killed by signal 6 (SIGABRT)";
#[cfg(windows)]
const ABORTED: &str = "crashed with 0xc0000409 (STATUS_STACK_BUFFER_OVERRUN: an abort (__fastfail))";

/// Runs as the gate under test, and exits, when PROCESSES_GATE is set.
pub fn gate_if_asked() {
    if std::env::var_os("PROCESSES_GATE").is_some() {
        gate();
    }
}

pub const TESTS: [(&str, fn()); 11] = [
    (
        "a_helper_the_backend_started_dies_with_the_gate",
        a_helper_the_backend_started_dies_with_the_gate,
    ),
    (
        "under_nextest_trials_run_in_its_process",
        under_nextest_trials_run_in_its_process,
    ),
    ("a_child_serves_many_trials", a_child_serves_many_trials),
    (
        "a_crash_of_a_child_that_served_others_errors_its_trial_naming_the_signal",
        a_crash_of_a_child_that_served_others_errors_its_trial_naming_the_signal,
    ),
    (
        "with_retries_a_crash_of_a_child_that_served_others_passes_after_a_crash_and_is_counted",
        with_retries_a_crash_of_a_child_that_served_others_passes_after_a_crash_and_is_counted,
    ),
    (
        "a_crash_then_a_pass_on_a_retry_passed_after_a_crash_and_is_counted",
        a_crash_then_a_pass_on_a_retry_passed_after_a_crash_and_is_counted,
    ),
    (
        "a_crash_a_hang_and_a_panic_cost_one_trial_each",
        a_crash_a_hang_and_a_panic_cost_one_trial_each,
    ),
    (
        "require_verified_fails_a_run_whose_refusal_its_twin_did_not_verify",
        require_verified_fails_a_run_whose_refusal_its_twin_did_not_verify,
    ),
    (
        "a_missing_baseline_says_how_to_record_it",
        a_missing_baseline_says_how_to_record_it,
    ),
    (
        "a_recorded_baseline_makes_the_gate_pass",
        a_recorded_baseline_makes_the_gate_pass,
    ),
    (
        "under_nextest_end_of_run_files_are_refused",
        under_nextest_end_of_run_files_are_refused,
    ),
];

/// Runs the gate with `env`, two trials at a time, as a gate runs on two cores: the hang's
/// time limit is waited out beside the other trials.
fn run_gate(env: &[(&str, &str)]) -> Output {
    run_gate_with(env, &["--test-threads", "2"])
}

/// Runs the gate with `env` and libtest's `args`.
fn run_gate_with(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .env("PROCESSES_GATE", "1")
        .env_remove("GATE_HANG")
        .env_remove("GATE_BASELINE")
        .env_remove("PAD_CONFORMANCE_WRITE_BASELINE")
        .env_remove("PAD_CONFORMANCE_JSON_REPORT")
        .env_remove("PAD_CONFORMANCE_JUNIT_REPORT")
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_EXECUTION_MODE")
        .env_remove("GATE_PIDS")
        .env_remove("GATE_ABORT_SECOND")
        .env_remove("GATE_CRASH_ONCE")
        .env_remove("GATE_HELPER")
        .env_remove("PAD_CONFORMANCE_RETRIES")
        .env_remove("PAD_CONFORMANCE_REQUIRE_VERIFIED")
        .env_remove("GATE_REFUSAL")
        .env_remove("GATE_REQUIRE")
        .args(args)
        .args(["--color", "never"]);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The process ids the backend ran in, one line per data set it ran.
fn pids_of(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn a_child_serves_many_trials() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let pids = dir.path().join("pids");
    let out = run_gate_with(&[("GATE_PIDS", pids.to_str().unwrap())], &["--test-threads", "1"]);
    assert_eq!(out.status.code(), Some(101), "{:?}", text(&out));
    let ran = pids_of(&pids);
    let mut distinct = ran.clone();
    distinct.sort();
    distinct.dedup();
    // Five data sets, each run once (test_edge_pad's abort is its verdict, not run again):
    // five runs in two processes, the first child until the abort and the one serving the rest.
    assert_eq!((ran.len(), distinct.len()), (5, 2), "{ran:?}");
    assert!(!distinct.contains(&std::process::id().to_string()));
}

/// A process the backend started in its child (`sleep 120`) is killed with the child's group
/// when the gate ends the child, though the child itself exited first.
fn a_helper_the_backend_started_dies_with_the_gate() {
    if cfg!(not(target_os = "linux")) {
        return; // /proc tells a process's state.
    }
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let helper = dir.path().join("helper");
    let out = run_gate_with(
        &[("GATE_HELPER", helper.to_str().unwrap())],
        &["--test-threads", "1", "test_constant_pad"],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let pid = std::fs::read_to_string(&helper).unwrap();
    // Dead once gone, or a zombie left for init to reap. SIGKILL takes effect at once; the
    // wait is for a machine too busy to run init, never for the gate.
    let dead = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z')
        })
    };
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while !dead() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let alive = !dead();
    if alive {
        let _ = Command::new("kill").args(["-9", pid.trim()]).status();
    }
    assert!(!alive, "the backend's helper {pid} outlived the gate");
}

/// cargo-nextest starts a process per trial: the harness starts no child of its own there.
fn under_nextest_trials_run_in_its_process() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let pids = dir.path().join("pids");
    let env = [("NEXTEST", "1"), ("GATE_PIDS", pids.to_str().unwrap())];
    let out = run_gate_with(&env, &["test_constant_pad"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let ran = pids_of(&pids);
    assert_eq!(ran.len(), 2, "{ran:?}");
    assert!(ran.iter().all(|pid| *pid == ran[0]), "{ran:?}");
}

/// The gate's five data sets, one at a time, with a backend that aborts on the second trial
/// each child hands it, the process ids it ran in written to a file and a JSON report: what
/// it printed, the report, and the process ids.
fn run_aborting_second(retries: &str) -> (Output, serde_json::Value, Vec<String>) {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let (pids, report) = (dir.path().join("pids"), dir.path().join("run.json"));
    let env = [
        ("GATE_ABORT_SECOND", "1"),
        ("GATE_PIDS", pids.to_str().unwrap()),
        ("PAD_CONFORMANCE_JSON_REPORT", report.to_str().unwrap()),
        ("PAD_CONFORMANCE_RETRIES", retries),
    ];
    let out = run_gate_with(&env, &["--test-threads", "1"]);
    let report =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap_or_else(|e| panic!("{e}: {:?}", text(&out)));
    (out, report, pids_of(&pids))
}

/// The report's data sets that `keep` keeps.
fn cases_where(report: &serde_json::Value, keep: impl Fn(&serde_json::Value) -> bool) -> Vec<&serde_json::Value> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| keep(case))
        .collect()
}

/// A crash is the verdict of the trial the child was running, though the child had served
/// another before: without retries (the default) nothing runs it again behind the gate's back.
fn a_crash_of_a_child_that_served_others_errors_its_trial_naming_the_signal() {
    let (out, report, ran) = run_aborting_second("0");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    // Trials 2 and 4 abort their child, each the second it served; 1, 3 and 5 pass.
    assert!(stdout.contains("test result: FAILED. 3 passed; 2 failed;"), "{stdout}");
    assert!(
        stdout.contains(
            "pad-conformance, backend crashy: 5 data sets: 3 passed, 0 failed, 2 errored, 0 skipped\n\
             no baseline: 2 failures, each new\n"
        ),
        "{stdout}"
    );
    let crashed = format!("backend crashy crashed: the child process running it {ABORTED}");
    assert_eq!(stdout.matches(&crashed).count(), 2, "{stdout}");
    let errored = cases_where(&report, |case| case["status"] == "errored");
    assert_eq!(errored.len(), 2, "{report}");
    for case in errored {
        assert!(case["verdict"]["failure"]["crash"].is_object(), "{case}");
        assert!(case["message"].as_str().unwrap().starts_with(&crashed), "{case}");
        assert!(case.get("retry").is_none(), "{case}");
    }
    assert!(report["summary"].get("after_crash").is_none(), "{report}");
    // Each data set ran once: in the first child until its abort, the second until its
    // abort, and a third for the last.
    let mut distinct = ran.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!((ran.len(), distinct.len()), (5, 3), "{ran:?}");
}

/// With retries, that crash is the first try: the retry rule runs the data set again alone in
/// a fresh child, and a pass confirmed there is "passed after a crash", counted.
fn with_retries_a_crash_of_a_child_that_served_others_passes_after_a_crash_and_is_counted() {
    let (out, report, ran) = run_aborting_second("1");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("test result: ok. 5 passed; 0 failed;"), "{stdout}");
    assert!(
        stdout.contains("5 data sets: 5 passed, 0 failed, 0 errored, 0 skipped, 2 passed after a crash or timeout"),
        "{stdout}"
    );
    assert_eq!(report["summary"]["after_crash"], 2, "{report}");
    let retried = cases_where(&report, |case| case.get("retry").is_some());
    assert_eq!(retried.len(), 2, "{report}");
    for case in retried {
        assert_eq!(case["status"], "passed", "{case}");
        assert!(case["retry"]["after"]["crash"].is_object(), "{case}");
        // The crash, a pass alone, and the pass that confirms it.
        assert_eq!(case["retry"]["tries"], 3, "{case}");
        assert!(case["retry"]["first"].as_str().unwrap().contains(ABORTED), "{case}");
    }
    // The five tries in the pool's children (three of them) and the two retries of each crash,
    // each in a fresh child of its own.
    let mut distinct = ran.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!((ran.len(), distinct.len()), (9, 7), "{ran:?}");
}

fn a_crash_then_a_pass_on_a_retry_passed_after_a_crash_and_is_counted() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let mark = dir.path().join("crashed");
    let report = dir.path().join("run.json");
    let env = [
        ("GATE_CRASH_ONCE", mark.to_str().unwrap()),
        ("PAD_CONFORMANCE_RETRIES", "1"),
        ("PAD_CONFORMANCE_JSON_REPORT", report.to_str().unwrap()),
    ];
    let out = run_gate_with(&env, &["--test-threads", "1", "test_edge_pad"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 data sets: 1 passed, 0 failed, 0 errored, 0 skipped, 1 passed after a crash or timeout"),
        "{stdout}"
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let retry = &report["cases"][0]["retry"];
    assert_eq!(retry["tries"], 3, "{report}");
    assert!(retry["first"].as_str().unwrap().contains(ABORTED), "{report}");
    assert_eq!(report["summary"]["after_crash"], 1, "{report}");
    // A retry count past the bound is refused before anything runs.
    let out = run_gate_with(&[("PAD_CONFORMANCE_RETRIES", "11")], &["test_edge_pad"]);
    assert_eq!(out.status.code(), Some(101));
    assert!(
        text(&out)
            .1
            .contains("PAD_CONFORMANCE_RETRIES \"11\": give a whole number of retries from 0 to 10"),
        "{:?}",
        text(&out)
    );
}

/// A refusal its twin did not verify fails the run only when required — by the builder, or by
/// PAD_CONFORMANCE_REQUIRE_VERIFIED, which wins — counted among libtest's failures, though
/// libtest showed its trial `ok`; a value that says neither is refused before anything runs.
fn require_verified_fails_a_run_whose_refusal_its_twin_did_not_verify() {
    let run = |env: &[(&str, &str)]| {
        let mut all = vec![("GATE_REFUSAL", "1")];
        all.extend(env);
        let out = run_gate_with(&all, &["--test-threads", "1"]);
        let (stdout, stderr) = text(&out);
        (out.status.code(), stdout, stderr)
    };
    let failing = "pad-conformance: 1 refusals not verified by their twins fail the run (require_verified)";
    let (code, stdout, stderr) = run(&[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("] test_ext_pad18_err_axes_repeated/0 ... ok"),
        "{stdout}"
    );
    assert!(stdout.contains(", 1 refusals not verified"), "{stdout}");
    assert!(!stdout.contains(failing), "{stdout}");
    for env in [
        &[("PAD_CONFORMANCE_REQUIRE_VERIFIED", "1")][..],
        &[("GATE_REQUIRE", "1")],
    ] {
        let (code, stdout, stderr) = run(env);
        assert_eq!(code, Some(101), "{env:?}: {stdout}\n{stderr}");
        assert!(stdout.contains(failing), "{stdout}");
        assert!(
            stdout.contains("refusal not verified: test_ext_pad18_err_axes_repeated/0 (its twin test_ext_pad18_err_axes_repeated_twin/0 was not in the run)"),
            "{stdout}"
        );
    }
    // The variable wins over the builder, either way.
    let (code, stdout, _) = run(&[("GATE_REQUIRE", "1"), ("PAD_CONFORMANCE_REQUIRE_VERIFIED", "false")]);
    assert_eq!(code, Some(0), "{stdout}");
    let (code, stdout, stderr) = run(&[("PAD_CONFORMANCE_REQUIRE_VERIFIED", "maybe")]);
    assert_eq!(code, Some(101), "{stdout}");
    assert!(
        stderr.contains(
            "PAD_CONFORMANCE_REQUIRE_VERIFIED \"maybe\": give 1 (or true) to fail the run on a refusal its twin did not verify, 0 (or false) not to"
        ),
        "{stderr}"
    );
    assert!(!stdout.contains("test_ext_pad18_err_axes_repeated/0 ... "), "{stdout}");
}

fn a_crash_a_hang_and_a_panic_cost_one_trial_each() {
    let out = run_gate(&[("GATE_HANG", "1")]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    assert!(stdout.contains("test result: FAILED. 2 passed; 3 failed;"), "{stdout}");
    assert!(
        stdout.contains(&format!("the child process running it {ABORTED}")),
        "{stdout}"
    );
    assert!(
        stdout.contains("timed out after 1 s: the child process running it was killed"),
        "{stdout}"
    );
    // The panic's message once, in the trial's failure, with where it happened; no panic
    // message or backtrace on stderr.
    assert_eq!(stdout.matches("wrap is not implemented").count(), 1, "{stdout}");
    assert!(stdout.contains("\n  at tests/processes/isolation.rs:"), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stdout.contains(
            "pad-conformance, backend crashy: 5 data sets: 2 passed, 0 failed, 3 errored, 0 skipped\n\
             no baseline: 3 failures, each new\n"
        ),
        "{stdout}"
    );
}

fn a_missing_baseline_says_how_to_record_it() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let baseline = dir.path().join("known.json");
    let out = run_gate(&[("GATE_BASELINE", baseline.to_str().unwrap())]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(101));
    let expected = format!(
        "baseline {0} does not exist; record one with:\n  PAD_CONFORMANCE_WRITE_BASELINE={0} cargo test --test processes\n",
        baseline.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

fn a_recorded_baseline_makes_the_gate_pass() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let baseline = dir.path().join("known.json");
    let path = baseline.to_str().unwrap();
    // Recording: the failures go to the file, their trials pass, and the run succeeds,
    // saying what it wrote.
    let out = run_gate(&[("GATE_BASELINE", path), ("PAD_CONFORMANCE_WRITE_BASELINE", path)]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(
        text(&out)
            .0
            .contains("known.json: 2 known failures (0 failed, 2 errored, 0 intermittent crashes)"),
        "{:?}",
        text(&out)
    );
    let recorded: serde_json::Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
    let entries = recorded["expected"].as_object().unwrap();
    let names: Vec<&str> = entries.keys().map(String::as_str).collect();
    assert_eq!(names, ["test_edge_pad/0", "test_wrap_pad/0"]);
    assert_eq!(recorded["backend"], "crashy");
    assert_eq!(
        entries["test_edge_pad/0"]["reason"],
        format!("backend crashy crashed: the child process running it {ABORTED}")
    );
    // Gated by it: everything passes, and the known failures are marked and counted.
    let out = run_gate(&[("GATE_BASELINE", path)]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let edge = stdout.lines().find(|l| l.contains(" test_edge_pad/0 ")).unwrap();
    assert!(
        edge.starts_with("test [Pad-25, known failure] test_edge_pad/0 ") && edge.ends_with(" ok"),
        "{edge}"
    );
    assert!(
        stdout
            .contains("5 data sets: 3 passed, 0 failed, 2 errored, 0 skipped\nbaseline: 2 known failures (in the baseline), 0 new failures"),
        "{stdout}"
    );
}

/// cargo-nextest runs each trial in a process of its own: a report or baseline written at the
/// end of a run would hold one trial, each overwriting the last. The harness refuses, saying
/// how to write it instead, and writes nothing; listing the trials (what nextest does first)
/// still works.
fn under_nextest_end_of_run_files_are_refused() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let report = dir.path().join("run.json");
    let nextest = ("NEXTEST_EXECUTION_MODE", "process-per-test");
    let out = run_gate(&[nextest, ("PAD_CONFORMANCE_JSON_REPORT", report.to_str().unwrap())]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("cargo-nextest runs each trial in its own process, so the report written at the end"),
        "{stderr}"
    );
    assert!(!report.exists());
    let baseline = dir.path().join("known.json");
    let out = run_gate(&[nextest, ("PAD_CONFORMANCE_WRITE_BASELINE", baseline.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(101));
    assert!(text(&out).1.contains("so the baseline written"), "{:?}", text(&out));
    assert!(!baseline.exists());
    // Without a file to write, nextest's runs are as any other.
    let mut list = Command::new(std::env::current_exe().unwrap());
    list.env("PROCESSES_GATE", "1")
        .env(nextest.0, nextest.1)
        .env("PAD_CONFORMANCE_JSON_REPORT", &report);
    let listed = list.args(["--list", "--format", "terse"]).output().unwrap();
    assert_eq!(listed.status.code(), Some(0), "{:?}", text(&listed));
    assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 5);
}
