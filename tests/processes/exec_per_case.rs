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
            ": the command failed: exit code 3\nworker stderr:\nthe kernel threw",
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
