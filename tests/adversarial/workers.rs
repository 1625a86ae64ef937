//! Misbehaving exec workers, written here in sh (no Python): each is a failure of the worker,
//! never a pass or a refusal, and never a hang; a worker cannot pass by naming a file it did
//! not write; the scratch directory is private and removed; the library leaves the program's
//! signal handlers alone and kills workers only when asked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pad_conformance::backend::{Backend, BackendError, ExecBackend, ExecError, kill_worker_groups};
use pad_conformance::case::{Expected, Patterns, discover};
use pad_conformance::model::{Graph, Model};
use pad_conformance::tensor::{DEFAULT_MAX_BYTES, Tensor};

use super::{GOOD, copy_good};

const WORKER: &str = r#"
read -r hello
printf '%s\n' '{"type":"hello","version":1,"name":"sh-worker"}'
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  out=$(printf '%s' "$line" | sed 's/.*"output_dir":"\([^"]*\)".*/\1/')
  model=$(printf '%s' "$line" | sed 's/.*"model":"\([^"]*\)".*/\1/')
  expected="$(dirname "$model")/test_data_set_0/output_0.pb"
  reply() { printf '{"type":"result","id":%s,"outputs":[%s]}\n' "$id" "$1"; }
  case "$MODE" in
    copy) cp "$expected" "$out/output_0.pb"; reply "\"$out/output_0.pb\"" ;;
    absolute) reply "\"$expected\"" ;;
    link) ln -s "$expected" "$out/output_0.pb"; reply "\"$out/output_0.pb\"" ;;
    relative) reply "\"$RELATIVE\"" ;;
    dotdot) cp "$expected" "$out/../stolen.pb"; reply "\"$out/../stolen.pb\"" ;;
    nul) reply '"a\u0000b"' ;;
    many) cp "$expected" "$out/o.pb"; list="\"$out/o.pb\""; i=1
          while [ $i -lt 64 ]; do list="$list,\"$out/o.pb\""; i=$((i+1)); done; reply "$list" ;;
    huge) truncate -s 5G "$out/output_0.pb"; reply "\"$out/output_0.pb\"" ;;
    longline) head -c 3000000 /dev/zero | tr '\0' x; echo ;;
    twice) printf '{"type":"error","id":%s,"message":"no"}\n{"type":"error","id":%s,"message":"no"}\n' "$id" "$id" ;;
    scratch) printf '{"type":"error","id":%s,"message":"mode %s in %s"}\n' "$id" "$(stat -c %a "$(dirname "$out")")" "$(dirname "$out")" ;;
    hang) touch "$MARK"; sleep 600 ;;
  esac
done
"#;

struct Setup {
    dir: tempfile::TempDir,
    model: Model,
    inputs: Vec<Tensor>,
    expected: Tensor,
}

/// kill_worker_groups kills every worker of the process: the tests that start workers take
/// turns, so that one test's kill does not end another's worker.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn setup() -> (std::sync::MutexGuard<'static, ()>, Setup) {
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    copy_good(&dir.path().join("cases"), GOOD);
    std::fs::write(dir.path().join("worker.sh"), WORKER).unwrap();
    let cases = discover(&[dir.path().join("cases")], &Patterns::default()).unwrap();
    let options = cases[0].decode_options(DEFAULT_MAX_BYTES);
    let model = cases[0].runnable_model(&options).unwrap();
    let data = cases[0].load_data_set(&cases[0].data_sets[0], &options).unwrap();
    let Expected::Outputs(mut outputs) = data.expected else {
        panic!("outputs")
    };
    let setup = Setup {
        dir,
        model,
        inputs: data.inputs,
        expected: outputs.remove(0),
    };
    (turn, setup)
}

impl Setup {
    fn start(&self, mode: &str, timeout: u64) -> ExecBackend {
        let command = format!(
            "MODE={mode} MARK={} RELATIVE={} sh {}",
            self.dir.path().join("mark").display(),
            relative_expected().display(),
            self.dir.path().join("worker.sh").display()
        );
        ExecBackend::start(&command, Duration::from_secs(timeout), DEFAULT_MAX_BYTES).unwrap()
    }
}

/// The good case's expected output by a path relative to the test's working directory.
fn relative_expected() -> PathBuf {
    Path::new("onnx-testdata/onnx-1.22.0/node")
        .join(GOOD)
        .join("test_data_set_0/output_0.pb")
}

#[track_caller]
fn failure(result: Result<Vec<Tensor>, BackendError>) -> String {
    let error = result.expect_err("the worker must not pass");
    match error.downcast_ref::<ExecError>() {
        Some(ExecError::Failed(failure)) => failure.to_string(),
        other => panic!("expected a worker failure, got {other:?}"),
    }
}

#[test]
fn a_worker_that_writes_its_own_output_passes() {
    let (_turn, s) = setup();
    let backend = s.start("copy", 60);
    assert_eq!(
        backend.run(&s.model, &s.inputs).unwrap(),
        std::slice::from_ref(&s.expected)
    );
}

