//! `matrix --report`: a backend's row read from the JSON report of its own run is the row a
//! matrix run gives; a report run otherwise than the matrix runs is refused, naming the field.

use crate::support;

use support::files::{arg_of, failing_tree, run};

/// `pad-conformance ARGS`: exit code, stdout and stderr.
fn output(args: &[&str]) -> (Option<i32>, String, String) {
    let out = run(args);
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn a_row_read_from_a_report_is_the_row_a_matrix_run_gives() {
    let tree = failing_tree();
    let data = arg_of(tree.path());
    let report = tree.path().join("ref.json");
    let (code, _, stderr) = output(&[
        "--backend",
        "ref",
        "--format",
        "json",
        "--output",
        arg_of(&report),
        data,
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    let (ran, ran_table, _) = output(&["matrix", "--backend", "ref", "--groups", data]);
    let (read, read_table, stderr) = output(&[
        "matrix",
        "--backend",
        "ref",
        "--report",
        arg_of(&report),
        "--groups",
        data,
    ]);
    assert_eq!((ran, read), (Some(1), Some(1)), "{stderr}");
    assert!(read_table.contains("test_wrap_pad"), "{read_table}");
    assert_eq!(ran_table, read_table);
}

#[test]
fn a_report_run_otherwise_than_the_matrix_runs_is_refused_naming_the_field() {
    let tree = failing_tree();
    let data = arg_of(tree.path());
    let (plain, profiled) = (tree.path().join("plain.json"), tree.path().join("profiled.json"));
    let profile = tree.path().join("profile.toml");
    std::fs::write(&profile, "modes = [\"edge\"]\n").unwrap();
    output(&["--format", "json", "--output", arg_of(&plain), data]);
    output(&[
        "--profile",
        arg_of(&profile),
        "--format",
        "json",
        "--output",
        arg_of(&profiled),
        data,
    ]);
    let refused = |args: &[&str], text: &str| {
        let (code, _, stderr) = output(args);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(text), "{text:?} not in {stderr}");
    };
    refused(
        &["matrix", "--backend", "ref", "--report", arg_of(&profiled), data],
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
            arg_of(&plain),
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
            arg_of(&plain),
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
            arg_of(&plain),
            "--filter",
            "wrap",
            data,
        ],
        "plain.json: selection ",
    );
}
