//! A run split into shards (`--shard K/N`) and joined again (`merge`) is the single run: the
//! same data sets in the same order, the same verdicts, the same baseline findings — those
//! only the union knows (an entry for no data set, an unexpected pass) included — and the
//! same exit code.

use crate::support;

use std::path::Path;

use pad_conformance::Tensor;
use pad_conformance::testing::{DecodeOptions, read_tensor_file, write_tensor_file};
use serde_json::Value;
use support::files::{copy_dir, run, testdata};

/// onnx 1.22.0's 18 node cases, with test_wrap_pad and test_edge_pad expecting a wrong value
/// (failed) and test_constant_pad's model broken (errored).
fn tree() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    copy_dir(&testdata("onnx-1.22.0/node"), dir.path());
    for case in ["test_wrap_pad", "test_edge_pad"] {
        let output = dir.path().join(case).join("test_data_set_0/output_0.pb");
        let tensor = read_tensor_file(&output, &DecodeOptions::default()).unwrap();
        let wrong = match tensor {
            Tensor::Int32(mut values) => {
                values[[0, 0, 0, 0]] += 1000;
                Tensor::Int32(values)
            }
            Tensor::Float(mut values) => {
                values[[0, 0, 0, 0]] += 1000.0;
                Tensor::Float(values)
            }
            other => panic!("{case}: {:?}", other.data_type()),
        };
        write_tensor_file(&output, &wrong, "y").unwrap();
    }
    std::fs::write(dir.path().join("test_constant_pad/model.onnx"), b"\x08\x07garbage").unwrap();
    dir
}

/// A baseline that knows wrap's failure, not edge's (a regression), lists reflect, which
/// passes (an unexpected pass), constant as failed (it errors: a changed status), and a data
/// set that does not exist (stale).
fn baseline(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("baseline.json");
    let entry = |status: &str| serde_json::json!({"status": status, "reason": "by hand"});
    let baseline = serde_json::json!({
        "format": 2,
        "backend": "ref",
        "expected": {
            "test_wrap_pad/0": entry("failed"),
            "test_reflect_pad/0": entry("failed"),
            "test_constant_pad/0": entry("failed"),
            "test_gone_pad/0": entry("failed"),
        }
    });
    std::fs::write(&path, baseline.to_string()).unwrap();
    path
}

/// The report without what differs between any two runs: the time each data set took.
fn timeless(mut report: Value) -> Value {
    for case in report["cases"].as_array_mut().unwrap() {
        case.as_object_mut().unwrap().remove("duration");
    }
    report
}

fn json_run(args: &[&str]) -> (Option<i32>, Value) {
    let out = run(args);
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), report)
}

#[test]
fn merged_shards_are_the_single_run() {
    let tree = tree();
    let scratch = pad_conformance::testing::scratch_dir().unwrap();
    let baseline = baseline(scratch.path());
    let (root, baseline) = (tree.path().to_str().unwrap(), baseline.to_str().unwrap());
    let common = ["--format", "json", "--jobs", "2", "--baseline", baseline];
    let (single_code, single) = json_run(&[&common[..], &[root]].concat());
    assert_eq!(single_code, Some(1), "edge's failure is a regression");
    let gate = &single["baseline"];
    assert_eq!(gate["regressions"], serde_json::json!(["test_edge_pad/0"]));
    assert_eq!(gate["unexpected_passes"], serde_json::json!(["test_reflect_pad/0"]));
    assert_eq!(gate["stale"], serde_json::json!(["test_gone_pad/0"]));
    assert_eq!(gate["changed_status"].as_array().unwrap().len(), 1);

    let mut parts = Vec::new();
    let mut sizes = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let (_, report) = json_run(&[&common[..], &["--shard", &shard, root]].concat());
        assert_eq!(report["shard"], serde_json::json!({"index": k, "count": 3}));
        sizes.push(report["cases"].as_array().unwrap().len());
        let path = scratch.path().join(format!("part-{k}.json"));
        std::fs::write(&path, report.to_string()).unwrap();
        parts.push(path.to_str().unwrap().to_owned());
    }
    assert_eq!(sizes.iter().sum::<usize>(), 18, "{sizes:?}");
    assert!(sizes.iter().filter(|&&n| n > 0).count() > 1, "{sizes:?}");

    // Given out of order: the merge puts the data sets in the single run's order.
    let mut merge = vec!["merge", &parts[2], &parts[0], &parts[1]];
    merge.extend(["--format", "json", "--baseline", baseline, "--data", root]);
    let (merged_code, merged) = json_run(&merge);
    assert_eq!(merged_code, single_code);
    assert_eq!(timeless(merged), timeless(single));

    // Without --format: human on standard output, as every verb; JSON into a .json file.
    let mut human = vec!["merge", &parts[0], &parts[1], &parts[2]];
    human.extend(["--data", root]);
    let out = run(&human);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().last().is_some_and(|l| l.contains(" passed, ")), "{text}");
    assert!(!text.trim_start().starts_with('{'), "{text}");
    let file = scratch.path().join("merged.json");
    human.extend(["--output", file.to_str().unwrap()]);
    assert_eq!(run(&human).stdout, b"");
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(written["cases"].as_array().map(Vec::len), Some(18));

    // Two parts of three are not the run.
    let out = run(&["merge", &parts[0], &parts[1], "--data", root]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("shards 3 of 3 are missing"), "{stderr}");
}

#[test]
fn a_shard_cannot_record_a_baseline() {
    let tree = tree();
    let scratch = pad_conformance::testing::scratch_dir().unwrap();
    let written = scratch.path().join("b.json");
    let out = run(&[
        "--shard",
        "1/2",
        "--write-baseline",
        written.to_str().unwrap(),
        tree.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--write-baseline") && stderr.contains("--shard"),
        "{stderr}"
    );
    assert!(!written.exists());
    let out = run(&["--shard", "3/2", tree.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the part must be 1 to 2"), "{stderr}");
}
