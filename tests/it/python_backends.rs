//! The real backends under scripts/backends/ — onnxruntime, ONNX's Python reference
//! evaluator, OpenVINO and tinygrad — run as external workers over the vendored upstream
//! cases, gated by their committed baselines (and profiles); and a deliberately broken adapter
//! fails the same gate.
//!
//! The workers need the pinned Python packages. So that `cargo test` needs neither Python nor
//! the network, every test here is ignored there; .ci/run installs the packages and runs them
//! as a step of their own (`cargo test --test it -- --ignored python_backends::`), which fails CI
//! when they fail.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use support::python::python;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the upstream cases through `exec:PYTHON SCRIPT` against `baseline`, strictly.
fn gate(script: &Path, baseline: &str) -> Output {
    gate_with(script, baseline, &[])
}

/// [`gate`], with further arguments (a profile).
fn gate_with(script: &Path, baseline: &str, extra: &[&str]) -> Output {
    let backend = format!("exec:{} {}", python().display(), script.display());
    let baseline = root().join("baselines").join(baseline);
    Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(extra)
        .args([
            "--backend",
            &backend,
            "--strict",
            "--format",
            "json",
            "--filter",
            "onnx-1.*",
        ])
        .arg("--baseline")
        .arg(baseline)
        .arg(root().join("onnx-testdata"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn report(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// The worker passes its baseline gate and, as of the pinned versions, every upstream case
/// (197 data sets: twelve releases, onnx 1.23.2 included).
fn assert_gate_passes(worker: &str, baseline: &str, name: &str) {
    let out = gate(&root().join("scripts/backends").join(worker), baseline);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report = report(&out);
    assert!(
        report["backend"].as_str().unwrap().starts_with(name),
        "{}",
        report["backend"]
    );
    assert_eq!(report["summary"]["passed"], 197, "{}", report["summary"]);
}

#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn onnxruntime_passes_its_baseline_gate() {
    assert_gate_passes("onnxruntime-worker", "onnxruntime.json", "onnxruntime ");
}

#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn the_onnx_reference_passes_its_baseline_gate() {
    assert_gate_passes("onnx-reference-worker", "onnx-reference.json", "onnx-reference ");
}

/// A worker with a profile: its gate passes, and its report names the runtime as data.
fn assert_profiled_gate_passes(worker: &str, runtime: &str) {
    let profile = root().join(format!("baselines/{runtime}.profile.toml"));
    let out = gate_with(
        &root().join("scripts/backends").join(worker),
        &format!("{runtime}.json"),
        &["--profile", profile.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report = report(&out);
    assert_eq!(report["runtime"]["name"], runtime, "{}", report["runtime"]);
    assert!(report["runtime"]["version"].is_string(), "{}", report["runtime"]);
    assert!(
        report["summary"]["passed"].as_u64().unwrap() > 100,
        "{}",
        report["summary"]
    );
}

#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn openvino_passes_its_baseline_gate() {
    assert_profiled_gate_passes("openvino-worker", "openvino");
}

#[test]
#[ignore = "needs the pinned Python packages and clang: .ci/run runs it"]
fn tinygrad_passes_its_baseline_gate() {
    assert_profiled_gate_passes("tinygrad-worker", "tinygrad");
}

/// The kinds the OpenVINO and tinygrad workers reply: the runtime's own checks refuse, what it
/// does not implement is unsupported, and any other exception out of its internals — a
/// TypeError, an IndexError, an assertion — is a failure, never a refusal.
#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn runtime_internals_fail_and_their_checks_refuse() {
    for (worker, cases) in [
        (
            "openvino-worker",
            vec![
                ("RuntimeError('Check failed: pads')", "refused"),
                (
                    "__import__('openvino.frontend').frontend.OpConversionFailure('Pad-25')",
                    "refused",
                ),
                // 2024.0–2026.0 raise a node's failed validation as GeneralFailure.
                (
                    "__import__('openvino.frontend').frontend.GeneralFailure('While validating ONNX node')",
                    "refused",
                ),
                (
                    "__import__('openvino.frontend').frontend.InitializationFailure('x')",
                    "failed",
                ),
                (
                    "__import__('openvino.frontend').frontend.NotImplementedFailure('x')",
                    "unsupported",
                ),
                ("NotImplementedError('x')", "unsupported"),
                ("TypeError('unhashable type')", "failed"),
                ("ValueError('array is not writeable')", "failed"),
                ("RecursionError()", "failed"),
            ],
        ),
        (
            "tinygrad-worker",
            vec![
                ("RuntimeError('input x has mismatch on dim=0')", "refused"),
                ("ValueError('Padding must be less than the dimension')", "refused"),
                ("NotImplementedError(\"op='Pad' is not supported\")", "unsupported"),
                ("AssertionError('shape mismatch')", "failed"),
                ("IndexError('tuple index out of range')", "failed"),
                ("TypeError('unsupported operand')", "failed"),
                ("RecursionError()", "failed"),
            ],
        ),
    ] {
        let raised: Vec<String> = cases.iter().map(|(code, _)| format!("{code:?}")).collect();
        let program = format!(
            r#"import json, runpy
worker = runpy.run_path({path:?}, run_name="worker")
kinds = []
for code in [{raised}]:
    try:
        raise eval(code)
    except Exception as error:
        kinds.append(worker["error_kind"](error))
print(json.dumps(kinds))
"#,
            path = root().join("scripts/backends").join(worker).to_str().unwrap(),
            raised = raised.join(", "),
        );
        let out = Command::new(python()).arg("-c").arg(program).output().unwrap();
        assert!(
            out.status.success(),
            "{worker}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let kinds: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
        let expected: Vec<&str> = cases.iter().map(|(_, kind)| *kind).collect();
        assert_eq!(kinds, expected, "{worker}");
    }
}

/// The report's case of one data set of the extended corpus, run by `backend`.
fn run_extended(backend: &str, data_set: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(["--backend", backend, "--format", "json", "--filter", data_set])
        .arg(root().join("onnx-testdata/extended"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    // 0 or 1: the run finished (1: the data set did not pass); 2 is the runner's own failure.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{data_set}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let case = report(&out)["cases"][0].clone();
    assert!(case.is_object(), "{data_set}: no case in the report");
    case
}

/// The OpenVINO worker runs each data set in a child process: the error's code is the class
/// OpenVINO raised there (here its conversion failure on a rank-0 CenterCropPad), not the
/// worker's wrapper, so that reports group by what the runtime said.
#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn the_openvino_worker_s_code_is_what_openvino_raised() {
    let backend = format!(
        "exec:{} {}",
        python().display(),
        root().join("scripts/backends/openvino-worker").display()
    );
    let case = run_extended(&backend, "test_center_crop_pad_ext_rank0");
    assert_eq!(case["verdict"]["verdict"], "refused-valid", "{case}");
    assert_eq!(case["code"], "OpConversionFailure", "{case}");
    let refusal = case["verdict"]["refusal"].as_str().unwrap();
    assert!(refusal.starts_with("OpConversionFailure: Check"), "{refusal}");
}

#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn a_broken_adapter_fails_the_gate() {
    // onnxruntime's worker with every output replaced by the first input: wrong answers
    // where the baseline expects right ones.
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let broken = dir.path().join("broken-worker");
    let script = format!(
        r#"import runpy, sys
sys.path.insert(0, {package:?})
from pad_conformance import worker
serve = worker.serve
def broken_serve(run, name, *rest, **options):
    def broken(case):
        return [case.inputs[0] for _ in run(case)]
    serve(broken, name + " (broken)", *rest, **options)
worker.serve = broken_serve
runpy.run_path({worker:?}, run_name="__main__")
"#,
        package = root().join("python").to_str().unwrap(),
        worker = root().join("scripts/backends/onnxruntime-worker").to_str().unwrap(),
    );
    std::fs::write(&broken, script).unwrap();
    let out = gate(&broken, "onnxruntime.json");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(report(&out)["backend"].as_str().unwrap().ends_with("(broken)"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("regression: "));
}

/// A worker on python/pad_conformance whose backend raises, on every request, the exception
/// its first argument spells (Python source), from a file of its own (a library's code).
fn raising_worker(dir: &Path) -> std::path::PathBuf {
    let worker = dir.join("raising-worker");
    let script = format!(
        r#"import sys
sys.path.insert(0, {package:?})
from pad_conformance import worker
library = compile("raise " + sys.argv[1], "/elsewhere/backend.py", "exec")
def run(case):
    exec(library, {{}})
worker.serve(run, "raising")
"#,
        package = root().join("python").to_str().unwrap(),
    );
    std::fs::write(&worker, script).unwrap();
    worker
}

/// The Python workers reply `"kind": "failed"` for Python's own failures, which so never pass
/// a data set that must be refused, and keep every other exception a refusal.
#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn python_failures_are_not_refusals() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let worker = raising_worker(dir.path());
    for (raised, status, message) in [
        (
            "MemoryError()",
            "errored",
            "backend raising failed (it reported an internal failure, kind failed), which is not a refusal: MemoryError",
        ),
        (
            "RecursionError('maximum recursion depth exceeded')",
            "errored",
            "backend raising failed (it reported an internal failure, kind failed), which is not a refusal: RecursionError: maximum recursion depth exceeded",
        ),
        // Refusals; since this worker raises on the valid twin too, never verified ones (a
        // failure would be errored, not a refusal at all).
        (
            "ValueError('wrap is not allowed before Pad-19')",
            "not_verified",
            "refusal not verified: its twin test_ext_pad18_err_mode_wrap_twin/0 did not pass (errored, refuses-valid), so backend raising may refuse what it lacks, not the rule: ValueError: wrap is not allowed before Pad-19",
        ),
        (
            // Raised by a library (the backend's code, not the worker's).
            "AssertionError('mode must be constant')",
            "not_verified",
            "refusal not verified: its twin test_ext_pad18_err_mode_wrap_twin/0 did not pass (errored, refuses-valid), so backend raising may refuse what it lacks, not the rule: AssertionError: mode must be constant",
        ),
    ] {
        // Quoted for `sh -c`: the exception's source holds spaces and parentheses.
        let backend = format!("exec:{} {} \"{raised}\"", python().display(), worker.display());
        let case = run_extended(&backend, "test_ext_pad18_err_mode_wrap");
        assert_eq!(case["status"], status, "{raised}: {case}");
        let got = case["message"].as_str().unwrap();
        assert!(got.starts_with(message), "{raised}: {got}");
    }
}

/// pad_conformance.worker.error_kind: Python's failures and the worker's own assertions are "failed";
/// other exceptions, a library's assertion included, "refused".
#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn the_python_protocol_tells_failures_from_refusals() {
    let program = format!(
        r#"import json, os, sys
sys.path.insert(0, {package:?})
from pad_conformance import worker
def kind(code, filename):
    try:
        exec(compile(code, filename, "exec"), {{}})
    except Exception as error:
        return worker.error_kind(error)
elsewhere = "/elsewhere/backend.py"
print(json.dumps([
    kind("raise MemoryError()", elsewhere),
    kind("raise RecursionError()", elsewhere),
    kind("raise SystemError('bad argument to internal function')", elsewhere),
    kind("assert False, 'a bug of the worker'", worker.__file__),
    kind("assert False, 'a check of a library'", elsewhere),
    kind("raise ValueError('Pad-18 does not accept mode wrap')", elsewhere),
    kind("raise RuntimeError('[ONNXRuntimeError] : 10 : INVALID_GRAPH')", elsewhere),
]))
"#,
        package = root().join("python").to_str().unwrap(),
    );
    let out = Command::new(python()).arg("-c").arg(program).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kinds: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        kinds,
        ["failed", "failed", "failed", "failed", "refused", "refused", "refused"]
    );

    // A request the worker cannot read is its failure, never the backend's refusal.
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let mut worker = Command::new(python())
        .arg(raising_worker(dir.path()))
        .arg("ValueError('unreached')")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::io::Write::write_all(worker.stdin.as_mut().unwrap(), b"{\"type\": \"run\", \"id\": 4}\n").unwrap();
    drop(worker.stdin.take());
    let out = worker.wait_with_output().unwrap();
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        reply,
        serde_json::json!({"type": "error", "id": 4, "kind": "failed", "code": "KeyError", "message": "KeyError: 'model'"})
    );
}

