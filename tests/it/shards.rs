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

/// The baseline file at `path`, parsed.
/// The baseline `merge PARTS... --write-baseline OUT` records from the parts' reports.
fn merged_baseline(mut merge: Vec<String>, root: &str, out: &Path) -> Value {
    merge.extend([
        "--data".to_owned(),
        root.to_owned(),
        "--write-baseline".to_owned(),
        arg(out),
    ]);
    let status = run(&merge.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    read_json(out)
}

fn arg(path: &Path) -> String {
    path.to_str().unwrap().to_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A baseline recorded from the parts of a run, one after another into one file, is the one
/// the whole run records; so is one recorded from the run's JSON report (`merge
/// --write-baseline`), or from its parts' reports. Each starts from the same hand-written file:
/// a reason to keep (wrap), an entry that passes now (reflect), one for no data set (gone);
/// edge's failure and constant's error are new, their reasons their messages' first lines.
#[test]
fn the_parts_recorded_into_one_file_and_a_report_merged_record_the_whole_runs_baseline() {
    let tree = tree();
    let scratch = pad_conformance::testing::scratch_dir().unwrap();
    let root = tree.path().to_str().unwrap();
    let start = baseline(scratch.path());
    let mut hand_written = read_json(&start);
    hand_written["expected"]
        .as_object_mut()
        .unwrap()
        .remove("test_constant_pad/0");
    std::fs::write(&start, hand_written.to_string()).unwrap();
    let fresh = |name: &str| {
        let path = scratch.path().join(name);
        std::fs::copy(&start, &path).unwrap();
        path
    };

    let whole = fresh("whole.json");
    let out = run(&["--write-baseline", &arg(&whole), root]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let recorded = read_json(&whole);
    let expected = &recorded["expected"];
    // The values the run implies: wrap's reason kept, edge and constant new (the first line of
    // their messages), reflect and gone dropped.
    let names: Vec<&String> = expected.as_object().unwrap().keys().collect();
    assert_eq!(names, ["test_constant_pad/0", "test_edge_pad/0", "test_wrap_pad/0"]);
    assert_eq!(expected["test_wrap_pad/0"]["reason"], "by hand");
    assert_eq!(expected["test_constant_pad/0"]["status"], "errored");
    assert!(
        expected["test_constant_pad/0"]["reason"]
            .as_str()
            .unwrap()
            .contains("model.onnx"),
        "{recorded}"
    );
    assert_eq!(
        expected["test_edge_pad/0"]["reason"],
        "mismatch: output 0 \"y\": 1 of 126 elements differ; the differing element is in padding; the interior matches"
    );

    // Three parts into one file, in any order: the whole run's baseline, each part keeping the
    // entries of the others.
    let parts = fresh("parts.json");
    let mut kept = Vec::new();
    for k in [2, 3, 1] {
        let shard = format!("{k}/3");
        let out = run(&["--shard", &shard, "--write-baseline", &arg(&parts), root]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        kept.push(stderr.contains("entries of data sets this run did not select"));
        if k == 2 {
            assert_ne!(read_json(&parts), recorded, "part {k} alone is not the whole run");
        }
    }
    assert!(kept.iter().any(|&k| k), "a part kept the others' entries: {kept:?}");
    assert_eq!(read_json(&parts), recorded);

    // A filter and a skip that split the run the same way.
    let split = fresh("split.json");
    for selection in [
        &["--filter", "wrap", "--filter", "edge"][..],
        &["--skip", "wrap", "--skip", "edge"],
    ] {
        let out = run(&[selection, &["--write-baseline", &arg(&split), root]].concat());
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(read_json(&split), recorded);

    // From the whole run's JSON report, run again nowhere.
    let report = scratch.path().join("run.json");
    assert_eq!(run(&["--output", &arg(&report), root]).status.code(), Some(1));
    let from_report = fresh("from-report.json");
    let out = run(&[
        "merge",
        &arg(&report),
        "--data",
        root,
        "--write-baseline",
        &arg(&from_report),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wrote baseline"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read_json(&from_report), recorded);

    // From the parts' reports.
    let mut merge = vec!["merge".to_owned()];
    for k in 1..=3 {
        let part = scratch.path().join(format!("part-{k}.json"));
        run(&["--shard", &format!("{k}/3"), "--output", &arg(&part), root]);
        merge.push(arg(&part));
    }
    assert_eq!(merged_baseline(merge, root, &fresh("from-parts.json")), recorded);

    // A report is never the file merge records into.
    let out = run(&[
        "merge",
        &arg(&report),
        "--data",
        root,
        "--write-baseline",
        &arg(&report),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--write-baseline"), "{stderr}");
}

#[test]
fn a_shard_past_its_count_is_refused() {
    let tree = tree();
    let out = run(&["--shard", "3/2", tree.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the part must be 1 to 2"), "{stderr}");
}

/// A worker that fails the `axes_repeated` data sets with a code and refuses every other.
const REFUSER: &str = r#"
read -r hello
printf '%s\n' '{"type":"hello","version":1,"name":"refuser"}'
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
    *axes_repeated*) printf '{"type":"error","id":%s,"kind":"failed","code":"E42","message":"kernel failed: bad axes\\nat line 2"}\n' "$id" ;;
    *) printf '{"type":"error","id":%s,"kind":"refused","message":"no kernel for this"}\n' "$id" ;;
  esac
done
"#;

/// A worker's verdicts — refusals of valid data sets, failures with a code, refusals their
/// twins do not verify — recorded from its JSON report (whole or in parts) give the baseline
/// the live run records, and so do its parts recorded live into one file.
#[test]
fn a_workers_baseline_is_the_same_recorded_live_by_parts_or_from_its_reports() {
    let scratch = pad_conformance::testing::scratch_dir().unwrap();
    let worker = scratch.path().join("refuser.sh");
    std::fs::write(&worker, REFUSER).unwrap();
    let backend = format!("exec:sh {}", worker.display());
    let root = testdata("");
    let root = arg(&root);
    let selection = [
        "--filter",
        "extended/test_ext_pad18_err_axes",
        "--filter",
        "onnx-1.22.0/node/test_edge_pad",
    ];
    let with = |more: &[&str]| -> Vec<String> {
        let mut args = vec!["--backend".to_owned(), backend.clone()];
        args.extend(selection.iter().map(|s| (*s).to_owned()));
        args.extend(more.iter().map(|s| (*s).to_owned()));
        args.push(root.clone());
        args
    };
    let run_with = |more: &[&str]| {
        let args = with(more);
        run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };

    let live = scratch.path().join("live.json");
    let out = run_with(&["--write-baseline", &arg(&live)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let recorded = read_json(&live);
    let expected = recorded["expected"].as_object().unwrap();
    // Three errored data sets. The must-refuse one refused is not verified (its twin was
    // refused), never an entry; the must-refuse one failed rests on an undefined basis, which
    // does not gate.
    let names: Vec<&String> = expected.keys().collect();
    assert_eq!(
        names,
        [
            "extended/test_ext_pad18_err_axes_out_of_range_twin/0",
            "extended/test_ext_pad18_err_axes_repeated_twin/0",
            "onnx-1.22.0/node/test_edge_pad/0"
        ]
    );
    assert_eq!(
        expected["onnx-1.22.0/node/test_edge_pad/0"]["reason"],
        "backend refuser refused a valid input (kind refused): no kernel for this"
    );
    assert_eq!(
        expected["extended/test_ext_pad18_err_axes_repeated_twin/0"]["reason"],
        "backend refuser failed (it reported an internal failure, kind failed): kernel failed: bad axes"
    );
    assert!(expected.values().all(|e| e["status"] == "errored"), "{recorded}");

    let report = scratch.path().join("run.json");
    assert_eq!(run_with(&["--output", &arg(&report)]).status.code(), Some(1));
    let from_report = scratch.path().join("from-report.json");
    let out = run(&[
        "merge",
        &arg(&report),
        "--data",
        &root,
        "--write-baseline",
        &arg(&from_report),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read_json(&from_report), recorded);

    let by_parts = scratch.path().join("by-parts.json");
    let mut merge = vec!["merge".to_owned()];
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let out = run_with(&["--shard", &shard, "--write-baseline", &arg(&by_parts)]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let part = scratch.path().join(format!("part-{k}.json"));
        run_with(&["--shard", &shard, "--output", &arg(&part)]);
        merge.push(arg(&part));
    }
    assert_eq!(read_json(&by_parts), recorded);
    assert_eq!(
        merged_baseline(merge, &root, &scratch.path().join("from-parts.json")),
        recorded
    );
}
