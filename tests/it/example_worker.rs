//! A downstream crate's backend under the command line's verbs, without a hashed path:
//! examples/toy_backend.rs serves its backend as a worker given `worker`, from
//! target/debug/examples/toy_backend, and `pad-conformance` runs it (docs/gating.md).

use std::path::{Path, PathBuf};
use std::process::Command;

/// target/<profile>/examples/toy_backend, built when `cargo test --test it example_worker` ran
/// alone (a whole `cargo test` builds the examples first).
pub(crate) fn toy_worker() -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_owned();
    let path = deps
        .parent()
        .unwrap()
        .join("examples")
        .join(format!("toy_backend{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", "toy_backend"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "cargo build --example toy_backend: {status}");
    }
    path
}

/// Runs the binary from the crate's root: its exit code, stdout and stderr.
pub(crate) fn pad_conformance(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_examples_worker_passes_the_gate_of_its_baseline_on_the_command_line() {
    let backend = format!("exec:{} worker", toy_worker().display());
    let root = Path::new("onnx-testdata/onnx-1.22.0").to_str().unwrap();
    let (code, stdout, stderr) = pad_conformance(&[
        "--backend",
        &backend,
        root,
        "--baseline",
        "examples/toy_backend.baseline.json",
        "--strict",
    ]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    // The worker's own name, and the failures its baseline lists, all known.
    assert!(stdout.contains("constant-only"), "{stdout}");
    let both = format!("{stdout}\n{stderr}");
    assert!(both.contains("6 expected failures, 0 regressions"), "{both}");

    let (code, table, stderr) = pad_conformance(&["matrix", "--backend", "ref", "--backend", &backend, root]);
    assert!(matches!(code, Some(0 | 1)), "{table}\n{stderr}");
    assert!(table.contains("constant-only"), "{table}");
}