#[test]
fn a_worker_cannot_pass_by_naming_a_file_it_did_not_write() {
    let (_turn, s) = setup();
    assert!(std::env::current_dir().unwrap().join(relative_expected()).is_file());
    for (mode, why) in [
        ("absolute", "outside the output directory"),
        ("link", "outside the output directory"),
        ("relative", "does not resolve"),
        ("dotdot", "outside the output directory"),
        ("nul", "an output path is not a non-empty string without NUL"),
        ("many", "64 outputs named, but the graph has 1"),
        ("huge", "over the limit of 4296015872 bytes for one worker reply"),
        ("longline", "a line longer than 1048576 bytes"),
    ] {
        let backend = s.start(mode, 60);
        let message = failure(backend.run(&s.model, &s.inputs));
        assert!(
            message.contains("protocol error") || mode == "huge",
            "{mode}: {message}"
        );
        assert!(message.contains(why), "{mode}: {message}");
    }
}

// Tens of seconds of waiting on a blocked pipe: a step of .ci/run, not of `cargo test`.
#[test]
#[ignore = "slow: run by .ci/run"]
fn a_worker_that_never_reads_its_input_times_out_instead_of_blocking_the_runner() {
    let (_turn, s) = setup();
    std::fs::write(
        s.dir.path().join("deaf.sh"),
        "read -r hello\necho '{\"type\":\"hello\",\"version\":1}'\nsleep 600\n",
    )
    .unwrap();
    let command = format!("sh {}", s.dir.path().join("deaf.sh").display());
    let backend = ExecBackend::start(&command, Duration::from_secs(1), DEFAULT_MAX_BYTES).unwrap();
    // 3,000 inputs: a request line of ~200 KB, more than a pipe holds, so writing it blocks
    // until the worker reads — which it never does.
    let model = Model {
        graph: Graph {
            inputs: (0..3000).map(|i| format!("input_number_{i}")).collect(),
            outputs: vec!["y".into()],
            ..Graph::default()
        },
        ..s.model.clone()
    };
    let inputs = vec![s.inputs[1].clone(); 3000];
    let message = failure(backend.run(&model, &inputs));
    assert!(message.starts_with("timed out after 1 s"), "{message}");
}

#[test]
fn a_duplicate_reply_costs_the_worker_not_the_next_request() {
    let (_turn, s) = setup();
    let backend = s.start("twice", 60);
    let first = backend.run(&s.model, &s.inputs).unwrap_err();
    // The first request sees its reply, and sees the duplicate if it has arrived already.
    match first.downcast_ref::<ExecError>() {
        Some(ExecError::Refused { message, .. }) => assert_eq!(message, "no"),
        Some(ExecError::Failed(f)) => assert!(f.to_string().contains("a reply nothing asked for"), "{f}"),
        None => panic!("{first}"),
    }
    // The worker holding a stray line is never asked again: the next request gets a fresh
    // worker and its own reply, not the stray one.
    // (Under load a late duplicate may cost the next request its worker instead: a failure,
    // never the stray reply taken as an answer.)
    for _ in 0..3 {
        let next = backend.run(&s.model, &s.inputs).unwrap_err();
        match next.downcast_ref::<ExecError>() {
            Some(ExecError::Refused { message, .. }) => assert_eq!(message, "no"),
            Some(ExecError::Failed(_)) => {}
            None => panic!("{next}"),
        }
    }
}

#[test]
fn the_scratch_directory_is_private_and_removed_with_the_backend() {
    let (_turn, s) = setup();
    let backend = s.start("scratch", 60);
    let refused = backend.run(&s.model, &s.inputs).unwrap_err();
    let Some(ExecError::Refused { message, .. }) = refused.downcast_ref::<ExecError>() else {
        panic!("{refused}")
    };
    let (mode, scratch) = message.split_once(" in ").unwrap();
    assert_eq!(mode, "mode 700");
    assert!(
        Path::new(scratch)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("pad-conformance-"),
        "{scratch}"
    );
    assert!(Path::new(scratch).is_dir());
    drop(backend);
    assert!(!Path::new(scratch).exists(), "{scratch} is left behind");
}

#[test]
fn the_library_installs_no_signal_handler_and_kills_workers_when_asked() {
    let (_turn, s) = setup();
    let backend = s.start("hang", 300);
    // SAFETY: sigaction(2) with a null new action only reads the current one.
    let handler = |signal| unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(signal, std::ptr::null(), &mut current), 0);
        current.sa_sigaction
    };
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        assert_eq!(handler(signal), libc::SIG_DFL, "signal {signal}");
    }
    let mark = s.dir.path().join("mark");
    let killer = std::thread::spawn(move || {
        while !mark.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_worker_groups();
    });
    let message = failure(backend.run(&s.model, &s.inputs));
    killer.join().unwrap();
    assert!(message.starts_with("worker exited (signal: 9"), "{message}");
}
