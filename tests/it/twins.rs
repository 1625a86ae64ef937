//! A refusal counts only when the twin passes, as the command line decides it: over the whole
//! run, over the union of a run's shards (`merge`), never failing a run but under
//! `--require-verified`, and a report written before twins reads as it was written.

use crate::support;

use pad_conformance::testing::{Shard, scratch_dir};
use serde_json::Value;
use support::files::{arg_of, run, testdata};

/// A data set that must be refused (axes naming one axis twice) and its valid twin.
const REFUSED: &str = "test_ext_pad18_err_axes_repeated/0";
const TWIN: &str = "test_ext_pad18_err_axes_repeated_twin/0";

/// The JSON report of `ref` over extended/ with `args`, and the exit code.
fn json_run(args: &[&str]) -> (Option<i32>, Value) {
    let extended = testdata("extended");
    let mut all = vec!["--format", "json", arg_of(&extended)];
    all.extend(args);
    let out = run(&all);
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), report)
}

/// The entry of data set `name` in `report`.
fn case<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| format!("{}/{}", c["id"].as_str().unwrap(), c["data_set"]) == name)
        .unwrap_or_else(|| panic!("no {name} in the report"))
}

#[test]
fn a_refusal_whose_twin_did_not_run_is_not_verified_and_fails_only_when_required() {
    let (code, both) = json_run(&["--filter", "test_ext_pad18_err_axes_repeated*"]);
    assert_eq!(code, Some(0));
    assert_eq!(case(&both, REFUSED)["status"], "passed");
    assert_eq!(case(&both, REFUSED)["twin"], TWIN);
    assert_eq!(case(&both, TWIN).get("twin"), None);
    let (code, alone) = json_run(&["--filter", REFUSED]);
    assert_eq!(code, Some(0), "not verified is no failure");
    let entry = case(&alone, REFUSED);
    assert_eq!(entry["status"], "not_verified");
    assert_eq!(entry["verdict"]["verdict"], "refusal-not-verified");
    assert_eq!(entry["verdict"]["twin"], serde_json::json!({"name": TWIN}));
    assert!(
        entry["message"]
            .as_str()
            .unwrap()
            .starts_with("refusal not verified (twin not run): its twin test_ext_pad18_err_axes_repeated_twin/0"),
        "{entry}"
    );
    assert_eq!(
        (
            alone["summary"]["passed"].as_u64(),
            alone["summary"]["not_verified"].as_u64()
        ),
        (Some(0), Some(1))
    );
    // The human report's line said PASS as the data set finished; its recap and summary say
    // otherwise.
    let human = run(&["--filter", REFUSED, arg_of(&testdata("extended"))]);
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(
        text.starts_with("PASS  test_ext_pad18_err_axes_repeated/0 ")
            && text.contains(
                "\n\nrefusals not verified: their twins did not pass (1):\nUNVER test_ext_pad18_err_axes_repeated/0: its twin test_ext_pad18_err_axes_repeated_twin/0 was not in the run\nbackend ref: "
            )
            && text.ends_with("\n0 passed, 0 failed, 0 errored, 0 skipped, 1 refusals not verified\n"),
        "{text}"
    );
    // Against a baseline: its own gate result, never a regression; failing only when required.
    let dir = scratch_dir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let version = std::fs::read_to_string(testdata("VERSION")).unwrap();
    let written = format!(
        r#"{{"format": 2, "corpus_version": {}, "expected": {{}}}}"#,
        version.trim()
    );
    std::fs::write(&baseline, written).unwrap();
    let gated = |extra: &[&str]| {
        let mut args = vec!["--filter", REFUSED, "--baseline", arg_of(&baseline)];
        args.extend(extra);
        json_run(&args)
    };
    let (code, judged) = gated(&["--strict"]);
    assert_eq!(code, Some(0));
    assert_eq!(case(&judged, REFUSED)["gate"]["result"], "not-verified");
    assert_eq!(judged["baseline"]["not_verified"], serde_json::json!([REFUSED]));
    assert_eq!(judged["baseline"]["regressions"], serde_json::json!([]));
    let (code, required) = gated(&["--require-verified"]);
    assert_eq!(code, Some(1));
    assert_eq!(required["baseline"]["require_verified"], true);
    // A part cannot tell a twin in another part from one not run: merge takes the flag.
    let extended = testdata("extended");
    let args = [
        "--baseline",
        arg_of(&baseline),
        "--require-verified",
        "--shard",
        "1/2",
        arg_of(&extended),
    ];
    let out = run(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--require-verified is refused with --shard"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Each shard weighs its refusals by the twins it ran; `merge` weighs them again over the
/// union, where the twin another shard ran verifies the refusal.
#[test]
fn merge_verifies_a_refusal_by_the_twin_another_shard_ran() {
    let count = (2..=16)
        .find(|&n| {
            let shard = Shard::new(1, n).unwrap();
            shard.contains(REFUSED) != shard.contains(TWIN)
        })
        .expect("some split puts the two apart");
    let dir = scratch_dir().unwrap();
    let filter = "test_ext_pad18_*";
    let mut parts = Vec::new();
    for index in 1..=count {
        let shard = format!("{index}/{count}");
        let (code, report) = json_run(&["--filter", filter, "--shard", &shard]);
        assert_eq!(code, Some(0), "{shard}");
        if Shard::new(index, count).unwrap().contains(REFUSED) {
            assert_eq!(case(&report, REFUSED)["status"], "not_verified", "{shard}");
        }
        let path = dir.path().join(format!("part-{index}.json"));
        std::fs::write(&path, report.to_string()).unwrap();
        parts.push(path);
    }
    let extended = testdata("extended");
    let mut args = vec!["merge", "--format", "json", "--data", arg_of(&extended)];
    args.extend(parts.iter().map(|p| arg_of(p)));
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(case(&merged, REFUSED)["status"], "passed");
    assert_eq!(case(&merged, REFUSED)["verdict"]["verdict"], "refused-as-required");
    assert_eq!(merged["summary"]["not_verified"], 0);
    // The single run's report, but for the time each data set took.
    let (_, single) = json_run(&["--filter", filter]);
    let verdicts = |report: &Value| -> Vec<Value> {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["verdict"].clone())
            .collect()
    };
    assert_eq!(verdicts(&merged), verdicts(&single));
}

/// A report of format 2 holds no twins: its refusals read back as the passes it recorded, and
/// `merge` weighs nothing again.
#[test]
fn a_report_written_before_twins_reads_as_it_was_written() {
    let (_, mut report) = json_run(&["--filter", REFUSED]);
    report["format"] = 2.into();
    let entry = report["cases"][0].as_object_mut().unwrap();
    entry.remove("twin");
    entry.insert("status".into(), "passed".into());
    entry.insert(
        "verdict".into(),
        serde_json::json!({"verdict": "refused-as-required", "refusal": "axes repeated"}),
    );
    report.as_object_mut().unwrap().remove("run");
    let dir = scratch_dir().unwrap();
    let path = dir.path().join("old.json");
    std::fs::write(&path, report.to_string()).unwrap();
    let extended = testdata("extended");
    let out = run(&["merge", "--format", "json", "--data", arg_of(&extended), arg_of(&path)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read["format"], 3);
    assert_eq!(case(&read, REFUSED)["status"], "passed");
    assert_eq!(case(&read, REFUSED).get("twin"), None);
}
