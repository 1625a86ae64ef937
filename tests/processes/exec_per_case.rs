//! `exec-per-case:CMD` end to end, through the built binary: a per-case program written in Rust
//! (this test binary, re-executed with `--per-case`: it runs the reference backend on the
//! model and inputs it is given, as a C++ test binary would run its runtime), and small sh
//! scripts for each exit the contract names. Every run checks that the processes the scripts
//! recorded are gone when it ends.

use std::path::Path;

use pad_conformance::testing::{DecodeOptions, read_model, read_tensor_file, write_tensor_file};
use pad_conformance::{Backend, DataType, ErrorKind, RefBackend, Tensor};

#[cfg(target_os = "linux")]
use super::exec_backend::process_state;
use super::exec_backend::{Fixture, MUST_REFUSE, case};

/// The argument that makes the test binary a per-case program: `--per-case MODEL OUTPUT_DIR
/// INPUT...`.
pub const ARG: &str = "--per-case";

/// Runs as the per-case program, and exits, when the first argument asks for it.
pub fn run_if_asked() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(ARG) {
        std::process::exit(per_case(&args[2..]));
    }
}

/// The reference backend on one data set: outputs written, or the exit code of its error's
/// kind, a refusal naming its rule in error.json.
fn per_case(args: &[String]) -> i32 {
    let [model, output_dir, inputs @ ..] = args else {
        eprintln!("usage: {ARG} MODEL OUTPUT_DIR INPUT...");
        return 2;
    };
    let node: serde_json::Value = serde_json::from_str(&std::env::var("PAD_CONFORMANCE_NODE").unwrap()).unwrap();
    if node["op"] != "Pad" || node["graph"]["nodes"] != 1 {
        eprintln!("not a Pad node: {node}");
        return 1;
    }
    let raw = std::env::var("PAD_CONFORMANCE_TENSORS").unwrap() == "raw";
    let options = DecodeOptions::default();
    let model = read_model(Path::new(model), &options).unwrap();
    let inputs: Vec<Tensor> = if raw {
        let descriptors: Vec<serde_json::Value> =
            serde_json::from_str(&std::env::var("PAD_CONFORMANCE_INPUTS").unwrap()).unwrap();
        descriptors.iter().map(read_raw_input).collect()
    } else {
        let paths = inputs.iter().map(|path| read_tensor_file(Path::new(path), &options));
        paths.collect::<Result<_, _>>().unwrap()
    };
    let output_dir = Path::new(output_dir);
    match RefBackend.run(&model, &inputs) {
        Ok(outputs) => {
            for (k, (tensor, name)) in outputs.iter().zip(&model.graph.outputs).enumerate() {
                if raw {
                    let (dtype, _) = RAW_TYPES.iter().find(|(_, t)| *t == tensor.data_type()).unwrap();
                    let descriptor = serde_json::json!({"dtype": dtype, "shape": tensor.shape()});
                    std::fs::write(output_dir.join(format!("output_{k}.json")), descriptor.to_string()).unwrap();
                    std::fs::write(output_dir.join(format!("output_{k}.bin")), tensor.raw_bytes().unwrap()).unwrap();
                } else {
                    write_tensor_file(&output_dir.join(format!("output_{k}.pb")), tensor, name).unwrap();
                }
            }
            0
        }
        Err(error) => {
            let rule = error.rule().map(|rule| rule.id());
            let reply = serde_json::json!({"rule": rule, "code": "RefError", "message": error.to_string()});
            std::fs::write(output_dir.join("error.json"), reply.to_string()).unwrap();
            match error.kind() {
                ErrorKind::Refused => 65,
                ErrorKind::Unsupported => 69,
                ErrorKind::Failed => 1,
                other => panic!("no exit code for kind {other}"),
            }
        }
    }
}

/// The raw element types the fixture's cases have, by the contract's names.
const RAW_TYPES: [(&str, DataType); 3] = [
    ("float32", DataType::Float),
    ("int32", DataType::Int32),
    ("int64", DataType::Int64),
];

