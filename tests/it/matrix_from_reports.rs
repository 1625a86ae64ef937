//! `matrix --report`: a backend's row read from the JSON report of its own run is the row a
//! matrix run gives; a report run otherwise than the matrix runs is refused, naming the field.

use crate::support;

use std::path::Path;

use support::files::{copy_dir, run, testdata};

/// test_edge_pad as vendored and test_wrap_pad failing (one expected value changed).
fn tree() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    support::files::failing_wrap(&dir.path().join("test_wrap_pad"));
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `pad-conformance ARGS`: exit code, stdout and stderr.
fn output(args: &[&str]) -> (Option<i32>, String, String) {
    let out = run(args);
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn a_row_read_from_a_report_is_the_row_a_matrix_run_gives() {
    let tree = tree();
    let data = path(tree.path());
    let report = tree.path().join("ref.json");
    let (code, _, stderr) = output(&["--backend", "ref", "--format", "json", "--output", path(&report), data]);
    assert_eq!(code, Some(1), "{stderr}");
    let (ran, ran_table, _) = output(&["matrix", "--backend", "ref", "--groups", data]);
    let (read, read_table, stderr) = output(&[
        "matrix",
        "--backend",
        "ref",
        "--report",
        path(&report),
        "--groups",
        data,
    ]);
    assert_eq!((ran, read), (Some(1), Some(1)), "{stderr}");
    assert!(read_table.contains("test_wrap_pad"), "{read_table}");
    assert_eq!(ran_table, read_table);
}

#[test]
fn a_report_run_otherwise_than_the_matrix_runs_is_refused_naming_the_field() {
    let tree = tree();
    let data = path(tree.path());
    let (plain, profiled) = (tree.path().join("plain.json"), tree.path().join("profiled.json"));
    let profile = tree.path().join("profile.toml");
    std::fs::write(&profile, "modes = [\"edge\"]\n").unwrap();
    output(&["--format", "json", "--output", path(&plain), data]);
    output(&[
        "--profile",
        path(&profile),
        "--format",
        "json",
        "--output",
        path(&profiled),
        data,
    ]);
    let refused = |args: &[&str], text: &str| {
        let (code, _, stderr) = output(args);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(text), "{text:?} not in {stderr}");
    };
    refused(
        &["matrix", "--backend", "ref", "--report", path(&profiled), data],
        "profiled.json: profile \"",
    );
    refused(
        &[
            "matrix",
            "--backend",
            "ref",
            "--retries",
            "2",
            "--report",
            path(&plain),
            data,
        ],
        "plain.json: retries 0, but the matrix runs with 2",
    );
    refused(
        &[
            "matrix",
            "--backend",
            "ref",
            "--backend",
            "ref",
            "--report",
            path(&plain),
            data,
        ],
        "1 --report for 2 --backend",
    );
    // A report of fewer data sets than the matrix's selection.
    refused(
        &[
            "matrix",
            "--backend",
            "ref",
            "--report",
            path(&plain),
            "--filter",
            "wrap",
            data,
        ],
        "plain.json: selection ",
    );
}
