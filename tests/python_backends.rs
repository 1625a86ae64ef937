//! The real backends under scripts/backends/ — onnxruntime and ONNX's Python reference
//! evaluator — run as external workers over the vendored upstream cases, gated by their
//! committed baselines; and a deliberately broken adapter fails the same gate.
//!
//! The workers need the pinned Python packages. So that `cargo test` needs neither Python nor
//! the network, every test here is ignored there; .ci/run installs the packages and runs them
//! as a step of their own (`cargo test --test python_backends -- --ignored`), which fails CI
//! when they fail.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::python::python;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the upstream cases through `exec:PYTHON SCRIPT` against `baseline`, strictly.
fn gate(script: &Path, baseline: &str) -> Output {
    let backend = format!("exec:{} {}", python().display(), script.display());
    let baseline = root().join("baselines").join(baseline);
    Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
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

#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn a_broken_adapter_fails_the_gate() {
    // onnxruntime's worker with every output replaced by the first input: wrong answers
    // where the baseline expects right ones.
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken-worker");
    let script = format!(
        r#"import runpy, shutil, sys
sys.path.insert(0, {backends:?})
import protocol
serve = protocol.serve
def broken_serve(name, run):
    def broken(model, inputs, output_dir):
        outputs = run(model, inputs, output_dir)
        for path in outputs:
            shutil.copy(inputs[0], path)
        return outputs
    serve(name + " (broken)", broken)
protocol.serve = broken_serve
runpy.run_path({worker:?}, run_name="__main__")
"#,
        backends = root().join("scripts/backends").to_str().unwrap(),
        worker = root().join("scripts/backends/onnxruntime-worker").to_str().unwrap(),
    );
    std::fs::write(&broken, script).unwrap();
    let out = gate(&broken, "onnxruntime.json");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(report(&out)["backend"].as_str().unwrap().ends_with("(broken)"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("regression: "));
}
