//! A worker in sh (no Python) that answers the good case's request in the way $MODE says,
//! most of them wrong: the misbehaving workers of tests/it/adversarial/workers.rs, and the
//! hanging one that tests/kill_workers.rs kills, and the ones that crash once or on their
//! second request (tests/it/retries.rs).

use std::path::{Path, PathBuf};
use std::time::Duration;

use pad_conformance::testing::{DEFAULT_MAX_BYTES, ExecBackend, Expected, Failure, Patterns, discover, error_failure};
use pad_conformance::{BackendError, Model, Tensor};

use super::good_case::{GOOD, copy_good};

/// The worker, in sh: $MODE says how it answers each request.
pub const WORKER: &str = r#"
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
    # The second request this worker process serves aborts it; every other one answers right.
    second)
      served=$((${served:-0} + 1))
      [ "$served" -eq 2 ] && kill -ABRT $$
      cp "$expected" "$out/output_0.pb"; reply "\"$out/output_0.pb\"" ;;
    # The Nth request over every process of the run, counted in $MARK: the first crashes
    # its worker; later ones answer right, or (vary) right then with other bytes, or
    # (refuse) refuse.
    crashonce|vary|refuse)
      n=$(($(cat "$MARK" 2>/dev/null || echo 0) + 1)); echo $n > "$MARK"
      case "$MODE.$n" in
        *.1) exit 3 ;;
        refuse.*) printf '{"type":"error","id":%s,"message":"no"}\n' "$id" ;;
        vary.3) cp "$(dirname "$model")/test_data_set_0/input_0.pb" "$out/output_0.pb"; reply "\"$out/output_0.pb\"" ;;
        *) cp "$expected" "$out/output_0.pb"; reply "\"$out/output_0.pb\"" ;;
      esac ;;
  esac
done
"#;

/// The good case, loaded, in a scratch directory that holds the worker's script.
pub struct Setup {
    pub dir: tempfile::TempDir,
    pub model: Model,
    pub inputs: Vec<Tensor>,
    pub expected: Tensor,
}

pub fn setup() -> Setup {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    copy_good(&dir.path().join("cases"), GOOD);
    std::fs::write(dir.path().join("worker.sh"), WORKER).unwrap();
    let cases = discover(&[dir.path().join("cases")], &Patterns::default()).unwrap();
    let options = cases[0].decode_options(DEFAULT_MAX_BYTES);
    let model = cases[0].runnable_model(&options).unwrap();
    let data = cases[0].load_data_set(&cases[0].data_sets[0], &options).unwrap();
    let Expected::Outputs(mut outputs) = data.expected else {
        panic!("outputs")
    };
    Setup {
        dir,
        model,
        inputs: data.inputs,
        expected: outputs.remove(0),
    }
}

impl Setup {
    /// The worker in `mode`, with `timeout` seconds for each request.
    pub fn start(&self, mode: &str, timeout: u64) -> ExecBackend {
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
pub fn relative_expected() -> PathBuf {
    Path::new("onnx-testdata/onnx-1.22.0/node")
        .join(GOOD)
        .join("test_data_set_0/output_0.pb")
}

/// The worker failure `result` must be.
#[track_caller]
pub fn failure(result: Result<Vec<Tensor>, BackendError>) -> String {
    let error = result.expect_err("the worker must not pass");
    // A failure the runner saw, not one the worker reported in its reply.
    match error_failure(&error) {
        Some(failure) if failure != Failure::Reported => error.to_string(),
        _ => panic!("expected a worker failure, got {error:?}"),
    }
}
