//! The built binary: exit codes on passing, failing and empty trees, and every report format
//! parsed back.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pad_conformance::Tensor;
use pad_conformance::tensor::{DecodeOptions, read_tensor_file, write_tensor_file};

fn testdata(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata").join(case)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A tree with two cases: test_edge_pad as vendored, and test_wrap_pad with one expected
/// value changed.
fn failing_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    let wrap = dir.path().join("test_wrap_pad");
    copy_dir(&testdata("onnx-1.22.0/node/test_wrap_pad"), &wrap);
    let output = wrap.join("test_data_set_0/output_0.pb");
    let Tensor::Int32(mut values) = read_tensor_file(&output, &DecodeOptions::default()).unwrap() else {
        panic!("test_wrap_pad's output is int32");
    };
    values[[0, 0, 0, 0]] += 1000;
    write_tensor_file(&output, &Tensor::Int32(values), "y").unwrap();
    dir
}

#[test]
fn a_passing_tree_exits_0_with_the_summary_last() {
    let out = run(&[testdata("onnx-1.22.0").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some("23 passed, 0 failed, 0 errored, 0 skipped"));
    assert!(stdout.contains("PASS  node/test_wrap_pad/0  Pad-25"), "{stdout}");
}

#[test]
fn a_failing_tree_exits_1_and_reports_the_difference() {
    let tree = failing_tree();
    let out = run(&[tree.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("FAIL  test_wrap_pad/0  Pad-25"), "{stdout}");
    assert!(stdout.contains("1 of 126 elements differ"), "{stdout}");
    assert!(
        stdout.contains("[0, 0, 0, 0] expected 999 actual -1 (begin padding of axis 2, begin padding of axis 3)"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().last(), Some("1 passed, 1 failed, 0 errored, 0 skipped"));
}

#[test]
fn an_empty_tree_exits_2() {
    let empty = tempfile::tempdir().unwrap();
    let out = run(&[empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no test cases found"));
    let out = run(&["--filter", "no-such-case", testdata("onnx-1.22.0").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn json_report_parses_back() {
    let tree = failing_tree();
    let out = run(&["--format", "json", tree.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["backend"], "ref");
    assert_eq!(
        json["summary"],
        serde_json::json!({"passed": 1, "failed": 1, "errored": 0, "skipped": 0})
    );
    let cases = json["cases"].as_array().unwrap();
    let wrap = cases.iter().find(|c| c["id"] == "test_wrap_pad").unwrap();
    assert_eq!(wrap["data_set"], 0);
    assert_eq!(wrap["op"], "Pad");
    assert_eq!(wrap["domain"], "ai.onnx");
    assert_eq!(wrap["version"], 25);
    assert_eq!(wrap["status"], "failed");
    assert_eq!(wrap["mismatches"], 1);
    assert_eq!(wrap["bit_exact"], false);
    assert!(wrap["message"].as_str().unwrap().contains("expected"));
}

#[test]
fn junit_report_parses_back() {
    let tree = failing_tree();
    let report = tree.path().join("junit.xml");
    let out = run(&[
        "--format",
        "junit",
        "--output",
        report.to_str().unwrap(),
        tree.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let xml = std::fs::read_to_string(&report).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut testcases, mut failures) = (Vec::new(), 0);
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => match e.name().as_ref() {
                b"testcase" => {
                    let name = e.try_get_attribute("name").unwrap().unwrap();
                    testcases.push(String::from_utf8(name.value.to_vec()).unwrap());
                }
                b"failure" => failures += 1,
                _ => {}
            },
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(testcases, ["test_edge_pad/0", "test_wrap_pad/0"]);
    assert_eq!(failures, 1);
}

#[test]
fn markdown_report_lists_what_did_not_pass() {
    let tree = failing_tree();
    let out = run(&["--format", "markdown", tree.path().to_str().unwrap()]);
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(
        markdown.contains("**1 passed, 1 failed, 0 errored, 0 skipped**"),
        "{markdown}"
    );
    let rows: Vec<&str> = markdown.lines().filter(|l| l.starts_with("| failed")).collect();
    assert_eq!(rows.len(), 1);
    assert!(
        rows[0].contains("`test_wrap_pad/0`") && rows[0].contains("Pad-25"),
        "{markdown}"
    );
}

#[test]
fn list_shows_operator_versions() {
    let out = run(&["--list", testdata("onnx-1.14.1").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("node/test_wrap_pad/0  Pad-19  inputs: int32[1, 3, 4, 5] int64[8]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("node/test_center_crop_pad_crop/0  CenterCropPad-18"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 23);
}
