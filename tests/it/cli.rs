//! The built binary: exit codes on passing, failing and empty trees, and every report format
//! parsed back.

use crate::support;

#[cfg(unix)]
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pad_conformance::Tensor;
use pad_conformance::testing::{DecodeOptions, read_tensor_file, write_tensor_file};
use support::files::{copy_dir, failing_tree, run, testdata};
#[cfg(unix)]
use support::hanging_worker::interrupt_in_request;

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
    let empty = pad_conformance::testing::scratch_dir().unwrap();
    let out = run(&[empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no test cases found"), "{stderr}");
    // It says what a case is, and how to name others.
    assert!(
        stderr.contains("a case is a directory holding model.onnx named test_*_pad*")
            && stderr.contains("--pattern GLOB"),
        "{stderr}"
    );
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
        serde_json::json!({"passed": 1, "failed": 1, "errored": 0, "skipped": 0, "unsupported": 0, "not_verified": 0, "not_gating": 0, "lossy": 0, "notes": 0})
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
    // Upstream cases rest on the spec, and a spec failure gates.
    assert_eq!(wrap["basis"]["kind"], "spec");
    assert_eq!(wrap["gates"], true);
}

/// `failing_tree`, with the failing case marked as resting on `basis` by a case.json.
fn failing_tree_on(basis: &str) -> tempfile::TempDir {
    let tree = failing_tree();
    let info = format!(
        r#"{{"op": "Pad", "domain": "", "version": 25, "mode": "wrap", "dtype": "int32", "expect": "output",
            "basis": {{"kind": "{basis}", "section": "docs/semantics.md#wrap-mode"}}}}"#
    );
    std::fs::write(tree.path().join("test_wrap_pad/case.json"), info).unwrap();
    tree
}