/// A raw input file as its descriptor in PAD_CONFORMANCE_INPUTS says: little-endian elements.
fn read_raw_input(descriptor: &serde_json::Value) -> Tensor {
    let bytes = std::fs::read(descriptor["path"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = serde_json::from_value(descriptor["shape"].clone()).unwrap();
    match descriptor["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &shape,
            bytes
                .chunks(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        ),
        "int32" => Tensor::from_vec(
            &shape,
            bytes
                .chunks(4)
                .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        ),
        "int64" => Tensor::from_vec(
            &shape,
            bytes
                .chunks(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        ),
        other => panic!("no raw {other} here"),
    }
    .unwrap()
}

pub const TESTS: &[(&str, fn())] = &[
    (
        "a_per_case_program_passes_and_refuses_by_its_exit_code",
        a_per_case_program_passes_and_refuses_by_its_exit_code,
    ),
    #[cfg(unix)]
    (
        "each_exit_of_a_per_case_command_has_its_verdict",
        each_exit_of_a_per_case_command_has_its_verdict,
    ),
    #[cfg(unix)]
    (
        "a_per_case_crash_is_retried_and_passes_after_a_crash",
        a_per_case_crash_is_retried_and_passes_after_a_crash,
    ),
    #[cfg(unix)]
    (
        "a_timed_out_per_case_command_takes_its_children_with_it",
        a_timed_out_per_case_command_takes_its_children_with_it,
    ),
    #[cfg(unix)]
    (
        "exec_wrap_keeps_a_crash_behind_a_shell_or_a_python_shim_a_crash",
        exec_wrap_keeps_a_crash_behind_a_shell_or_a_python_shim_a_crash,
    ),
    #[cfg(unix)]
    (
        "each_data_set_has_a_private_scratch_directory_gone_after_it",
        each_data_set_has_a_private_scratch_directory_gone_after_it,
    ),
    #[cfg(unix)]
    (
        "a_long_stderr_keeps_its_first_line_the_error",
        a_long_stderr_keeps_its_first_line_the_error,
    ),
    #[cfg(unix)]
    (
        "a_rerun_keeps_the_run_and_its_script_runs_the_command_again_as_it_was_run",
        a_rerun_keeps_the_run_and_its_script_runs_the_command_again_as_it_was_run,
    ),
    // Only Linux has a subreaper: elsewhere a process that left its session is out of reach.
    #[cfg(target_os = "linux")]
    (
        "what_a_per_case_command_detached_with_setsid_ends_with_its_data_set",
        what_a_per_case_command_detached_with_setsid_ends_with_its_data_set,
    ),
    #[cfg(target_os = "linux")]
    (
        "keep_detached_leaves_what_a_per_case_command_detached_running",
        keep_detached_leaves_what_a_per_case_command_detached_running,
    ),
];

/// The per-case program, given TensorProto or raw files, passes the data sets with outputs
/// and refuses the one that must be refused (exit 65, its rule in error.json); the report
/// names the program.
fn a_per_case_program_passes_and_refuses_by_its_exit_code() {
    let fixture = Fixture::with_must_refuse();
    for scheme in ["exec-per-case", "exec-per-case-raw"] {
        let backend = format!("{scheme}:{} {ARG}", std::env::current_exe().unwrap().display());
        let (code, report) = fixture.check_with(&backend, "60", &[], &[]);
        assert_eq!(code, Some(0), "{report}");
        assert_eq!(report["summary"]["passed"], 3, "{report}");
        let refused = case(&report, MUST_REFUSE);
        let message = refused["message"].as_str().unwrap();
        assert!(message.starts_with("refused as expected: "), "{message}");
        assert_eq!(refused["verdict"]["rule"], "mode-not-in-version", "{refused}");
        let backend = report["backend"].as_str().unwrap();
        assert!(backend.starts_with("exec-per-case:processes"), "{backend}");
    }
}

/// Writes `script` into the fixture and returns the backend that runs it with sh.
#[cfg(unix)]
fn script(fixture: &Fixture, name: &str, script: &str) -> String {
    let path = fixture.dir.path().join(name);
    std::fs::write(&path, script).unwrap();
    format!("exec-per-case:sh {}", path.display())
}

/// 69 is unsupported; another code is a failure with stderr shown; a signal is a crash; an
/// output that is a link to an input, and an error.json that is not valid, are protocol
/// errors — a must-refuse data set is errored, never passed, by them.
#[cfg(unix)]
fn each_exit_of_a_per_case_command_has_its_verdict() {
    let fixture = Fixture::with_must_refuse();
    // Through the shell, the arguments follow as "$@": $2 is OUTPUT_DIR.
    let unsupported = r#"exec-per-case:[ "$PAD_CONFORMANCE_OUTPUT_DIR" = "$2" ] && [ "$PAD_CONFORMANCE_TENSORS" = tensorproto ] && [ "$PAD_CONFORMANCE_MODEL" = "$1" ] && case $PAD_CONFORMANCE_INPUTS in "[\"$3\""*) exit 69;; esac; exit 1; :"#;
    for (backend, status, message) in [
        (
            unsupported.to_owned(),
            "unsupported",
            "says unsupported (kind unsupported): the command exited with 69 (EX_UNAVAILABLE): unsupported",
        ),
        (
            script(&fixture, "fail.sh", "echo 'the kernel threw' >&2; exit 3"),
            "errored",
            "kind failed)",
        ),
        (
            script(&fixture, "fail.sh", "echo 'the kernel threw' >&2; exit 3"),
            "errored",
            ": the command failed: exit code 3\nstderr of the command:\nthe kernel threw",
        ),
        (
            script(&fixture, "crash.sh", "kill -SEGV $$"),
            "errored",
            "worker exited (signal: 11 (SIGSEGV))",
        ),
        (
            script(&fixture, "link.sh", r#"ln -s "$3" "$2/output_0.pb""#),
            "errored",
            "broke the worker protocol",
        ),
        (
            script(&fixture, "link.sh", r#"ln -s "$3" "$2/output_0.pb""#),
            "errored",
            "outside the output directory",
        ),
        (
            script(
                &fixture,
                "short.sh",
                r#"printf '{"dtype": "int32", "shape": [2]}' > "$2/output_0.json"; printf 1234567 > "$2/output_0.bin""#,
            )
            .replace("exec-per-case:", "exec-per-case-raw:"),
            "errored",
            "output_0.bin: raw int32[2]: file of 7 bytes, but the element type and shape call for 8 bytes",
        ),
        (
            script(
                &fixture,
                "bad-error.sh",
                r#"echo '{"rule": 3}' > "$2/error.json"; exit 65"#,
            ),
            "errored",
            "error.json: the error's rule 3 is not a rule id",
        ),
    ] {
        let (_, report) = fixture.check_with(&backend, "60", &[], &[]);
        for id in ["test_edge_pad", MUST_REFUSE] {
            let outcome = case(&report, id);
            assert_eq!(outcome["status"], status, "{backend}: {outcome}");
            let got = outcome["message"].as_str().unwrap();
            assert!(got.contains(message), "{backend}: {got}");
        }
    }
}

/// A command that outlives --timeout errors its data set, and its process group, with the
/// child it started in the background, is killed.
#[cfg(unix)]
fn a_timed_out_per_case_command_takes_its_children_with_it() {
    let fixture = Fixture::new();
    let backend = script(
        &fixture,
        "hang.sh",
        r#"echo $$ >> "$WORKER_PIDS"; sleep 60 & echo $! >> "$WORKER_PIDS"; wait"#,
    );
    let (code, report) = fixture.check_with(&backend, "0.5", &[], &["--filter", "test_edge_pad"]);
    assert_eq!(code, Some(1), "{report}");
    let outcome = case(&report, "test_edge_pad");
    assert_eq!(outcome["status"], "errored", "{outcome}");
    assert!(
        outcome["message"].as_str().unwrap().contains("timed out after 0.5 s"),
        "{outcome}"
    );
    // Fixture::run has checked that both recorded processes are gone.
    let pids = std::fs::read_to_string(fixture.dir.path().join("pids")).unwrap();
    assert_eq!(pids.lines().count(), 2, "{pids}");
}

/// `--retries` reruns a per-case command that crashed: one that crashes once, then answers
/// right twice, passes after a crash.
#[cfg(unix)]
fn a_per_case_crash_is_retried_and_passes_after_a_crash() {
    let fixture = Fixture::new();
    let mark = fixture.dir.path().join("crashed-once");
    let backend = script(
        &fixture,
        "crash-once.sh",
        &format!(
            r#"[ -e "{mark}" ] || {{ touch "{mark}"; kill -SEGV $$; }}; exec {program} {ARG} "$@""#,
            mark = mark.display(),
            program = std::env::current_exe().unwrap().display()
        ),
    );
    let filter = ["--filter", "test_edge_pad", "--retries", "2"];
    let (code, report) = fixture.check_with(&backend, "60", &[], &filter);
    assert_eq!(code, Some(0), "{report}");
    let outcome = case(&report, "test_edge_pad");
    assert_eq!(outcome["status"], "passed", "{outcome}");
    assert!(outcome.to_string().contains("signal: 11"), "{outcome}");
}

/// A per-case command that starts `setsid sleep 300 &` (a session of its own, so its process
/// group's kill misses it) leaves nothing running: the runner adopts the sleep when the command
/// exits and ends it with the data set. Each command first waits (a minute at most) for the
/// sleeps the earlier data sets started to be gone, and fails if one is still running, so an
/// end that waited for the run's would fail the second data set; `run` checks both are gone
/// after the run.
#[cfg(target_os = "linux")]
fn what_a_per_case_command_detached_with_setsid_ends_with_its_data_set() {
    let fixture = Fixture::new();
    let backend = script(
        &fixture,
        "detach.sh",
        &format!(
            r#"deadline=$(( $(date +%s) + 60 ))
for pid in $(cat "$WORKER_PIDS" 2>/dev/null); do
    # Running while /proc has it and its state (after the command name) is not Z.
    while state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) && [ "${{state%% *}}" != Z ]; do
        [ "$(date +%s)" -lt "$deadline" ] || {{ echo "process $pid outlived its data set" >&2; exit 3; }}
        sleep 0.1
    done
done
setsid sleep 300 &
echo $! >> "$WORKER_PIDS"
exec {program} {ARG} "$@""#,
            program = std::env::current_exe().unwrap().display()
        ),
    );
    // The commands may wait a minute: the timeout is not what is tested.
    let (code, report) = fixture.check_with(&backend, "600", &[], &[]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["summary"]["passed"], 2, "{report}");
    // Fixture::run has checked that both recorded sleeps are gone.
    let pids = std::fs::read_to_string(fixture.dir.path().join("pids")).unwrap();
    assert_eq!(pids.lines().count(), 2, "{pids}");
}

/// `--keep-detached`, for a command that starts a long-lived server on purpose: what the
/// command started with `setsid` is still running after the run (the test then kills it).
#[cfg(target_os = "linux")]
fn keep_detached_leaves_what_a_per_case_command_detached_running() {
    /// Kills the kept process however the test ends.
    struct Kill(Option<libc::pid_t>);
    impl Drop for Kill {
        fn drop(&mut self) {
            if let Some(pid) = self.0 {
                // SAFETY: kill(2) on the sleep the test's command started, seen running.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
    let fixture = Fixture::new();
    let kept = fixture.dir.path().join("kept");
    let backend = script(
        &fixture,
        "detach.sh",
        &format!(
            // The sleep writes its pid once in its own session, and the command goes on only
            // then: a command that ended before its child called setsid() had that child killed
            // with its group, rightly, which is a busy machine's order, not --keep-detached's.
            concat!(
                r#"setsid sh -c 'echo $$ > "$1"; exec sleep 300' _ "$KEPT_PID.$$" & "#,
                r#"while [ ! -s "$KEPT_PID.$$" ]; do sleep 0.01; done; mv "$KEPT_PID.$$" "$KEPT_PID"; "#,
                r#"exec {program} {ARG} "$@""#
            ),
            program = std::env::current_exe().unwrap().display(),
            ARG = ARG
        ),
    );
    let env = [("KEPT_PID", kept.to_str().unwrap())];
    let args = ["--filter", "test_edge_pad", "--keep-detached"];
    let (code, report) = fixture.check_with(&backend, "60", &env, &args);
    let pid: libc::pid_t = std::fs::read_to_string(&kept).unwrap().trim().parse().unwrap();
    let mut kill = Kill(None);
    let state = process_state(pid as u32);
    if state.is_some() {
        kill.0 = Some(pid);
    }
    assert_eq!(code, Some(0), "{report}");
    assert!(state.is_some(), "process {pid}, kept by --keep-detached, is gone");
}

/// `pad-conformance exec-wrap` keeps a crash a crash: a program killed by SIGSEGV behind a
/// shell (which exits 139) and behind a Python shim (`sys.exit(subprocess.call(…))` of the
/// return code −11, exit 245, tests/it/python_backends.rs runs the real one) is a crash with
/// signal 11 to the runner; without --shim-codes 245 stays an exit code, and any other code
/// passes through, stderr with it.
#[cfg(unix)]
fn exec_wrap_keeps_a_crash_behind_a_shell_or_a_python_shim_a_crash() {
    let fixture = Fixture::new();
    let write = |name: &str, text: &str| {
        let path = fixture.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let shell = write("shell.sh", "sh -c 'kill -SEGV $$'\nexit $?\n");
    let shim = write("shim.sh", "exit 245\n");
    let code = write("code.sh", "echo 'the kernel threw' >&2; exit 3\n");
    let wrap = env!("CARGO_BIN_EXE_pad-conformance");
    for (script, options, failure, message) in [
        (
            &shell,
            "",
            serde_json::json!({"crash": {"signal": 11}}),
            "(signal: 11 (SIGSEGV))",
        ),
        (
            &shim,
            "--shim-codes",
            serde_json::json!({"crash": {"signal": 11}}),
            "(signal: 11 (SIGSEGV))",
        ),
        (
            &shim,
            "",
            serde_json::json!("reported"),
            "the command failed: exit code 245",
        ),
        (
            &code,
            "--shim-codes",
            serde_json::json!("reported"),
            "the command failed: exit code 3\nstderr of the command:\nthe kernel threw",
        ),
    ] {
        let backend = format!("exec-per-case:{wrap} exec-wrap {options} -- sh {}", script.display());
        let (code, report) = fixture.check_with(&backend, "60", &[], &["--filter", "test_edge_pad"]);
        assert_eq!(code, Some(1), "{backend}: {report}");
        // The report names the program exec-wrap runs, not exec-wrap.
        assert_eq!(report["backend"], "exec-per-case:sh", "{report}");
        let outcome = case(&report, "test_edge_pad");
        assert_eq!(outcome["verdict"]["failure"], failure, "{backend}: {outcome}");
        let got = outcome["message"].as_str().unwrap();
        assert!(got.contains(message), "{backend}: {got}");
    }
    // A program exec-wrap cannot start: 127, as a shell says, and the reason on stderr.
    let out = std::process::Command::new(wrap)
        .args(["exec-wrap", "--", "/nonexistent/program"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot run /nonexistent/program"), "{stderr}");
}

/// Each data set's command has `PAD_CONFORMANCE_SCRATCH`: an empty private directory of its
/// own, beside its inputs, which it may write in, gone once the data set is done.
#[cfg(unix)]
fn each_data_set_has_a_private_scratch_directory_gone_after_it() {
    let fixture = Fixture::new();
    let seen = fixture.dir.path().join("seen");
    let backend = script(
        &fixture,
        "scratch.sh",
        &format!(
            r#"s=$PAD_CONFORMANCE_SCRATCH
[ -d "$s" ] && [ -z "$(ls -A "$s")" ] && [ "$(dirname "$s")" = "$(dirname "$3")" ] || exit 1
[ "$(ls -ld "$s" | cut -c1-10)" = drwx------ ] || exit 2
echo compiled > "$s/module.vmfb" && echo "$s" >> "{seen}" && exit 69"#,
            seen = seen.display()
        ),
    );
    let (_, report) = fixture.check_with(&backend, "60", &[], &[]);
    for id in ["test_edge_pad", "test_wrap_pad"] {
        let outcome = case(&report, id);
        assert_eq!(outcome["status"], "unsupported", "{outcome}");
    }
    let seen = std::fs::read_to_string(&seen).unwrap();
    let dirs: Vec<&str> = seen.lines().collect();
    assert_eq!(dirs.len(), 2, "{seen}");
    assert_ne!(dirs[0], dirs[1], "one directory per data set");
    for dir in dirs {
        assert!(!Path::new(dir).exists(), "{dir} outlived its data set");
    }
}

/// A compiler that prints its error, then 20 KiB of IR, then fails: the message keeps the
/// error line (the first) and the last lines, with the count of what lies between.
#[cfg(unix)]
fn a_long_stderr_keeps_its_first_line_the_error() {
    let fixture = Fixture::new();
    let backend = script(
        &fixture,
        "dump.sh",
        r#"echo "error: 'tensor.pad' op reflect padding of an empty axis" >&2
k=0; while [ $k -lt 800 ]; do echo "  %$k = arith.constant $k : index" >&2; k=$((k+1)); done
echo "compilation failed" >&2; exit 1"#,
    );
    let (_, report) = fixture.check_with(&backend, "60", &[], &["--filter", "test_edge_pad"]);
    let message = case(&report, "test_edge_pad")["message"].as_str().unwrap().to_owned();
    let stderr = message.split_once("\nstderr of the command:\n").unwrap().1;
    assert!(
        stderr.starts_with("error: 'tensor.pad' op reflect padding of an empty axis\n  %0 = "),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("\n  %799 = arith.constant 799 : index\ncompilation failed"),
        "{stderr}"
    );
    assert!(stderr.contains(" bytes …]\n"), "{stderr}");
    assert!(stderr.len() < 17 << 10 && stderr.len() > 15 << 10, "{}", stderr.len());
}

/// A failing data set's `rerun:` line sets PAD_CONFORMANCE_KEEP_RUNS; with it, the run's
/// directory stays, and its command.sh runs the command again with the variables and
/// arguments the run gave it, from anywhere, in a clean environment.
#[cfg(unix)]
fn a_rerun_keeps_the_run_and_its_script_runs_the_command_again_as_it_was_run() {
    let fixture = Fixture::new();
    let got = fixture.dir.path().join("got");
    let backend = script(
        &fixture,
        "fail.sh",
        &format!(
            r#"printf '%s|' "$PAD_CONFORMANCE_NODE" "$PAD_CONFORMANCE_RUNTIME" "$#" "$2" > "{got}"
[ "$1" = "$PAD_CONFORMANCE_MODEL" ] && [ -d "$PAD_CONFORMANCE_SCRATCH" ] && [ -f "$3" ] || exit 4
exit 3"#,
            got = got.display()
        ),
    );
    let kept = fixture.dir.path().join("kept runs");
    let runtime = r#"{"name": "mycc", "version": "0.1"}"#;
    let env = [
        ("PAD_CONFORMANCE_KEEP_RUNS", kept.to_str().unwrap()),
        ("PAD_CONFORMANCE_RUNTIME", runtime),
    ];
    let cases = fixture.dir.path().join("cases");
    let args = [
        "--backend",
        backend.as_str(),
        "--filter",
        "test_edge_pad",
        cases.to_str().unwrap(),
    ];
    let out = fixture.run(&env, &args);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rerun = format!(
        "rerun: PAD_CONFORMANCE_KEEP_RUNS='{}' PAD_CONFORMANCE_RUNTIME='{runtime}' pad-conformance --backend ",
        kept.display()
    );
    assert!(stdout.contains(&rerun), "{stdout}");
    let first = std::fs::read_to_string(&got).unwrap();
    assert!(
        first.contains(r#""op":"Pad""#) && first.contains(&format!("|{runtime}|4|")),
        "{first}"
    );
    let script = kept.join("0/command.sh");
    assert!(first.ends_with(&format!(
        "|{}|",
        kept.join("0/output").canonicalize().unwrap().display()
    )));
    std::fs::remove_file(&got).unwrap();
    let again = std::process::Command::new("sh")
        .arg(&script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .current_dir("/")
        .status()
        .unwrap();
    assert_eq!(again.code(), Some(3), "{}", std::fs::read_to_string(&script).unwrap());
    assert_eq!(std::fs::read_to_string(&got).unwrap(), first);
    // A second run keeps its runs beside the first's, under the next free number.
    fixture.run(&env, &args);
    assert!(kept.join("1/command.sh").is_file() && kept.join("0/command.sh").is_file());
}
