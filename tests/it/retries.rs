//! `--retries`: a data set whose worker crashed is run again in a fresh worker; a pass after
//! it is counted as such, two different answers fail, and a must-refuse data set keeps its crash.

use std::process::Output;

use crate::support;

use support::files::run;
use support::good_case::GOOD;
use support::sh_worker::{WORKER, setup};

/// Runs the good case (or, with `must_refuse`, the good case made a must-refuse one) with
/// the sh worker in `mode` and `--retries 2`, as a JSON report.
fn run_with_retries(mode: &str, must_refuse: bool) -> (Output, serde_json::Value) {
    let setup = setup();
    let dir = setup.dir.path();
    std::fs::write(dir.join("worker.sh"), WORKER).unwrap();
    if must_refuse {
        let data = dir.join("cases").join(GOOD).join("test_data_set_0");
        std::fs::remove_file(data.join("output_0.pb")).unwrap();
        std::fs::write(data.join("expected_error.txt"), "must be refused\n").unwrap();
    }
    let backend = format!(
        "exec:MODE={mode} MARK={} sh {}",
        dir.join("mark").display(),
        dir.join("worker.sh").display()
    );
    let cases = dir.join("cases");
    let out = run(&[
        "--backend",
        &backend,
        "--retries",
        "2",
        "--jobs",
        "1",
        "--format",
        "json",
        cases.to_str().unwrap(),
    ]);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    (out, report)
}

#[test]
fn a_worker_that_crashes_once_then_passes_passed_after_a_crash_and_is_counted() {
    let (out, report) = run_with_retries("crashonce", false);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let outcome = &report["cases"][0];
    assert_eq!(outcome["status"], "passed");
    assert_eq!(outcome["retry"]["tries"], 3, "{outcome}");
    assert_eq!(outcome["retry"]["after"]["crash"]["code"], 3, "{outcome}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 passed after a crash"),
        "{out:?}"
    );
}

#[test]
fn a_worker_whose_bytes_differ_between_tries_fails_as_unstable() {
    let (out, report) = run_with_retries("vary", false);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let outcome = &report["cases"][0];
    assert_eq!(outcome["status"], "failed");
    assert_eq!(outcome["verdict"]["verdict"], "unstable", "{outcome}");
    let message = outcome["message"].as_str().unwrap();
    assert!(
        message.starts_with("backend sh-worker answered differently on two tries after a crash: outputs sha256 "),
        "{message}"
    );
}

/// A refusal after a crash, confirmed by a second refusal, is the backend's refusal: the
/// verdict is the one a run that no crash hit gives (OpenVINO crashes at random).
#[test]
fn a_must_refuse_data_set_whose_worker_crashed_then_refused_twice_passed_after_a_crash() {
    let (out, report) = run_with_retries("refuse", true);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let outcome = &report["cases"][0];
    assert_eq!(outcome["status"], "passed", "{outcome}");
    assert_eq!(outcome["verdict"]["verdict"], "refused-as-required", "{outcome}");
    assert_eq!(outcome["retry"]["tries"], 3, "{outcome}");
}

/// A worker that served other data sets and dies is the verdict of the data set it was
/// running, as the harness's children are (tests/processes/isolation.rs): nothing reruns it
/// unless `--retries` asks, and then a pass is "passed after a crash", counted.
#[test]
fn a_worker_that_served_others_and_dies_errors_its_data_set_unless_retries_pass_it() {
    let setup = setup();
    let worker = setup.dir.path().join("worker.sh");
    let backend = format!("exec:MODE=second sh {}", worker.display());
    let node = concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata/onnx-1.22.0/node");
    let check = |retries: &str| {
        let mut args = vec![
            "--backend",
            &backend,
            "--retries",
            retries,
            "--jobs",
            "1",
            "--format",
            "json",
        ];
        for case in [
            "test_constant_pad",
            "test_constant_pad_axes",
            "test_edge_pad",
            "test_reflect_pad",
            "test_wrap_pad",
        ] {
            args.extend(["--pattern", case]);
        }
        args.push(node);
        let out = run(&args);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
        (out, report)
    };
    let count = |report: &serde_json::Value, keep: &dyn Fn(&serde_json::Value) -> bool| {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|case| keep(case))
            .count()
    };
    // The first worker serves data sets 1 and 2, which aborts it; a fresh one 3 and 4; a
    // third the fifth.
    let (out, report) = check("0");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let crashed = |case: &serde_json::Value| {
        case["status"] == "errored" && case["verdict"]["failure"]["crash"].is_object() && case.get("retry").is_none()
    };
    assert_eq!(count(&report, &crashed), 2, "{report}");
    assert_eq!(count(&report, &|case| case["status"] == "passed"), 3, "{report}");
    let (out, report) = check("1");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let after_crash = |case: &serde_json::Value| {
        case["status"] == "passed" && case["retry"]["after"]["crash"].is_object() && case["retry"]["tries"] == 3
    };
    assert_eq!(count(&report, &after_crash), 2, "{report}");
    assert_eq!(report["summary"]["after_crash"], 2, "{report}");
    assert_eq!(count(&report, &|case| case["status"] == "passed"), 5, "{report}");
}

#[test]
fn retries_are_bounded() {
    let out = run(&["--retries", "11", "--list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("11 retries: give 0 to 10"),
        "{out:?}"
    );
}