/// A pip-installed tool is a Python shim, `sys.exit(subprocess.call([...]))`: its program
/// killed by SIGSEGV leaves it with exit 245 (256 − 11). As a per-case command that is a
/// failure; behind `pad-conformance exec-wrap --shim-codes` it is the crash it was, signal 11.
#[cfg(unix)]
#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn a_python_shim_s_crash_is_a_crash_through_exec_wrap() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let shim = dir.path().join("mycc");
    let script = format!(
        "#!{}\nimport subprocess, sys\nsys.exit(subprocess.call(['sh', '-c', 'kill -SEGV $$']))\n",
        python().display()
    );
    std::fs::write(&shim, script).unwrap();
    let shown = Command::new(python()).arg(&shim).status().unwrap();
    assert_eq!(shown.code(), Some(245), "the shim's own exit code");
    let wrap = env!("CARGO_BIN_EXE_pad-conformance");
    let python = python();
    for (backend, failure, message) in [
        (
            format!("exec-per-case:{} {}", python.display(), shim.display()),
            serde_json::json!("reported"),
            "the command failed: exit code 245",
        ),
        (
            format!(
                "exec-per-case:{wrap} exec-wrap --shim-codes -- {} {}",
                python.display(),
                shim.display()
            ),
            serde_json::json!({"crash": {"signal": 11}}),
            "(signal: 11 (SIGSEGV))",
        ),
    ] {
        let out = Command::new(wrap)
            .args(["--backend", &backend, "--format", "json", "--filter", "test_edge_pad"])
            .arg(root().join("onnx-testdata/onnx-1.22.0"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let report = report(&out);
        let case = &report["cases"][0];
        assert_eq!(case["verdict"]["failure"], failure, "{backend}: {case}");
        assert!(case["message"].as_str().unwrap().contains(message), "{backend}: {case}");
    }
}
