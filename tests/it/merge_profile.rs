//! `merge --profile`: a run made without a profile, judged with one afterwards, gives what a
//! run made with it gives; a report run otherwise than it is judged is refused, saying why.

use crate::support;

use std::path::Path;

use support::files::{arg_of, failing_tree, run};
use support::untimed::untimed_json;

/// `merge REPORT --data TREE --profile PROFILE` (and `extra`), its exit code and stderr.
fn merge_with(report: &Path, tree: &Path, profile: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec![
        "merge",
        arg_of(report),
        "--data",
        arg_of(tree),
        "--profile",
        arg_of(profile),
    ];
    args.extend(extra);
    let out = run(&args);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_report_judged_with_a_profile_is_the_report_of_a_run_with_it() {
    let tree = failing_tree();
    let profile = tree.path().join("profile.toml");
    // The failing Pad-25 wrap is outside this profile: unsupported, and the run passes.
    std::fs::write(&profile, "modes = [\"constant\", \"edge\"]\n").unwrap();
    let (profiled, plain, judged) = (
        tree.path().join("profiled.json"),
        tree.path().join("plain.json"),
        tree.path().join("judged.json"),
    );
    let data = arg_of(tree.path());
    let out = run(&[
        "--profile",
        arg_of(&profile),
        "--format",
        "json",
        "--output",
        arg_of(&profiled),
        data,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(&["--format", "json", "--output", arg_of(&plain), data]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, stderr) = merge_with(
        &plain,
        tree.path(),
        &profile,
        &["--format", "json", "--output", arg_of(&judged)],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let judged = untimed_json(&judged);
    assert_eq!(judged["cases"][1]["status"], "unsupported", "{judged}");
    assert_eq!(untimed_json(&profiled), judged);
}

#[test]
fn a_report_run_otherwise_than_it_is_judged_is_refused_naming_why() {
    let tree = failing_tree();
    let data = arg_of(tree.path());
    let (plain, profiled) = (tree.path().join("plain.json"), tree.path().join("profiled.json"));
    let (edge_only, initializers) = (tree.path().join("edge.toml"), tree.path().join("init.toml"));
    std::fs::write(&edge_only, "modes = [\"edge\"]\n").unwrap();
    // pads as initializers: the backend is handed another model than the run handed it.
    std::fs::write(&initializers, "[inputs]\npads = \"initializer\"\n").unwrap();
    run(&["--format", "json", "--output", arg_of(&plain), data]);
    run(&[
        "--profile",
        arg_of(&edge_only),
        "--format",
        "json",
        "--output",
        arg_of(&profiled),
        data,
    ]);

    let (code, stderr) = merge_with(&plain, tree.path(), &initializers, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("data set test_edge_pad/0 runs with pads as initializers under --profile")
            && stderr.contains("only a run made with the profile can be judged with it"),
        "{stderr}"
    );
    // Run with one profile, judged with another.
    let (code, stderr) = merge_with(&profiled, tree.path(), &initializers, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("profiled.json: run with the profile of sha256 "),
        "{stderr}"
    );
    assert!(stderr.contains("but --profile "), "{stderr}");
    // Judged with the profile it ran with, it stands as it was.
    let (code, stderr) = merge_with(&profiled, tree.path(), &edge_only, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // Without its run's facts, whether it ran with a profile is unknown.
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&plain).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("run");
    std::fs::write(&plain, json.to_string()).unwrap();
    let (code, stderr) = merge_with(&plain, tree.path(), &edge_only, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("plain.json: records no \"run\""), "{stderr}");
}
