//! Checks the generated corpus `onnx-testdata/extended/` (written by
//! `scripts/gen-extended`) against its `MANIFEST.tsv`:
//!
//! - `generator_reproduces_the_committed_corpus` runs the generator, with the
//!   Python .ci/run sets up (the pinned onnx, numpy and ml_dtypes), into a
//!   temporary directory, and compares every case and file, by sha256,
//!   with the committed manifest, and the generated README.md and
//!   MANIFEST.tsv with the committed ones. It needs Python and, on a fresh
//!   machine, the network, so `cargo test` ignores it; .ci/run runs it as a
//!   step of its own (`--ignored`), which fails CI when it fails.
//! - `committed_corpus_matches_manifest` checks the committed files against
//!   the committed manifest (missing, extra or changed files).

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::manifest::{Files, files_on_disk, parse_manifest};

const HEADER: &str = "case\tfile\tbytes\tsha256";
/// At most this many differences are listed in a failure message.
const MAX_LISTED: usize = 40;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn extended_dir() -> PathBuf {
    repo_root().join("onnx-testdata").join("extended")
}

/// Every file of every case directory (`test_*`) under `root`.
fn corpus_files(root: &Path) -> Files {
    files_on_disk(root, |name| name.starts_with("test_"))
}

/// One message per case or file that differs between `expected` (the
/// manifest) and `actual` (files on disk).
fn compare(expected: &Files, actual: &Files, actual_name: &str) -> Vec<String> {
    let case_of = |key: &String| key.split('/').next().unwrap_or_default().to_owned();
    let expected_cases: std::collections::BTreeSet<_> = expected.keys().map(case_of).collect();
    let actual_cases: std::collections::BTreeSet<_> = actual.keys().map(case_of).collect();
    let mut problems = Vec::new();
    for case in expected_cases.difference(&actual_cases) {
        problems.push(format!("case {case}: in MANIFEST.tsv, missing from {actual_name}"));
    }
    for case in actual_cases.difference(&expected_cases) {
        problems.push(format!("case {case}: in {actual_name}, not in MANIFEST.tsv"));
    }
    for (key, (bytes, sha)) in expected {
        if !actual_cases.contains(&case_of(key)) {
            continue;
        }
        match actual.get(key) {
            None => problems.push(format!("{key}: in MANIFEST.tsv, missing from {actual_name}")),
            Some((b, s)) if b != bytes || s != sha => problems.push(format!(
                "{key}: changed ({actual_name}: {b} bytes, sha256 {s}; MANIFEST.tsv: {bytes} bytes, sha256 {sha})"
            )),
            Some(_) => {}
        }
    }
    for key in actual.keys() {
        if expected_cases.contains(&case_of(key)) && !expected.contains_key(key) {
            problems.push(format!("{key}: in {actual_name}, not in MANIFEST.tsv"));
        }
    }
    problems
}

fn fail_with(problems: &[String], what: &str, hint: &str) {
    if problems.is_empty() {
        return;
    }
    let mut message = format!("{what}: {} difference(s)\n", problems.len());
    for p in problems.iter().take(MAX_LISTED) {
        message.push_str("  ");
        message.push_str(p);
        message.push('\n');
    }
    if problems.len() > MAX_LISTED {
        message.push_str(&format!("  ... and {} more\n", problems.len() - MAX_LISTED));
    }
    message.push_str(hint);
    panic!("{message}");
}

fn read_manifest() -> (String, Files, Vec<String>) {
    let path = extended_dir().join("MANIFEST.tsv");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut problems = Vec::new();
    let files = parse_manifest(
        &text,
        HEADER,
        true,
        |names| format!("{}/{}", names[0], names[1]),
        &mut problems,
    );
    (text, files, problems)
}

#[test]
fn committed_corpus_matches_manifest() {
    let (_, manifest, mut problems) = read_manifest();
    assert!(
        !manifest.is_empty(),
        "onnx-testdata/extended/MANIFEST.tsv lists no file"
    );
    problems.extend(compare(
        &manifest,
        &corpus_files(&extended_dir()),
        "onnx-testdata/extended",
    ));
    fail_with(
        &problems,
        "onnx-testdata/extended does not match its MANIFEST.tsv",
        "Regenerate with scripts/gen-extended",
    );
}

#[test]
#[ignore = "needs the pinned Python packages: .ci/run runs it"]
fn generator_reproduces_the_committed_corpus() {
    let root = repo_root();
    let python = support::python::python();
    let tmp = pad_conformance::testing::scratch_dir().expect("creating a temporary directory");
    let out = tmp.path().join("extended");
    // The refusal rules and the operator table, from the built binary: the generator restates
    // neither.
    let rules = tmp.path().join("rules.json");
    let table = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(["rules", "--format", "json"])
        .output()
        .expect("the binary runs");
    assert!(table.status.success());
    std::fs::write(&rules, &table.stdout).unwrap();
    let output = Command::new(&python)
        .arg(root.join("scripts").join("gen-extended"))
        .arg("--out")
        .arg(&out)
        .arg("--rules")
        .arg(&rules)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("running {} scripts/gen-extended: {e}", python.display()));
    assert!(
        output.status.success(),
        "scripts/gen-extended failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );

    let (manifest_text, manifest, mut problems) = read_manifest();
    problems.extend(compare(&manifest, &corpus_files(&out), "the regenerated corpus"));
    for name in ["MANIFEST.tsv", "README.md"] {
        let generated = fs::read(out.join(name)).unwrap_or_default();
        let committed = if name == "MANIFEST.tsv" {
            manifest_text.clone().into_bytes()
        } else {
            fs::read(extended_dir().join(name)).unwrap_or_default()
        };
        if generated != committed {
            problems.push(format!("{name}: the regenerated file differs from the committed one"));
        }
    }
    fail_with(
        &problems,
        "scripts/gen-extended does not reproduce onnx-testdata/extended",
        "If the generator changed on purpose, regenerate with scripts/gen-extended and commit",
    );
}