#[test]
fn data_sets_outside_the_profile_are_unsupported_never_failed() {
    let tree = failing_tree();
    let profile = tree.path().join("profile.toml");
    // test_wrap_pad fails; its Pad-25 int32 wrap is outside this profile.
    std::fs::write(&profile, "modes = [\"constant\", \"edge\"]\n").unwrap();
    let out = run(&["--profile", profile.to_str().unwrap(), tree.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("UNSUP test_wrap_pad/0"), "{stdout}");
    assert!(stdout.contains("outside the backend's profile: mode wrap"), "{stdout}");
    assert!(
        stdout
            .trim_end()
            .ends_with("1 passed, 0 failed, 0 errored, 0 skipped, 1 unsupported"),
        "{stdout}"
    );
    // A malformed profile is a usage error naming the file and the field.
    std::fs::write(&profile, "modes = [\"mirror\"]\n").unwrap();
    let out = run(&["--profile", profile.to_str().unwrap(), tree.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("profile.toml: modes: unknown mode \"mirror\""),
        "{stderr}"
    );
}

#[test]
fn a_model_newer_than_the_profile_reads_is_unsupported_before_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile.toml");
    // onnx 1.14.1 writes IR 9 and opset 19, onnx 1.16.2 IR 10 and opset 21.
    std::fs::write(&profile, "max_ir_version = 9\n").unwrap();
    let cases = [
        testdata("onnx-1.14.1/node/test_edge_pad"),
        testdata("onnx-1.16.2/node/test_edge_pad"),
    ];
    let args = |profile: &std::path::Path| {
        let mut args = vec!["--profile".to_owned(), profile.display().to_string()];
        args.extend(cases.iter().map(|c| c.display().to_string()));
        args
    };
    let out = run(&args(&profile).iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("outside the backend's profile: IR version 10 (the backend reads up to 9)"),
        "{stdout}"
    );
    assert!(
        stdout
            .trim_end()
            .ends_with("1 passed, 0 failed, 0 errored, 0 skipped, 1 unsupported"),
        "{stdout}"
    );
    // The opset decides as well: opset 19 is past 18, opset 21 past it too.
    std::fs::write(&profile, "[max_opset]\n\"ai.onnx\" = 18\n").unwrap();
    let out = run(&args(&profile).iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("opset 19 of ai.onnx (the backend reads up to 18)"),
        "{stdout}"
    );
    assert!(
        stdout
            .trim_end()
            .ends_with("0 passed, 0 failed, 0 errored, 0 skipped, 2 unsupported"),
        "{stdout}"
    );
}

#[test]
fn failures_gate_by_basis() {
    let rule = failing_tree_on("rule");
    let path = rule.path().to_str().unwrap();
    // By default only spec and reference gate: the rule failure is reported, counted apart.
    let out = run(&[path]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // Labelled as what it is: no `FAIL` that the count of failed leaves out.
    assert!(stdout.starts_with("PASS  test_edge_pad/0 "), "{stdout}");
    assert!(stdout.contains("\nWARN  test_wrap_pad/0  Pad-25  rule"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains("(not gating)"), "{stdout}");
    assert!(stdout.contains("basis: rule (docs/semantics.md#wrap-mode)"), "{stdout}");
    assert!(
        stdout
            .trim_end()
            .ends_with("1 passed, 0 failed, 0 errored, 0 skipped, 1 not gating"),
        "{stdout}"
    );
    // Asked to gate on rules too, it fails the run.
    let out = run(&["--basis", "spec,reference,rule", path]);
    assert_eq!(out.status.code(), Some(1));
    // Gating on the spec alone lets a reference failure through as well.
    let reference = failing_tree_on("reference");
    assert_eq!(run(&[reference.path().to_str().unwrap()]).status.code(), Some(1));
    assert_eq!(
        run(&["--basis", "spec", reference.path().to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    // An undefined corner never gates, and cannot be asked to.
    let undefined = failing_tree_on("undefined");
    let all = ["--basis", "spec,reference,rule", undefined.path().to_str().unwrap()];
    assert_eq!(run(&all).status.code(), Some(0));
    let out = run(&["--basis", "undefined", path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("undefined cannot gate"));
}

/// A crash fails the run whatever the data set's basis: the basis says which answer is
/// right, and no basis makes dying right.
#[cfg(unix)]
#[test]
fn a_crash_gates_on_every_basis_where_a_wrong_answer_does_not() {
    // The second command's own shell dies of the signal; the shell the runner put in front
    // of it reports that as exit code 139, which the runner reads back as the crash it is.
    for (basis, command) in [
        ("rule", "exec-per-case:kill -SEGV $$"),
        ("undefined", "exec-per-case:kill -SEGV $$"),
        ("rule", "exec-per-case:sh -c 'kill -SEGV $$'"),
        ("undefined", "exec-per-case:sh -c 'kill -SEGV $$'"),
    ] {
        let tree = failing_tree_on(basis);
        let path = tree.path().to_str().unwrap();
        let out = run(&["--backend", command, "--filter", "test_wrap_pad", path]);
        let stdout = String::from_utf8(out.stdout).unwrap();
        let basis = format!("{basis}, {command}");
        assert_eq!(out.status.code(), Some(1), "{basis}: {stdout}");
        assert!(
            stdout.contains("crashed: worker exited (signal: 11 (SIGSEGV))"),
            "{basis}: {stdout}"
        );
        assert!(!stdout.contains("(not gating)"), "{basis}: {stdout}");
        assert!(
            stdout.trim_end().ends_with("0 passed, 0 failed, 1 errored, 0 skipped"),
            "{basis}: {stdout}"
        );
    }
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
    assert_eq!(stdout.lines().count(), 24);
    assert_eq!(
        stdout.lines().last(),
        Some("total: 23 data sets (0 must be refused) in 23 cases; 0 not applicable; 0 failed to load")
    );
}

/// `--filter` repeats (any selects), `--skip` removes, and `--shard` takes a part of what they
/// select; `--list` lists exactly the data sets such a run holds.
#[test]
fn list_shows_what_filters_skips_and_shards_select() {
    let root = testdata("onnx-1.14.1");
    let root = root.to_str().unwrap();
    let names = |args: &[&str]| -> Vec<String> {
        let out = run(&[&["--list"], args, &[root]].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        stdout
            .lines()
            .filter(|l| !l.starts_with("total: "))
            .map(|l| l.split("  ").next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(&["--filter", "_wrap_", "--filter", "_edge_"]),
        ["node/test_edge_pad/0", "node/test_wrap_pad/0"]
    );
    assert_eq!(
        names(&["--filter", "_wrap_", "--filter", "_edge_", "--skip", "edge"]),
        ["node/test_wrap_pad/0"]
    );
    let constant = names(&["--filter", "constant", "--skip", "*axes*"]);
    assert_eq!(constant, ["node/test_constant_pad/0"]);
    // Twelve CenterCropPad cases, six of them expanded; the glob skip leaves the other six.
    assert_eq!(names(&["--filter", "center_crop"]).len(), 12);
    assert_eq!(names(&["--filter", "center_crop", "--skip", "*_expanded/*"]).len(), 6);
    // The parts of a selection are the selection, each data set in one.
    let mut parts = [
        names(&["--skip", "center_crop", "--shard", "1/2"]),
        names(&["--skip", "center_crop", "--shard", "2/2"]),
    ]
    .concat();
    parts.sort();
    let mut whole = names(&["--skip", "center_crop"]);
    whole.sort();
    assert_eq!((parts.len(), parts), (11, whole));
    // Selecting nothing is an error that says which option emptied it.
    let out = run(&["--list", "--filter", "nothing", "--filter", "none", root]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no data set matches --filter \"nothing\" or --filter \"none\""),
        "{}",
        stderr(&out)
    );
    let out = run(&["--list", "--filter", "_wrap_", "--skip", "node/", root]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--skip \"node/\" removes all 1 data sets selected"),
        "{}",
        stderr(&out)
    );
}

/// `--list --profile`: each data set marked kept or excluded, with the profile key that
/// excludes it, and the totals; exactly the data sets a run with the profile reports
/// unsupported.
#[test]
fn list_marks_what_the_profile_keeps_and_which_key_excludes_the_rest() {
    let root = testdata("onnx-1.14.1");
    let root = root.to_str().unwrap();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let profile = dir.path().join("profile.toml");
    std::fs::write(
        &profile,
        "modes = [\"constant\", \"reflect\", \"edge\"]\n\
         [inputs]\naxes = \"absent\"\n\
         [[except]]\noperators = [\"CenterCropPad-18\"]\nreason = \"no CenterCropPad kernel\"\n",
    )
    .unwrap();
    let profile = profile.to_str().unwrap();
    let out = run(&["--list", "--profile", profile, root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = |name: &str| stdout.lines().find(|l| l.starts_with(name)).unwrap().to_owned();
    assert_eq!(
        line("node/test_wrap_pad/0"),
        "node/test_wrap_pad/0  Pad-19  inputs: int32[1, 3, 4, 5] int64[8]  profile: excluded by modes: mode wrap"
    );
    assert!(line("node/test_edge_pad/0").ends_with("  profile: kept"), "{stdout}");
    assert!(
        line("node/test_constant_pad_axes/0")
            .ends_with("  profile: excluded by inputs.axes: the axes input (not supported)"),
        "{stdout}"
    );
    // An expanded CenterCropPad with axes is a graph whose Pad takes a computed axes input.
    assert!(
        line("node/test_center_crop_pad_crop_axes_hwc_expanded/0")
            .ends_with("  profile: excluded by inputs.axes: the axes input (not supported)"),
        "{stdout}"
    );
    assert!(
        line("node/test_center_crop_pad_crop_expanded/0").ends_with("  profile: kept"),
        "{stdout}"
    );
    assert!(
        line("node/test_center_crop_pad_crop/0").ends_with("  profile: excluded by except: no CenterCropPad kernel"),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().last(),
        Some(
            "total: 23 data sets (0 must be refused) in 23 cases; 0 not applicable; 0 failed to load; \
             profile: 11 kept, 12 excluded (modes 1, inputs.axes 5, except 6)"
        )
    );
    // The run decides the same: what the listing excludes is what the run reports unsupported.
    let excluded: std::collections::BTreeSet<String> = stdout
        .lines()
        .filter(|l| l.contains("  profile: excluded by "))
        .map(|l| l.split("  ").next().unwrap().to_owned())
        .collect();
    let ran = run(&["--format", "json", "--profile", profile, root]);
    let report: serde_json::Value = serde_json::from_slice(&ran.stdout).unwrap();
    let unsupported: std::collections::BTreeSet<String> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "unsupported")
        .map(|c| format!("{}/{}", c["id"].as_str().unwrap(), c["data_set"]))
        .collect();
    assert_eq!(excluded, unsupported);
}

/// The results of `bench --format json`, checking the format number it carries.
fn bench_results(stdout: &[u8]) -> Vec<serde_json::Value> {
    let report: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    assert_eq!(report["format"], 2, "{report}");
    report["results"].as_array().unwrap().clone()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn list_exits_1_when_a_data_set_fails_to_load_and_labels_each_error() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let wrap = dir.path().join("test_wrap_pad");
    copy_dir(&testdata("onnx-1.14.1/node/test_wrap_pad"), &wrap);
    std::fs::write(wrap.join("test_data_set_0/input_1.pb"), b"\xff\xff\xff").unwrap();
    copy_dir(
        &testdata("onnx-1.14.1/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    let out = run(&["--list", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    // The listing is printed in full: the case that loads is listed as usual; totals last.
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(
        lines[2],
        "total: 1 data set (0 must be refused) in 2 cases; 0 not applicable; 1 failed to load"
    );
    assert_eq!(lines[0], "test_edge_pad/0  Pad-19  inputs: int32[1, 3, 4, 5] int64[8]");
    // The input that decodes is listed, a placeholder stands for the other, and the error
    // follows, naming the file.
    assert!(
        lines[1].starts_with("test_wrap_pad/0  Pad-19  inputs: int32[1, 3, 4, 5] [error]  error in input_1.pb: "),
        "{stdout}"
    );
    assert!(lines[1].contains("malformed protobuf"), "{stdout}");
    assert!(stderr(&out).contains("1 of 2 cases failed to load"), "{}", stderr(&out));
}

#[test]
fn list_reports_tensors_over_the_limit_as_load_errors() {
    let out = run(&[
        "--list",
        "--max-tensor-bytes",
        "100",
        testdata("onnx-1.14.1").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 24);
    let wrap = stdout.lines().find(|l| l.starts_with("node/test_wrap_pad/0")).unwrap();
    assert_eq!(
        wrap,
        "node/test_wrap_pad/0  Pad-19  inputs: [error] int64[8]  \
         error in input_0.pb: tensor \"x\": dims [1, 3, 4, 5] of int32 need 240 bytes, over the limit of 100  \
         error in output_0.pb: tensor \"y\": dims [1, 3, 6, 7] of int32 need 504 bytes, over the limit of 100"
    );
}

#[test]
fn list_exits_1_on_a_gap_in_file_numbering() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let wrap = dir.path().join("test_wrap_pad");
    copy_dir(&testdata("onnx-1.14.1/node/test_wrap_pad"), &wrap);
    let data_set = wrap.join("test_data_set_0");
    std::fs::rename(data_set.join("output_0.pb"), data_set.join("output_1.pb")).unwrap();
    let out = run(&["--list", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("test_wrap_pad/0  Pad-19  error: "), "{stdout}");
}

#[test]
fn tolerances_must_be_finite_and_not_negative() {
    let tree = testdata("onnx-1.22.0");
    for args in [
        ["--rtol", "nan"],
        ["--rtol", "inf"],
        ["--rtol", "-0.5"],
        ["--atol", "-1"],
        ["--atol", "NaN"],
        ["--atol", "-inf"],
    ] {
        // `--atol=-inf`: a leading `-i` would read as a flag in `--atol -inf`.
        let out = if args[1] == "-inf" {
            run(&[&format!("{}={}", args[0], args[1]), tree.to_str().unwrap()])
        } else {
            run(&[args[0], args[1], tree.to_str().unwrap()])
        };
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let message = stderr(&out);
        assert!(
            message.contains(&format!("invalid value '{}' for '{} ", args[1], args[0]))
                && message.contains("is not a finite number zero or more"),
            "{args:?}: {message}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing runs");
    }
    let out = run(&["matrix", "--backend", "ref", "--rtol", "nan", tree.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a finite number zero or more"));
    // Zero is a tolerance (exact comparison of values).
    let out = run(&[
        "--rtol",
        "0",
        "--atol",
        "0",
        "--filter",
        "test_wrap_pad",
        tree.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some("1 passed, 0 failed, 0 errored, 0 skipped"));
}

#[test]
fn matrix_refuses_a_format_it_does_not_write_before_running_anything() {
    let out = run(&[
        "matrix",
        "--backend",
        "ref",
        "--format",
        "human",
        "--filter",
        "wrap_pad",
        testdata("onnx-1.22.0").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("invalid value 'human' for '--format <FORMAT>'"),
        "{message}"
    );
    assert!(message.contains("[possible values: markdown, json, html]"), "{message}");
    assert!(!message.contains("passed"), "no backend ran: {message}");
    assert!(out.stdout.is_empty());
    let help = words(&run(&["matrix", "--help"]).stdout);
    assert!(help.contains("[possible values: markdown, json, html]"), "{help}");
    assert!(!help.contains("junit") && !help.contains("human"), "{help}");
}

#[test]
fn bench_refuses_a_format_it_does_not_write() {
    let out = run(&["bench", "--format", "junit"]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("invalid value 'junit' for '--format <FORMAT>'"),
        "{message}"
    );
    assert!(message.contains("[possible values: human, json]"), "{message}");
    assert!(out.stdout.is_empty());
    let help = words(&run(&["bench", "--help"]).stdout);
    assert!(help.contains("[possible values: human, json]"), "{help}");
    assert!(!help.contains("junit") && !help.contains("markdown"), "{help}");
}

/// `--help`'s words, one space apart: clap wraps them to the terminal's width (100 columns for
/// a pipe), wherever a line ends.
fn words(help: &[u8]) -> String {
    let help = String::from_utf8_lossy(help);
    help.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `--help` fits the terminal's width (`COLUMNS` when it is no terminal), breaking no word, and
/// says what the exit codes mean.
#[test]
fn help_is_wrapped_to_the_terminal_and_tells_the_exit_codes() {
    for (command, columns) in [
        (&[][..], 80),
        (&["matrix"][..], 80),
        (&[][..], 120),
        (&["fuzz"][..], 120),
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let out = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(&args)
            .env("COLUMNS", columns.to_string())
            .output()
            .unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let long: Vec<&str> = help.lines().filter(|l| l.chars().count() > columns).collect();
        assert!(long.is_empty(), "{command:?} at {columns} columns: {long:#?}");
        // Narrower than before: wrapped, not cut (the words are all there).
        assert!(help.lines().count() > 10, "{help}");
    }
    let help = words(&run(&["--help"]).stdout);
    assert!(
        help.contains("Exit status: 0 when nothing failed or errored on a gating basis (--basis); unsupported, skipped and not-gating data sets and unverified refusals never fail a run."),
        "{help}"
    );
    assert!(!help.contains("every data set passed"), "{help}");
    assert!(help.contains("--color <WHEN>"), "{help}");
}

/// Runs the binary with `args` and checks it exits 2 saying `text` on standard error.
fn assert_refused(args: &[&str], text: &str) -> Output {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(text), "{}", stderr(&out));
    out
}

#[test]
fn bench_refuses_counts_out_of_bounds_before_running() {
    // Past the bound, a repetition count made a vector of that capacity (a panic, exit 101), and
    // a scaling corpus was written until the disk or the patience ran out; 0 timed runs
    // reported a warm-up as a median.
    for (args, said) in [
        (
            &["bench", "--repetitions", "18446744073709551615"][..],
            "18446744073709551615 timed runs: give 1 to 10000",
        ),
        (&["bench", "--repetitions", "0"][..], "0 timed runs: give 1 to 10000"),
        (
            &["bench", "--scaling", "--data-sets", "10,18446744073709551615"][..],
            "18446744073709551615 data sets: give 1 to 1000000",
        ),
    ] {
        assert_refused(args, said);
    }
}

#[test]
fn bench_refuses_shapes_over_the_memory_limit_before_allocating() {
    let out = assert_refused(&["bench", "--shape", "100000,100000,100000", "--repetitions", "1"], "");
    assert_eq!(
        stderr(&out).trim_end(),
        "pad-conformance: the input of shape [100000, 100000, 100000] needs 4000000000000000 bytes, \
         over the limit of 2147483648 bytes (--max-tensor-bytes)"
    );
    // An element count that overflows is refused the same way.
    let huge = format!("{},{},4", usize::MAX / 2, usize::MAX / 2);
    assert_refused(
        &["bench", "--shape", &huge, "--repetitions", "1"],
        "overflows the addressable size",
    );
    // The limit is an option; a small input over it is refused too.
    let small = |limit| {
        [
            "bench",
            "--shape",
            "1,4,8,8",
            "--max-tensor-bytes",
            limit,
            "--repetitions",
            "1",
        ]
    };
    assert_refused(
        &small("1000"),
        "the input of shape [1, 4, 8, 8] needs 1024 bytes, over the limit of 1000 bytes",
    );
    // Within the limit, an output over it is refused: [1, 4, 8, 8] padded by 2 is 2304 bytes.
    assert_refused(
        &small("1500"),
        "the Pad constant output of shape [1, 4, 12, 12] needs 2304 bytes, over the limit of 1500",
    );
    assert_refused(
        &["bench", "--decode", "--decode-mib", "4096", "--repetitions", "1"],
        "--decode-mib 4096 is over the limit of 2147483648 bytes",
    );
}

#[test]
fn bench_refuses_configurations_with_nothing_to_time() {
    let out = assert_refused(
        &["bench", "--shape", "0", "--mode", "constant", "--repetitions", "1"],
        "the input shape [0] has no elements: there is nothing to time",
    );
    assert!(out.stdout.is_empty(), "no table, no NaN");
    assert_refused(
        &[
            "bench",
            "--shape",
            "1,4,8,8",
            "--center-crop-shape",
            "1,4,8,0",
            "--repetitions",
            "1",
        ],
        "the CenterCropPad output has shape [1, 4, 8, 0], with no elements",
    );
    assert_refused(
        &["bench", "--shape", "4,4", "--pads", "0,-4,0,0", "--repetitions", "1"],
        "has shape [4, 0], with no elements",
    );
    assert_refused(
        &["bench", "--decode", "--decode-mib", "0"],
        "--decode-mib 0: there is nothing to time",
    );
}

#[test]
fn bench_skips_a_degenerate_default_center_crop_saying_why() {
    let out = run(&["bench", "--shape", "1,4,8,8", "--format", "json", "--repetitions", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "skipping CenterCropPad: its default target [1, 4, 16, 0] for shape [1, 4, 8, 8] has an empty axis"
        ),
        "{}",
        stderr(&out)
    );
    let rows = bench_results(&out.stdout);
    let modes: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["op"].as_str().unwrap(), r["mode"].as_str().unwrap()))
        .collect();
    assert_eq!(
        modes,
        [
            ("Pad", "constant"),
            ("Pad", "edge"),
            ("Pad", "reflect"),
            ("Pad", "wrap")
        ]
    );
    for row in &rows {
        assert_eq!(row["shape"], serde_json::json!([1, 4, 8, 8]));
        for figure in [
            "/gbps",
            "/memcpy_gbps",
            "/stream_copy_gbps",
            "/copy_gbps",
            "/ratio",
            "/fresh/gbps",
            "/fresh/copy_gbps",
            "/fresh/ratio",
        ] {
            let value = row.pointer(figure).and_then(serde_json::Value::as_f64);
            assert!(value.is_some_and(|v| v.is_finite() && v > 0.0), "{figure}: {row}");
        }
        // The baseline is the faster copy.
        let copies = [
            row["memcpy_gbps"].as_f64().unwrap(),
            row["stream_copy_gbps"].as_f64().unwrap(),
        ];
        assert_eq!(row["copy_gbps"].as_f64().unwrap(), copies[0].max(copies[1]), "{row}");
        let goal = if row["mode"] == "constant" { 0.9 } else { 0.85 };
        assert_eq!(row["goal"].as_f64(), Some(goal), "{row}");
    }
}

#[test]
fn coverage_of_a_tree_without_cases_exits_2_naming_it() {
    let empty = pad_conformance::testing::scratch_dir().unwrap();
    let out = run(&["coverage", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no table");
    assert!(
        stderr(&out).contains(&format!("no test cases found under {}", empty.path().display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn broken_data_sets_are_errored_naming_the_file_and_the_rest_run() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let case = |name: &str| {
        let path = dir.path().join(name);
        copy_dir(&testdata("onnx-1.22.0/node/test_edge_pad"), &path);
        path.join("test_data_set_0")
    };
    case("test_good_pad");
    std::fs::remove_file(case("test_missing_output_pad").join("output_0.pb")).unwrap();
    let stray = case("test_stray_input_pad");
    std::fs::copy(stray.join("input_0.pb"), stray.join("input_2.pb")).unwrap();
    let both = case("test_both_pad");
    std::fs::write(both.join("expected_error.txt"), "must be refused\n").unwrap();
    let fifo = case("test_fifo_pad").join("input_1.pb");
    std::fs::remove_file(&fifo).unwrap();
    // Windows has no FIFO in the file system: a directory of the file's name there.
    if cfg!(unix) {
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    } else {
        std::fs::create_dir(&fifo).unwrap();
    }

    let out = run(&["--format", "json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcome = |id: &str| {
        let case = report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        (
            case["status"].as_str().unwrap().to_owned(),
            case["message"].as_str().unwrap().to_owned(),
        )
    };
    assert_eq!(outcome("test_good_pad").0, "passed");
    let expectations = [
        ("test_missing_output_pad", "0 output_K.pb files for 1 graph output (y)"),
        (
            "test_stray_input_pad",
            "3 input_K.pb files for 2 graph inputs (x, pads)",
        ),
        ("test_both_pad", "holds both expected_error.txt and output_K.pb files"),
        ("test_fifo_pad", "input_1.pb: not a regular file"),
    ];
    for (id, text) in expectations {
        let (status, message) = outcome(id);
        assert_eq!(status, "errored", "{id}: {message}");
        assert!(message.contains(id) && message.contains(text), "{id}: {message}");
    }
    // The listing finds the same problems without running anything.
    let listed = run(&["--list", dir.path().to_str().unwrap()]);
    assert_eq!(listed.status.code(), Some(1));
    let listing = String::from_utf8(listed.stdout).unwrap();
    for (id, text) in expectations {
        let line = listing.lines().find(|l| l.starts_with(id)).unwrap();
        assert!(line.contains("error") && line.contains(text), "{line}");
    }
}

#[test]
fn a_baseline_round_trips_for_a_case_without_data_sets_and_under_patterns() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let tree = dir.path().join("tree");
    copy_dir(&testdata("onnx-1.22.0/node/test_edge_pad"), &tree.join("test_edge_pad"));
    let bare = tree.join("test_bare_pad");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::copy(tree.join("test_edge_pad/model.onnx"), bare.join("model.onnx")).unwrap();
    let baseline = dir.path().join("baseline.json");
    let (tree, baseline) = (tree.to_str().unwrap(), baseline.to_str().unwrap());

    let recorded = run(&["--format", "json", "--write-baseline", baseline, tree]);
    assert_eq!(recorded.status.code(), Some(0));
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(baseline).unwrap()).unwrap();
    let names: Vec<&String> = written["expected"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["test_bare_pad/0"]);
    // The entry names the data set the run reports, so it is neither stale nor a regression.
    let gated = run(&["--format", "json", "--baseline", baseline, "--strict", tree]);
    assert_eq!(gated.status.code(), Some(0), "{}", stderr(&gated));
    assert!(stderr(&gated).contains("1 expected failures, 0 regressions, 0 unexpected passes\n"));
    // A pattern that leaves the case undiscovered does not make its entry stale.
    let patterned = run(&["--pattern", "test_edge*", "--baseline", baseline, "--strict", tree]);
    assert_eq!(patterned.status.code(), Some(0), "{}", stderr(&patterned));
}

/// Without a PATH the binary finds cases from any directory: ./onnx-testdata when there is
/// one, else the bundled data (embedded in the binary, unpacked into the cache);
/// $PAD_CONFORMANCE_DATA overrides both.
#[test]
fn without_a_path_the_bundled_cases_are_found_from_any_directory() {
    let elsewhere = pad_conformance::testing::scratch_dir().unwrap();
    let cache = pad_conformance::testing::scratch_dir().unwrap();
    let list = |env: Option<&Path>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pad-conformance"));
        command
            .args(["--list", "--filter", "*test_wrap_pad*"])
            .env("PAD_CONFORMANCE_CACHE", cache.path())
            .current_dir(elsewhere.path());
        match env {
            Some(dir) => command.env("PAD_CONFORMANCE_DATA", dir),
            None => command.env_remove("PAD_CONFORMANCE_DATA"),
        };
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(list(None).contains("onnx-1.22.0/node/test_wrap_pad"), "{}", list(None));
    // From the copy embedded in the binary, unpacked once into the cache.
    // Beside it, only the lock file that unpacks hold while they stage.
    let unpacked: Vec<PathBuf> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(".unpacking.lock"))
        .collect();
    assert_eq!(unpacked.len(), 1, "{unpacked:?}");
    assert!(
        unpacked[0]
            .join("onnx-testdata/onnx-1.22.0/node/test_wrap_pad/model.onnx")
            .is_file()
    );
    let tree = failing_tree();
    let listed = list(Some(tree.path()));
    assert!(listed.starts_with("test_wrap_pad"), "{listed}");
    // A local ./onnx-testdata wins over the bundled data.
    copy_dir(tree.path(), &elsewhere.path().join("onnx-testdata"));
    assert!(list(None).starts_with("test_wrap_pad"));
}

/// test_constant_pad with its first nonzero expected value nudged by one part in 4096: the
/// reference's output differs from it by some ULPs. Returns the tree and how many ULPs apart
/// the two values are.
fn lossy_tree() -> (tempfile::TempDir, u32) {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let case = dir.path().join("test_constant_pad");
    copy_dir(&testdata("onnx-1.22.0/node/test_constant_pad"), &case);
    let output = case.join("test_data_set_0/output_0.pb");
    let Tensor::Float(mut values) = read_tensor_file(&output, &DecodeOptions::default()).unwrap() else {
        panic!("test_constant_pad's output is float");
    };
    let x = values.iter_mut().find(|x| **x != 0.0).unwrap();
    let was = *x;
    *x *= 1.0 + 1.0 / 4096.0;
    let ulps = x.to_bits().abs_diff(was.to_bits());
    write_tensor_file(&output, &Tensor::Float(values), "y").unwrap();
    (dir, ulps)
}

#[test]
fn another_value_fails_by_default_and_tolerances_let_it_pass_visibly() {
    let (tree, ulps) = lossy_tree();
    assert!(ulps > 1000, "one part in 4096 of a float is about 2048 ULPs: {ulps}");
    let path = tree.path().to_str().unwrap();
    // Exact by default: the mismatch names the largest ULP distance and where.
    let out = run(&[path]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(&format!(", max {ulps} ulps at [")), "{stdout}");
    let json: serde_json::Value = serde_json::from_slice(&run(&["--format", "json", path]).stdout).unwrap();
    let deviation = &json["cases"][0]["verdict"]["deviation"];
    assert_eq!(json["cases"][0]["verdict"]["verdict"], "mismatch");
    assert_eq!(deviation["max_ulps"]["ulps"], ulps);
    assert_eq!(deviation["max_ulps"]["output"], 0);
    assert_eq!(deviation["max_ulps"]["index"].as_array().map(Vec::len), Some(4)); // NCHW

    // Within tolerance: passes, and every format says by how much.
    for loosen in [&["--rtol", "1e-3"][..], &["--ulps", &ulps.to_string()]] {
        let args: Vec<&str> = loosen.iter().copied().chain([path]).collect();
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{loosen:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains("Pad-25  ") && stdout.contains("(passed, not bit-identical: max abs error "),
            "{stdout}"
        );
        assert!(stdout.contains(&format!("max {ulps} ulps at output 0 [")), "{stdout}");
        assert_eq!(
            stdout.lines().last(),
            Some("1 passed (1 not bit-identical), 0 failed, 0 errored, 0 skipped")
        );
    }
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["--ulps", "5000", "--format", "json", path]).stdout).unwrap();
    assert_eq!(json["summary"]["lossy"], 1);
    assert_eq!(json["cases"][0]["bit_exact"], false);
    assert_eq!(json["cases"][0]["verdict"]["verdict"], "passed");
    assert_eq!(json["cases"][0]["verdict"]["deviation"]["max_ulps"]["ulps"], ulps);

    let xml = String::from_utf8(run(&["--rtol", "1e-3", "--format", "junit", path]).stdout).unwrap();
    assert!(xml.contains(r#"<property name="lossy-passes" value="1"/>"#), "{xml}");
    assert!(xml.contains("passed, not bit-identical: max abs error "), "{xml}");
    assert!(xml.contains(&format!("max {ulps} ulps at output 0 [")), "{xml}");

    let markdown = String::from_utf8(run(&["--rtol", "1e-3", "--format", "markdown", path]).stdout).unwrap();
    assert!(
        markdown.contains("| passed, not bit-identical | `test_constant_pad/0` | Pad-25 | spec | max abs error "),
        "{markdown}"
    );
    assert!(markdown.contains(&format!("max {ulps} ulps")), "{markdown}");

    // One ULP short fails.
    let out = run(&["--ulps", &(ulps - 1).to_string(), path]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn one_tolerance_model_per_run() {
    let (tree, _) = lossy_tree();
    let path = tree.path().to_str().unwrap();
    for args in [
        &["--rtol", "1e-3", "--ulps", "2"][..],
        &["--atol", "1e-3", "--ulps", "2"],
        &["--exact", "--ulps", "2"],
        &["--exact", "--rtol", "1e-3"],
        &["--exact", "--atol", "0"],
    ] {
        let all: Vec<&str> = args.iter().copied().chain([path]).collect();
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
    // Fuzz and matrix take the same options and refuse the same mixtures.
    let out = run(&["fuzz", "--cases", "1", "--ulps", "1", "--rtol", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
    let out = run(&["fuzz", "--cases", "3", "--ulps", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn matrix_failures_only_says_when_nothing_failed() {
    let out = run(&[
        "matrix",
        "--backend",
        "ref",
        "--failures-only",
        testdata("onnx-1.22.0/node").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let errors = stderr(&out);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.ends_with("\nEvery backend passed all 18 data sets: nothing failed.\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("| data set |"), "{stdout}");
    // Its summary on stderr accounts for every data set.
    assert!(
        errors.contains("ref: 18 data sets: 18 passed, 0 failed, 0 errored, 0 skipped"),
        "{errors}"
    );
}

/// Two backends of one name: the warning comes after the table and before the backends'
/// summaries, which end what the command says.
#[test]
fn matrix_ends_with_its_backends_summaries() {
    let out = run(&[
        "matrix",
        "--backend",
        "ref",
        "--backend",
        "ref",
        testdata("onnx-1.22.0/node").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "pad-conformance: warning: two backends are named ref: the one from ref is shown as ref (2)\n\
         ref: 18 data sets: 18 passed, 0 failed, 0 errored, 0 skipped\n\
         ref (2): 18 data sets: 18 passed, 0 failed, 0 errored, 0 skipped\n"
    );
}

/// `--color`: `auto` colours a pipe only under CLICOLOR_FORCE, and never under NO_COLOR or
/// CLICOLOR=0; `always` and `never` say so whatever the environment; a file is never coloured.
#[test]
fn colour_follows_the_option_then_the_environment() {
    let tree = testdata("onnx-1.22.0/node");
    let coloured = |option: &str, env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pad-conformance"));
        command.args(["--color", option, "--filter", "test_edge_pad/0", tree.to_str().unwrap()]);
        for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
            command.env_remove(name);
        }
        command.envs(env.iter().copied());
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        match stdout.starts_with("\x1b[32mPASS \x1b[0m test_edge_pad/0  Pad-25") {
            true => true,
            false if stdout.starts_with("PASS  test_edge_pad/0  Pad-25") => false,
            false => panic!("{stdout:?}"),
        }
    };
    assert!(!coloured("auto", &[]), "a pipe");
    assert!(coloured("auto", &[("CLICOLOR_FORCE", "1")]));
    assert!(!coloured("auto", &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(coloured("always", &[("NO_COLOR", "1")]));
    assert!(!coloured("never", &[("CLICOLOR_FORCE", "1")]));
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let log = dir.path().join("run.log");
    let out = run(&[
        "--color",
        "always",
        "--output",
        log.to_str().unwrap(),
        tree.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(
        written.starts_with("PASS  ") && !written.contains('\x1b'),
        "{written:?}"
    );
    let refused = run(&["--color", "sometimes", tree.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("[possible values: auto, always, never]"),
        "{}",
        stderr(&refused)
    );
}

/// Standard error is no terminal: while a data set runs, a heartbeat line says how far the run
/// is, every PAD_CONFORMANCE_HEARTBEAT seconds. The per-case command waits until the test has
/// seen one, so nothing here depends on how fast the machine is.
#[test]
fn a_run_writes_a_heartbeat_when_standard_error_is_no_terminal() {
    use std::io::BufRead;
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let go = dir.path().join("go");
    let backend = format!(
        "exec-per-case:while [ ! -e '{}' ]; do sleep 0.01; done; exit 69 #",
        go.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(["--backend", &backend, "--filter", "test_edge_pad/0"])
        .arg(testdata("onnx-1.22.0/node"))
        .env("PAD_CONFORMANCE_HEARTBEAT", "0.05")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = Vec::new();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    // Without a heartbeat the command would wait for its --timeout (60 s), then end: the loop
    // ends with it, and the assertion below fails.
    for line in lines.by_ref() {
        let line = line.unwrap();
        let beat = line.contains(": 0 of 1 data sets done, 0 failing, ");
        said.push(line);
        if beat {
            std::fs::write(&go, "").unwrap();
            break;
        }
    }
    assert!(
        said.last()
            .is_some_and(|l| l.starts_with("pad-conformance: exec-per-case:") && l.ends_with(" in")),
        "{said:?}"
    );
    said.extend(lines.map(Result::unwrap));
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{said:?}");
    // Once the run ends, no more: the summary is last.
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.ends_with("\n0 passed, 0 failed, 0 errored, 0 skipped, 1 unsupported\n"),
        "{stdout}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .arg(testdata("onnx-1.22.0/node"))
        .env("PAD_CONFORMANCE_HEARTBEAT", "often")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("PAD_CONFORMANCE_HEARTBEAT=often: not a number of seconds"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn matrix_groups_lists_failure_groups_and_defects_instead_of_data_sets() {
    let out = run(&[
        "matrix",
        "--backend",
        "ref",
        "--groups",
        testdata("onnx-1.22.0/node").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("| backend | runtime | passed |"), "{stdout}");
    let ref_line = format!(
        "\n| ref | pad-conformance reference {} | 18 | 0 | 0 | 0 | 0 | 0 | 0 | 100.0% | 100.0% |\n",
        env!("CARGO_PKG_VERSION")
    );
    assert!(stdout.contains(&ref_line), "{stdout}");
    assert!(
        stdout.contains(
            "| backend | basis | finding | data sets | root cause — the smallest data set's message (and how many distinct messages the group holds) | smallest data set |"
        ),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "#### Defects, each ready for a bug report\n\nNone: no backend disagrees with the spec's own text.\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("| data set |"), "{stdout}");
}

#[test]
fn a_failure_report_says_where_all_the_differences_are() {
    let tree = failing_tree();
    let stdout = String::from_utf8(run(&[tree.path().to_str().unwrap()]).stdout).unwrap();
    assert!(
        stdout.contains("1 of 126 elements differ; the differing element is in padding; the interior matches\n"),
        "{stdout}"
    );
}

#[test]
fn writing_a_baseline_under_a_filter_keeps_the_entries_not_run() {
    let tree = failing_tree();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let baseline = dir.path().join("baseline.json");
    std::fs::write(
        &baseline,
        r#"{"expected": {"test_edge_pad/0": {"status": "failed", "reason": "by hand"}}}"#,
    )
    .unwrap();
    let out = run(&[
        "--filter",
        "test_wrap_pad",
        "--write-baseline",
        baseline.to_str().unwrap(),
        tree.path().to_str().unwrap(),
    ]);
    // A recording run succeeds once written, failures and all, saying what it wrote.
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains(
            "baseline.json: 2 known failures (2 failed, 0 errored, 0 intermittent crashes); dropped 0 that pass now"
        ),
        "{}",
        stderr(&out)
    );
    let recorded: serde_json::Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
    let names: Vec<&String> = recorded["expected"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["test_edge_pad/0", "test_wrap_pad/0"]);
    assert_eq!(recorded["expected"]["test_edge_pad/0"]["reason"], "by hand");
}

#[test]
fn bench_help_lists_the_element_types_it_times() {
    let help = words(&run(&["bench", "--help"]).stdout);
    assert!(
        help.contains("[possible values: float, double, float16, int8, uint8, int32, int64]"),
        "{help}"
    );
}

/// The synopsis in docs/cli.md names every option each command's --help lists, the README has
/// an example of every command, and none of its examples writes a report outside target/,
/// where it would lie untracked in the checkout.
#[test]
fn the_synopsis_is_complete() {
    let read = |file: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let (readme, cli) = (read("README.md"), read("docs/cli.md"));
    let synopsis = cli.split("## Synopsis").nth(1).unwrap().split("```").nth(1).unwrap();
    // Each command's block: from its `pad-conformance NAME` line to the next command's.
    // The main command's begins with its options (`[--backend …`).
    let block = |name: &str| -> String {
        synopsis
            .split("\npad-conformance ")
            .find(|b| match name {
                "" => b.starts_with('['),
                // `history record`: a subcommand's own line.
                _ => b.starts_with(&format!("{name} ")),
            })
            .unwrap_or_else(|| panic!("no synopsis of {name:?}"))
            .to_owned()
    };
    // An option as a whole word: `--strict` is not found in `--strict-rules`.
    let names = |text: &str, option: &str| {
        text.match_indices(option)
            .any(|(i, _)| !text[i + option.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-'))
    };
    let commands: [&[&str]; 15] = [
        &[],
        &["exec-wrap"],
        &["matrix"],
        &["merge"],
        &["diff"],
        &["coverage"],
        &["rules"],
        &["fuzz"],
        &["fuzz-merge"],
        &["promote"],
        &["bench"],
        &["history", "record"],
        &["history", "write"],
        &["history", "case"],
        &["baseline", "upgrade"],
    ];
    // Every command the binary has: a new one needs its synopsis and example.
    let help = String::from_utf8(run(&["--help"]).stdout).unwrap();
    let mut listed: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|line| !line.trim().is_empty())
        // A command's own line, not the lines its description wraps to.
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    let mut ours: Vec<&str> = commands.iter().filter_map(|c| c.first().copied()).collect();
    ours.sort_unstable();
    ours.dedup();
    listed.sort_unstable();
    assert_eq!(ours, listed);
    for command in commands {
        let mut args = command.to_vec();
        args.push("--help");
        let help = String::from_utf8(run(&args).stdout).unwrap();
        // The options clap lists (the flags that begin its option lines), not those its
        // descriptions and examples name.
        let options: Vec<&str> = help
            .lines()
            // An option's own line (`  -h, --help`, `      --backend`), not a description's
            // wrapped onto a line of its own, indented further.
            .filter(|line| line.trim_start().starts_with('-') && line.len() - line.trim_start().len() <= 6)
            .flat_map(|line| {
                line.split_whitespace()
                    .take_while(|w| w.starts_with('-') || w.starts_with('<') || w.starts_with('['))
            })
            .filter(|w| w.starts_with("--") && !["--help", "--version"].contains(&w.trim_end_matches(',')))
            .map(|w| w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
            .collect();
        // The option lines are read at all.
        assert!(!command.is_empty() || options.len() > 20, "{options:?}");
        let own = block(&command.join(" "));
        // `(and the run's checking options)`: those the main command's synopsis lists.
        let shares = own.contains("(and the run's checking options)");
        for option in options {
            assert!(
                names(&own, option) || (shares && names(&block(""), option)),
                "docs/cli.md's synopsis of {command:?} lacks {option}"
            );
        }
        if let Some(name) = command.first() {
            assert!(
                readme.contains(&format!("pad-conformance {name} ")),
                "no README example of {name}"
            );
        }
    }
    for (i, _) in readme.match_indices("--output ") {
        let path = readme[i + "--output ".len()..].split_whitespace().next().unwrap();
        assert!(
            path.starts_with("target/") || path.starts_with("FILE"),
            "README writes a report to {path}, outside target/"
        );
    }
}

#[test]
fn write_baseline_refuses_a_malformed_baseline_and_leaves_it_untouched() {
    let tree = failing_tree();
    let path = tree.path().join("known.json");
    let malformed = "{\"backend\": \"ref\", \"expected\": {},}\n";
    std::fs::write(&path, malformed).unwrap();
    let out = run(&[
        "--write-baseline",
        path.to_str().unwrap(),
        tree.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("known.json"), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "the run must not start");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), malformed);
    // Absent, it is written (atomically: nothing else is left beside it).
    std::fs::remove_file(&path).unwrap();
    let out = run(&[
        "--write-baseline",
        path.to_str().unwrap(),
        tree.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["expected"]["test_wrap_pad/0"]["status"], "failed");
    let names: Vec<String> = std::fs::read_dir(tree.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // Windows locks a file, not the directory, and leaves it (docs/gating.md).
        .filter(|n| n.starts_with('.') && !(cfg!(windows) && n == ".pad-conformance.lock"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// SIGINT stops the run: no further data set starts, the workers are killed, and the report
/// of the data sets that finished is written (exit 130), not lost. The data set under way,
/// whose worker the runner killed, is no verdict on the backend: it is left out.
#[cfg(unix)]
#[test]
fn an_interrupted_run_still_writes_its_report() {
    let tree = failing_tree();
    let report = tree.path().join("report.json");
    let args = [
        OsStr::new("--format"),
        "json".as_ref(),
        "--output".as_ref(),
        report.as_ref(),
        tree.path().as_ref(),
    ];
    let (out, stderr) = interrupt_in_request(args, libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: 0 of 2 data sets ran"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["cases"].as_array().map(Vec::len), Some(0), "{json}");
    // The report says it is incomplete, so that no merge takes it for a whole part.
    assert_eq!(json["run"]["complete"], false, "{json}");
    let merged = run(&[
        "merge",
        report.to_str().unwrap(),
        "--data",
        tree.path().to_str().unwrap(),
    ]);
    assert_eq!(
        merged.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
}

#[test]
fn bench_end_to_end_times_a_whole_data_set_against_both_copies() {
    let out = run(&[
        "bench",
        "--end-to-end",
        "--shape",
        "3,40,40",
        "--mode",
        "reflect",
        "--format",
        "json",
        "--repetitions",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = bench_results(&out.stdout);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        (row["op"].as_str(), row["mode"].as_str()),
        (Some("end-to-end"), Some("reflect"))
    );
    assert_eq!(row["goal"].as_f64(), Some(0.25));
    assert!(row["fresh"].is_null(), "{row}");
    let ratio = row["gbps"].as_f64().unwrap() / row["copy_gbps"].as_f64().unwrap();
    assert!((row["ratio"].as_f64().unwrap() - ratio).abs() < 1e-9, "{row}");
}

#[test]
fn bench_scaling_runs_each_corpus_size_it_is_given() {
    let out = run(&["bench", "--scaling", "--data-sets", "12,30", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = bench_results(&out.stdout);
    let sizes: Vec<u64> = rows.iter().map(|r| r["data_sets"].as_u64().unwrap()).collect();
    assert_eq!(sizes, [12, 30]);
    assert_eq!(rows[0]["relative"].as_f64(), Some(1.0));
    for row in &rows {
        for figure in ["per_data_set_us", "check_us", "overhead_us", "relative"] {
            assert!(
                row[figure].as_f64().is_some_and(|v| v.is_finite() && v > 0.0),
                "{figure}: {row}"
            );
        }
    }
    // Refused before any corpus is written, wherever the 0 stands.
    let refused = run(&["bench", "--scaling", "--data-sets", "20,0"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("0 data sets: give 1 to 1000000"),
        "{}",
        stderr(&refused)
    );
    assert!(refused.stdout.is_empty());
    let nowhere = pad_conformance::testing::scratch_dir().unwrap().path().join("missing");
    let refused = run(&[
        "bench",
        "--scaling",
        "--data-sets",
        "5",
        "--scratch",
        nowhere.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let expected = format!("making a directory in {} (--scratch)", nowhere.display());
    assert!(stderr(&refused).contains(&expected), "{}", stderr(&refused));
}

fn write_json(path: &Path, value: serde_json::Value) {
    std::fs::write(path, value.to_string()).unwrap();
}

#[test]
fn a_baseline_of_the_default_data_records_its_corpus_version_and_format() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("known.json");
    // No PATH: the default data, whose corpus version is recorded as any root's is.
    let out = run(&["--filter", "onnx-1.22.0/", "--write-baseline", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let recorded: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let version: u64 = std::fs::read_to_string(testdata("VERSION"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(recorded["corpus_version"], version);
    assert_eq!(recorded["format"], 2);
    assert!(recorded["written_by"].as_str().unwrap().starts_with("pad-conformance "));
}

#[test]
fn a_baseline_without_a_corpus_version_warns_and_fails_under_strict() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("known.json");
    write_json(&path, serde_json::json!({"backend": "ref", "expected": {}}));
    let data = testdata("onnx-1.22.0");
    let args = [data.to_str().unwrap(), "--baseline", path.to_str().unwrap()];
    let out = run(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning: baseline {} records no version of the corpus onnx-testdata",
            path.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "re-record it with pad-conformance baseline upgrade {} --in-place",
            path.display()
        )),
        "{stderr}"
    );
    let out = run(&[&args[..], &["--strict"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    for bad in ["0", "4294967295"] {
        std::fs::write(&path, format!(r#"{{"corpus_version": {bad}, "expected": {{}}}}"#)).unwrap();
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: corpus_version {bad} for onnx-testdata is not a version",
                path.display()
            )),
            "{stderr}"
        );
    }
}

#[test]
fn a_verdict_changed_with_the_corpus_is_in_the_json_report_with_its_reason() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("known.json");
    // Written against corpus version 2, which had no onnx-1.23.2 data: an entry there that
    // now passes is the corpus's change, shown with the changelog's line.
    write_json(
        &path,
        serde_json::json!({"corpus_version": 2, "expected": {
            "node/test_wrap_pad/0": {"status": "failed", "reason": "was wrong"}}}),
    );
    let report = dir.path().join("report.json");
    let data = testdata("onnx-1.23.2");
    let out = run(&[
        data.to_str().unwrap(),
        "--baseline",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--output",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["format"], 3);
    let baseline = &json["baseline"];
    let change = &baseline["corpus_changes"][0];
    assert_eq!(change["name"], "node/test_wrap_pad/0");
    assert_eq!(
        (change["was"].as_str(), change["now"].as_str()),
        (Some("failed"), Some("passed"))
    );
    assert!(
        change["why"]
            .as_str()
            .unwrap()
            .starts_with("corpus version 3: new, onnx 1.23.2"),
        "{change}"
    );
    // Every data set is accounted for.
    let cases = json["cases"].as_array().unwrap().len() as u64;
    assert_eq!(baseline["agreeing"].as_u64().unwrap() + 1, cases);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("changed with the corpus, not the backend (rewrite the baseline): node/test_wrap_pad/0: was failed, now passed (corpus version 3"), "{stderr}");
}

/// The command line, the library's check and the harness give one verdict per data set:
/// they call one judge.
#[test]
fn the_cli_the_library_and_the_harness_give_the_same_verdicts() {
    use pad_conformance::Harness;
    use pad_conformance::RefBackend;
    use pad_conformance::testing::{CheckOptions, check_data_set};
    use pad_conformance::testing::{Patterns, discover};

    let tree = failing_tree();
    // A data set that must be refused, refused by the reference with the rule it lists, and
    // the valid twin its case.json names.
    for case in ["test_ext_pad18_err_mode_wrap", "test_ext_pad18_err_mode_wrap_twin"] {
        copy_dir(&testdata(&format!("extended/{case}")), &tree.path().join(case));
    }
    // --list names the twin of the data set that must be refused.
    let listing = String::from_utf8(run(&["--list", tree.path().to_str().unwrap()]).stdout).unwrap();
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("test_ext_pad18_err_mode_wrap/0  Pad-18  inputs:")
                && l.ends_with("(must be refused; twin test_ext_pad18_err_mode_wrap_twin/0)")),
        "{listing}"
    );
    let report = tree.path().join("report.json");
    let out = run(&[
        tree.path().to_str().unwrap(),
        "--format",
        "json",
        "--output",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let cli: std::collections::BTreeMap<String, serde_json::Value> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                format!("{}/{}", c["id"].as_str().unwrap(), c["data_set"]),
                c["verdict"].clone(),
            )
        })
        .collect();
    let cases = discover(&[tree.path().to_owned()], &Patterns::default()).unwrap();
    let library: std::collections::BTreeMap<String, serde_json::Value> = cases
        .iter()
        .map(|case| {
            let outcome = check_data_set(&RefBackend, case, 0, &CheckOptions::default());
            (outcome.name(), serde_json::to_value(outcome.verdict()).unwrap())
        })
        .collect();
    let log = tempfile::NamedTempFile::new().unwrap();
    let args =
        libtest_mimic::Arguments::from_iter(["h", "--test-threads=1", "--logfile", log.path().to_str().unwrap()]);
    let harness = pad_conformance::testing::execute(Harness::new(RefBackend).root(tree.path()), &args).unwrap();
    let trials: std::collections::BTreeMap<String, serde_json::Value> = harness
        .results
        .iter()
        .map(|r| (r.name(), serde_json::to_value(r.verdict()).unwrap()))
        .collect();
    assert_eq!(cli.len(), 4);
    assert_eq!(cli, library);
    assert_eq!(cli, trials);
    assert_eq!(cli["test_wrap_pad/0"]["verdict"], "mismatch");
    assert_eq!(cli["test_ext_pad18_err_mode_wrap/0"]["verdict"], "refused-as-required");
    assert_eq!(cli["test_ext_pad18_err_mode_wrap/0"]["rule"], "mode-not-in-version");
    assert_eq!(cli["test_ext_pad18_err_mode_wrap_twin/0"]["verdict"], "passed");
}

#[test]
fn with_a_baseline_each_line_is_labelled_by_the_gate() {
    let tree = failing_tree();
    let path = tree.path().join("known.json");
    write_json(
        &path,
        serde_json::json!({"expected": {
            "test_wrap_pad/0": {"status": "failed", "reason": "known"},
            "test_edge_pad/0": {"status": "failed", "reason": "was broken"}}}),
    );
    let out = run(&[tree.path().to_str().unwrap(), "--baseline", path.to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    // The listed failure is known (the gate is green on it), the listed one that passes is fixed.
    assert!(stdout.contains("\nKNOWN test_wrap_pad/0  Pad-25"), "{stdout}");
    assert!(stdout.starts_with("FIXED test_edge_pad/0  Pad-25"), "{stdout}");
    // Each with the baseline's reason.
    assert!(
        stdout.contains("\n      known failure, in the baseline: known\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n      listed as a known failure (was broken): remove it from the baseline\n"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0));
    // --failures-only: the failed data set alone, the summary still over both.
    let out = run(&[
        tree.path().to_str().unwrap(),
        "--baseline",
        path.to_str().unwrap(),
        "--failures-only",
    ]);
    let only = String::from_utf8(out.stdout).unwrap();
    let (lines, recap) = only.split_once("\n\n").unwrap();
    assert!(
        lines.starts_with("KNOWN test_wrap_pad/0") && !lines.contains("test_edge_pad"),
        "{only}"
    );
    // The recap names the entry to remove all the same, and the summary, last, counts both.
    assert!(
        recap.starts_with(
            "baseline entries out of date (1):\n\
             FIXED test_edge_pad/0: listed as a known failure (was broken): remove it from the baseline\n\
             backend ref: "
        ) && recap.ends_with("s\n1 passed, 1 failed, 0 errored, 0 skipped\n"),
        "{recap}"
    );
    let out = run(&[
        tree.path().to_str().unwrap(),
        "--baseline",
        path.to_str().unwrap(),
        "--format",
        "markdown",
    ]);
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(
        markdown.contains("| failed | known: known | `test_wrap_pad/0` |"),
        "{markdown}"
    );
    // Without a baseline, the statuses.
    let plain = String::from_utf8(run(&[tree.path().to_str().unwrap()]).stdout).unwrap();
    assert!(
        plain.contains("\nFAIL  test_wrap_pad/0") && plain.starts_with("PASS  test_edge_pad/0"),
        "{plain}"
    );
}

/// `fuzz --shard K/N` takes K from 1 to N; anything else is a usage error naming the value.
/// Shards of a run draw its cases between them.
#[test]
fn fuzz_shards_are_checked_and_split_the_cases() {
    for bad in ["0/3", "4/3", "2", "a/b", "1/0"] {
        let out = run(&["fuzz", "--cases", "10", "--shard", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("invalid value '{bad}' for '--shard <K/N>'")),
            "{stderr}"
        );
    }
    let cases = |shard: &str| -> u64 {
        let out = run(&["fuzz", "--cases", "10", "--shard", shard, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(report["cases_per_second"].as_f64().unwrap() > 0.0);
        report["cases"].as_u64().unwrap()
    };
    assert_eq!([cases("1/3"), cases("2/3"), cases("3/3")], [4, 3, 3]);
}

/// Changes one expected value of the copy of test_wrap_pad under `root`.
fn break_wrap(root: &Path) {
    let output = root.join("test_wrap_pad/test_data_set_0/output_0.pb");
    let Tensor::Int32(mut values) = read_tensor_file(&output, &DecodeOptions::default()).unwrap() else {
        panic!("test_wrap_pad's output is int32");
    };
    values[[0, 0, 0, 0]] += 1000;
    write_tensor_file(&output, &Tensor::Int32(values), "y").unwrap();
}

/// The same case under two roots is two data sets, each named with its root: a regression of
/// one copy is not hidden by the other's entry in a baseline, nor by its outcome in `diff`.
#[test]
fn the_same_id_under_two_roots_keeps_a_name_per_root_in_baselines_and_diff() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    for root in [&first, &second] {
        copy_dir(&testdata("onnx-1.22.0/node/test_wrap_pad"), &root.join("test_wrap_pad"));
    }
    break_wrap(&second);
    let baseline = dir.path().join("baseline.json");
    let (before, after) = (dir.path().join("before.json"), dir.path().join("after.json"));
    let roots = [first.to_str().unwrap(), second.to_str().unwrap()];
    let recorded = run(&[
        "--write-baseline",
        baseline.to_str().unwrap(),
        "--format",
        "json",
        "--output",
        before.to_str().unwrap(),
        roots[0],
        roots[1],
    ]);
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
    let entries: Vec<&String> = written["expected"].as_object().unwrap().keys().collect();
    assert_eq!(entries, [&format!("{}:test_wrap_pad/0", roots[1])]);

    break_wrap(&first);
    let judged = run(&[
        "--baseline",
        baseline.to_str().unwrap(),
        "--format",
        "json",
        "--output",
        after.to_str().unwrap(),
        roots[0],
        roots[1],
    ]);
    assert_eq!(judged.status.code(), Some(1), "{}", stderr(&judged));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&after).unwrap()).unwrap();
    assert_eq!(
        report["baseline"]["regressions"],
        serde_json::json!([format!("{}:test_wrap_pad/0", roots[0])]),
        "{report}"
    );
    assert_eq!(
        report["baseline"]["expected_failures"],
        serde_json::json!([format!("{}:test_wrap_pad/0", roots[1])])
    );

    let diff = run(&["diff", before.to_str().unwrap(), after.to_str().unwrap()]);
    assert_eq!(diff.status.code(), Some(1), "{}", stderr(&diff));
    assert!(stderr(&diff).contains("1 regressed"), "{}", stderr(&diff));
}

/// A copy of a bundled data set keeps the bundled basis whatever case.json lies beside it:
/// `test_wrap_pad` copied into a root of its own with a case.json saying `undefined` or `rule`
/// gates a wrong answer as the spec's case it is (it passed, not gating, exit 0), and
/// `--write-baseline` records it. The case.json is named in a warning, with the field.
#[cfg(unix)]
#[test]
fn a_copy_of_a_bundled_data_set_keeps_its_basis_whatever_its_sidecar_claims() {
    // Answers with its first input: the wrong shape.
    let wrong = r#"exec-per-case:cp "$3" "$2/output_0.pb" #"#;
    for claimed in ["undefined", "rule"] {
        let dir = pad_conformance::testing::scratch_dir().unwrap();
        let case = dir.path().join("mine/test_wrap_pad");
        copy_dir(&testdata("onnx-1.22.0/node/test_wrap_pad"), &case);
        let info = format!(
            r#"{{"op": "Pad", "domain": "", "version": 25, "mode": "wrap", "dtype": "int32", "expect": "output",
                "basis": {{"kind": "{claimed}", "section": "mine"}}}}"#
        );
        std::fs::write(case.join("case.json"), info).unwrap();
        let root = dir.path().join("mine");
        let baseline = dir.path().join("known.json");
        let args = [
            "--backend",
            wrong,
            "--basis",
            "spec,reference,rule",
            root.to_str().unwrap(),
        ];
        let out = run(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{claimed}: {stdout}{}", stderr(&out));
        assert!(
            stdout.contains("FAIL  test_wrap_pad/0  Pad-25  spec"),
            "{claimed}: {stdout}"
        );
        assert!(!stdout.contains("not gating"), "{claimed}: {stdout}");
        let warning = format!(
            "pad-conformance: warning: {}: its basis is {claimed}, but {} is the bundled ",
            case.join("case.json").display(),
            case.join("test_data_set_0").display()
        );
        assert!(stderr(&out).contains(&warning), "{claimed}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("/node/test_wrap_pad/0 by content, whose basis is spec: the bundled basis holds"),
            "{claimed}: {}",
            stderr(&out)
        );
        // Gating on the spec alone, as by default: still a failure, and recorded as one.
        let recorded = run(&[
            "--backend",
            wrong,
            "--write-baseline",
            baseline.to_str().unwrap(),
            root.to_str().unwrap(),
        ]);
        assert_eq!(recorded.status.code(), Some(0), "{claimed}: {}", stderr(&recorded));
        let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
        assert_eq!(
            written["expected"]["test_wrap_pad/0"]["status"], "failed",
            "{claimed}: {written}"
        );
    }
}

/// Two roots given as relative paths that both hold `node/test_dup_pad`: every report the run
/// writes names each copy once (JSON, JUnit), the shards' parts (one copy each, by the names'
/// hashes) merge into the whole run's report, and `diff` reads all of them. A third root
/// holding a directory named like the first copy's qualified name (`left:node/test_dup_pad`)
/// would give two cases one name:
/// the run is refused, naming both case directories and both roots, and writes no report.
#[test]
fn a_run_over_roots_sharing_an_id_writes_reports_its_diff_and_merge_read() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    for root in ["left", "right"] {
        copy_dir(
            &testdata("onnx-1.22.0/node/test_constant_pad"),
            &dir.path().join(root).join("node/test_dup_pad"),
        );
    }
    let in_dir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(args)
            .env("NO_COLOR", "1")
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let ids = |path: &str| -> Vec<String> {
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.path().join(path)).unwrap()).unwrap();
        let cases = report["cases"].as_array().unwrap();
        cases.iter().map(|c| c["id"].as_str().unwrap().to_owned()).collect()
    };
    let whole = in_dir(&["--output", "whole.json", "left", "right"]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert_eq!(ids("whole.json"), ["left:node/test_dup_pad", "right:node/test_dup_pad"]);
    let junit = in_dir(&["--format", "junit", "--output", "whole.xml", "left", "right"]);
    assert_eq!(junit.status.code(), Some(0), "{}", stderr(&junit));
    let xml = std::fs::read_to_string(dir.path().join("whole.xml")).unwrap();
    for name in ["left:node/test_dup_pad/0", "right:node/test_dup_pad/0"] {
        assert_eq!(xml.matches(&format!("name=\"{name}\"")).count(), 1, "{xml}");
    }
    for k in [1, 2] {
        let shard = format!("{k}/2");
        let part = in_dir(&[
            "--shard",
            &shard,
            "--output",
            &format!("part-{k}.json"),
            "left",
            "right",
        ]);
        assert_eq!(part.status.code(), Some(0), "{}", stderr(&part));
    }
    let merged = in_dir(&[
        "merge",
        "--data",
        "left",
        "--data",
        "right",
        "--output",
        "merged.json",
        "part-1.json",
        "part-2.json",
    ]);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    assert_eq!(ids("merged.json"), ids("whole.json"));
    let diff = in_dir(&["diff", "whole.json", "merged.json"]);
    assert_eq!(diff.status.code(), Some(0), "{}", stderr(&diff));
    assert!(
        String::from_utf8_lossy(&diff.stdout).contains("(2 unchanged)"),
        "{diff:?}"
    );

    copy_dir(
        &testdata("onnx-1.22.0/node/test_constant_pad"),
        &dir.path().join("third/left:node/test_dup_pad"),
    );
    let refused = in_dir(&["--output", "refused.json", "left", "right", "third"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    // The directories as the system writes them (backslashes on Windows); the name is the id.
    let shown = |parts: &[&str]| parts.iter().collect::<std::path::PathBuf>().display().to_string();
    assert_eq!(
        stderr(&refused).trim(),
        format!(
            "pad-conformance: {} and {} would both be named \"left:node/test_dup_pad\" (under the roots left and third): a run names each case once; rename one, or run the roots apart",
            shown(&["left", "node", "test_dup_pad"]),
            shown(&["third", "left:node", "test_dup_pad"]),
        )
    );
    assert!(!dir.path().join("refused.json").exists());
}

#[test]
fn no_output_is_written_over_a_file_the_run_reads() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let tree = dir.path().join("tree");
    copy_dir(&testdata("onnx-1.22.0/node/test_edge_pad"), &tree.join("test_edge_pad"));
    let baseline = dir.path().join("bl.json");
    let text = r#"{"backend": "ref", "expected": {"test_edge_pad/0": {"status": "failed", "reason": "hand-written"}}}"#;
    std::fs::write(&baseline, text).unwrap();
    let same = dir.path().join(".").join("bl.json");
    let (tree, bl, same) = (
        tree.to_str().unwrap(),
        baseline.to_str().unwrap(),
        same.to_str().unwrap(),
    );
    for (args, message) in [
        (vec!["--output", same, "--baseline", bl, tree], "--output "),
        (vec!["--output", bl, "--write-baseline", same, tree], "--output "),
        (
            vec!["--baseline", bl, "--write-baseline", bl, "--output", same, tree],
            "is also the --baseline",
        ),
        (vec!["merge", bl, "--output", same], "is also the report"),
        (vec!["diff", bl, bl, "--output", same], "is also the OLD.json"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&baseline).unwrap(), text, "{args:?}");
    }
    // Two outputs that are one file, not there yet.
    let new = dir.path().join("new.json");
    let new = new.to_str().unwrap();
    let out = run(&["--output", new, "--write-baseline", new, tree]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--output and --write-baseline both name"),
        "{}",
        stderr(&out)
    );
    assert!(!Path::new(new).exists());
    // A baseline updated in place stays allowed.
    let out = run(&["--baseline", bl, "--write-baseline", same, tree]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_configuration_records_and_gates_its_own_entries_and_require_tracking_names_the_untracked() {
    let tree = failing_tree();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("linux/known.json");
    let (tree, known) = (tree.path().to_str().unwrap(), path.to_str().unwrap());
    let recorded = run(&["--config", "linux-x64", "--write-baseline", known, tree]);
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    assert!(
        stderr(&recorded).contains("known.json (configuration linux-x64): 1 known failures"),
        "{}",
        stderr(&recorded)
    );
    let gate = |extra: &[&str]| {
        let mut args = vec!["--baseline", known];
        args.extend(extra);
        args.push(tree);
        run(&args)
    };
    assert_eq!(gate(&["--config", "linux-x64"]).status.code(), Some(0));
    // In another configuration, or none, the entry is inert: the failure is new.
    assert_eq!(gate(&["--config", "mac-arm64"]).status.code(), Some(1));
    assert_eq!(gate(&[]).status.code(), Some(1));
    let untracked = gate(&["--config", "linux-x64", "--require-tracking"]);
    assert_eq!(untracked.status.code(), Some(1));
    // The human report's recap names it, its summary and the gate's verdict last.
    let recap = String::from_utf8_lossy(&untracked.stdout);
    assert!(
        recap.contains(
            "\nbaseline entries out of date (1):\nTRACK test_wrap_pad/0: known failure without a tracking link (--require-tracking)\nbackend ref: "
        ),
        "{recap}"
    );
    assert_eq!(
        stderr(&untracked),
        "baseline: 1 expected failures, 0 regressions, 0 unexpected passes\n"
    );
    // With the report elsewhere, standard error names it.
    let json = dir.path().join("run.json");
    let elsewhere = gate(&[
        "--config",
        "linux-x64",
        "--require-tracking",
        "--output",
        json.to_str().unwrap(),
    ]);
    assert!(
        stderr(&elsewhere).contains(
            "known failure without a tracking link (--require-tracking): test_wrap_pad/0\n1 passed, 1 failed"
        ),
        "{}",
        stderr(&elsewhere)
    );
    // The unnamed configuration would record entries for every one: refused before the run.
    let unnamed = run(&["--write-baseline", known, tree]);
    assert_eq!(unnamed.status.code(), Some(2));
    assert!(
        stderr(&unnamed).contains("its entries name configurations (linux-x64); record it with a configuration"),
        "{}",
        stderr(&unnamed)
    );
    assert!(unnamed.stdout.is_empty(), "the run must not start");
    let bad = run(&["--config", "linux x64", tree]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("\"linux x64\" is not a configuration name"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn fuzz_writes_its_report_to_output_as_json_when_the_file_says_so() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let report = dir.path().join("causes-1.json");
    let out = run(&["fuzz", "--cases", "20", "--output", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["cases"], 20, "{json}");
}

#[test]
fn bench_mode_times_only_that_mode_and_labels_its_columns() {
    let args = ["bench", "--shape", "1,4,20,20", "--mode", "wrap", "--repetitions", "1"];
    let out = run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = bench_results(&out.stdout);
    let timed: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["op"].as_str().unwrap(), r["mode"].as_str().unwrap()))
        .collect();
    assert_eq!(timed, [("Pad", "wrap")], "no CenterCropPad unless asked");
    let table = String::from_utf8(run(&args).stdout).unwrap();
    let header = table.lines().next().unwrap();
    assert!(header.contains(" ratio ") && header.contains(" f.ratio "), "{table}");
    assert!(table.contains("\nGB/s: the kernel into a reused output;"), "{table}");
}

#[test]
fn rules_are_plain_text_by_default_and_markdown_only_when_asked() {
    let plain = String::from_utf8(run(&["rules"]).stdout).unwrap();
    assert!(plain.contains("\naxis-repeated\n    refuses: "), "{plain}");
    assert!(
        !plain.contains(['|', '`']) && !plain.contains("](") && !plain.contains("**"),
        "{plain}"
    );
    let markdown = String::from_utf8(run(&["rules", "--format", "markdown"]).stdout).unwrap();
    assert!(
        markdown.starts_with("| rule | basis | section | refuses |"),
        "{markdown}"
    );
}

#[test]
fn rules_json_carries_the_operator_table_scripts_read() {
    let out = run(&["rules", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["operators"].as_array().unwrap();
    assert_eq!(rows.len(), pad_conformance::OpVersion::all().count());
    let row = |operator: &str, domain: &str, version: i64| {
        rows.iter()
            .find(|r| r["operator"] == operator && r["domain"] == domain && r["version"] == version)
            .unwrap_or_else(|| panic!("{operator}-{version} of {domain}: {json}"))
    };
    let modes = |r: &serde_json::Value| r["modes"].clone();
    assert_eq!(
        modes(row("Pad", "ai.onnx", 18)),
        serde_json::json!(["constant", "reflect", "edge"])
    );
    assert_eq!(
        modes(row("Pad", "ai.onnx", 19)),
        serde_json::json!(["constant", "reflect", "edge", "wrap"])
    );
    assert_eq!(modes(row("CenterCropPad", "ai.onnx", 18)), serde_json::json!([]));
    assert_eq!(
        row("Pad", "com.microsoft", 1)["dtypes"],
        serde_json::json!(["float", "float16", "double"])
    );
    assert_eq!(
        row("Pad", "ai.onnx", 2)["attributes"],
        serde_json::json!(["pads", "value", "mode"])
    );
    assert_eq!(
        row("Pad", "ai.onnx", 13)["inputs"],
        serde_json::json!(["data", "pads", "constant_value"])
    );
    let pad25 = row("Pad", "ai.onnx", 25)["dtypes"].as_array().unwrap().len();
    assert_eq!(pad25, 26, "Pad-25 accepts every element type");
}

#[test]
fn coverage_is_plain_columns_by_default_markdown_and_json_when_asked() {
    let human = run(&["coverage"]);
    assert_eq!(human.status.code(), Some(0), "{}", stderr(&human));
    let text = String::from_utf8(human.stdout).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("dtype  ") && header.contains("Pad-25"), "{header}");
    assert!(!text.contains('|'), "no Markdown in human output:\n{text}");
    assert!(text.contains("Legend: "), "{text}");
    let markdown = String::from_utf8(run(&["coverage", "--format", "markdown"]).stdout).unwrap();
    assert!(markdown.starts_with("| dtype | "), "{markdown}");
    assert_eq!(
        markdown.lines().nth(1).unwrap().matches("---|").count(),
        header.split_whitespace().count()
    );
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("coverage.json");
    let json = run(&["coverage", "--output", path.to_str().unwrap()]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["format"], 1);
    assert_eq!(json["missing"].as_array().unwrap().len(), 0);
    // Every cell the tables show as covered, counted: the counts add up to the cases.
    let cases: u64 = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cases"].as_u64().unwrap())
        .sum();
    assert!(
        text.contains(&format!("{cases} cases with expected outputs")),
        "{cases}:\n{text}"
    );
    let wrap25 = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["operator"] == "Pad" && c["version"] == 25 && c["dtype"] == "float" && c["mode"] == "wrap");
    assert!(wrap25.is_some_and(|c| c["cases"].as_u64().unwrap() > 0), "{wrap25:?}");
}

#[test]
fn an_expanded_case_is_listed_and_reported_as_a_graph_of_its_nodes() {
    let dir = tempfile::tempdir().unwrap();
    for case in ["test_center_crop_pad_crop_expanded", "test_edge_pad"] {
        copy_dir(&testdata("onnx-1.22.0/node").join(case), &dir.path().join(case));
    }
    let tree = dir.path().to_str().unwrap();
    let listed = String::from_utf8(run(&["--list", tree]).stdout).unwrap();
    assert!(
        listed.contains("test_center_crop_pad_crop_expanded/0  Pad-18, graph of 13 nodes  inputs:"),
        "{listed}"
    );
    assert!(listed.contains("test_edge_pad/0  Pad-25  inputs:"), "{listed}");
    let out = run(&["--format", "json", tree]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = json["cases"].as_array().unwrap();
    let of = |id: &str| cases.iter().find(|c| c["id"] == id).unwrap();
    assert_eq!(of("test_center_crop_pad_crop_expanded")["graph_nodes"], 13);
    assert_eq!(of("test_center_crop_pad_crop_expanded")["version"], 18);
    assert!(
        of("test_edge_pad").get("graph_nodes").is_none(),
        "{}",
        of("test_edge_pad")
    );
    let out = run(&["--format", "junit", tree]);
    let junit = String::from_utf8(out.stdout).unwrap();
    assert!(junit.contains(r#"classname="Pad-18, graph of 13 nodes""#), "{junit}");
    assert!(junit.contains(r#"classname="Pad-25""#), "{junit}");
}

#[test]
fn a_bad_value_with_a_newline_is_echoed_escaped_and_forges_no_line() {
    for arg in [
        ["--config", "x\nPASS  node/forged/0"].as_slice(),
        ["--config=x\nPASS  node/forged/0"].as_slice(),
    ] {
        let out = run(arg);
        assert_eq!(out.status.code(), Some(2), "{arg:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.lines().any(|line| line.starts_with("PASS")),
            "{arg:?}: {stderr}"
        );
        assert!(
            stderr.contains(r"invalid value 'x\nPASS  node/forged/0'"),
            "{arg:?}: {stderr}"
        );
    }
    // Without a control character clap's own message is unchanged, and --help still exits 0.
    let out = run(&["--config", "a b"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'a b' for '--config <NAME>'"));
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

#[test]
fn merge_judges_parts_in_the_configuration_they_ran_in_and_refuses_another() {
    let tree = failing_tree();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let (known, part) = (dir.path().join("known.json"), dir.path().join("part.json"));
    let (tree, known, part) = (
        tree.path().to_str().unwrap(),
        known.to_str().unwrap(),
        part.to_str().unwrap(),
    );
    // The failure is known in debug only; the part ran in release.
    let recorded = run(&["--config", "debug", "--write-baseline", known, tree]);
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    let ran = run(&["--config", "release", "--format", "json", "--output", part, tree]);
    assert_eq!(ran.status.code(), Some(1), "{}", stderr(&ran));
    let merge = |extra: &[&str]| {
        let mut args = vec!["merge", part, "--baseline", known, "--data", tree];
        args.extend(extra);
        run(&args)
    };
    // Judged by debug's entries, the release regression would be excused: refused, naming both.
    let other = merge(&["--config", "debug"]);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    assert!(
        stderr(&other).contains("--config \"debug\", but ") && stderr(&other).contains("ran in \"release\""),
        "{}",
        stderr(&other)
    );
    // Without --config, or naming release, it is judged as release: the failure is new.
    for extra in [&[][..], &["--config", "release"][..]] {
        let judged = merge(extra);
        assert_eq!(judged.status.code(), Some(1), "{extra:?}: {}", stderr(&judged));
    }
}

/// A profile defining a key twice is refused by every verb that reads one, naming the key
/// and both lines (toml's own error named the second line alone, and not the key).
#[test]
fn a_profile_defining_a_key_twice_is_refused_naming_the_key_and_both_lines() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let profile = dir.path().join("p.toml");
    std::fs::write(
        &profile,
        "[inputs.pads]\nranks = [1]\n\n[[except]]\nmodes = [\"wrap\"]\n\n[inputs.pads]\nranks = [2]\n",
    )
    .unwrap();
    let (profile, data) = (profile.to_str().unwrap(), testdata("onnx-1.22.0/node/test_wrap_pad"));
    let data = data.to_str().unwrap();
    for args in [
        &["--profile", profile, data][..],
        &["fuzz", "--backend", "ref", "--cases", "1", "--profile", profile][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("p.toml: inputs.pads is defined twice (lines 1 and 7); keep one"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_baseline_naming_a_data_set_twice_is_refused_and_never_rewritten_without_it() {
    let tree = failing_tree();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let known = dir.path().join("known.json");
    let text = "{\n  \"format\": 2,\n  \"expected\": {\n    \"test_wrap_pad/0\": {\"status\": \"failed\", \"reason\": \"hand-written\"},\n    \"test_wrap_pad/0\": {\"status\": \"errored\", \"reason\": \"other\"}\n  }\n}\n";
    std::fs::write(&known, text).unwrap();
    let (tree, known_arg) = (tree.path().to_str().unwrap(), known.to_str().unwrap());
    for args in [
        &["--baseline", known_arg, tree][..],
        &["--write-baseline", known_arg, tree][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("\"test_wrap_pad/0\" is named twice in one object (lines 4 and 5)"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read_to_string(&known).unwrap(),
            text,
            "{args:?}: the file was rewritten"
        );
    }
}
