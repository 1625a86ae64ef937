//! One run, several reports: `--output` repeated writes each file in the format its extension
//! names, each the report a run writing it alone writes; a file whose extension names no
//! format, or one named twice, is refused before anything runs, naming it.

use crate::support;

use std::path::Path;

use support::files::{arg_of, failing_tree, run};
use support::untimed::untimed_json;

/// What two runs never share: a JSON report's durations and JUnit's `time` attributes.
fn untimed(path: &Path) -> String {
    if path.extension().is_some_and(|e| e == "json") {
        return untimed_json(path).to_string();
    }
    let text = std::fs::read_to_string(path).unwrap();
    // ` time="0.001"` dropped wherever it stands.
    let mut rest = text.as_str();
    let mut kept = String::new();
    while let Some(at) = rest.find(" time=\"") {
        kept.push_str(&rest[..at]);
        let after = &rest[at + " time=\"".len()..];
        rest = &after[after.find('"').unwrap() + 1..];
    }
    kept.push_str(rest);
    kept
}

#[test]
fn one_run_writes_each_report_as_a_run_writing_it_alone_does() {
    let tree = failing_tree();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let file = |name: &str| dir.path().join(name);
    // A baseline listing the failure, so that every report shows the gate too.
    let baseline = file("known.json");
    let recorded = run(&["--write-baseline", arg_of(&baseline), arg_of(tree.path())]);
    assert_eq!(
        recorded.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let judged = |outputs: &[&Path]| {
        let mut args = vec!["--baseline", arg_of(&baseline)];
        for output in outputs {
            args.extend(["--output", arg_of(output)]);
        }
        args.push(arg_of(tree.path()));
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let together = [file("run.json"), file("run.xml"), file("run.md")];
    let out = judged(&together.each_ref().map(|p| p.as_path()));
    // No report is human: the log still streams to standard output, the gate's label and all.
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("KNOWN test_wrap_pad/0  Pad-25"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("1 passed, 1 failed, 0 errored, 0 skipped"));
    for (shared, alone) in together
        .iter()
        .zip([file("alone.json"), file("alone.xml"), file("alone.md")])
    {
        judged(&[&alone]);
        assert_eq!(untimed(shared), untimed(&alone), "{}", shared.display());
    }
    // Each is the format its extension names, and shows the known failure.
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&together[0]).unwrap()).unwrap();
    assert_eq!(
        json["baseline"]["expected_failures"],
        serde_json::json!(["test_wrap_pad/0"])
    );
    let xml = std::fs::read_to_string(&together[1]).unwrap();
    assert!(
        xml.contains("<testsuites") && xml.contains("known failure (in the baseline"),
        "{xml}"
    );
    let markdown = std::fs::read_to_string(&together[2]).unwrap();
    assert!(markdown.starts_with("### pad-conformance: backend `ref`"), "{markdown}");
    assert!(markdown.contains("| failed | known: "), "{markdown}");
    // A human file takes the log: standard output stays quiet.
    let log = file("run.log");
    let out = judged(&[&together[0], &log]);
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("KNOWN test_wrap_pad/0  Pad-25"), "{logged}");
    assert_eq!(logged.lines().last(), Some("1 passed, 1 failed, 0 errored, 0 skipped"));
}

#[test]
fn an_output_of_no_format_or_named_twice_is_refused_naming_it_before_the_run() {
    let tree = failing_tree();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let json = dir.path().join("run.json");
    let unknown = dir.path().join("run.yaml");
    let out = run(&[
        "--output",
        arg_of(&json),
        "--output",
        arg_of(&unknown),
        arg_of(tree.path()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "--output {}: its extension names no report format",
            unknown.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains(".xml (JUnit)"), "{stderr}");
    // The same file twice, however it is spelled.
    let again = dir.path().join(".").join("run.json");
    let out = run(&[
        "--output",
        arg_of(&json),
        "--output",
        arg_of(&again),
        arg_of(tree.path()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("--output and --output both name {}", again.display())),
        "{stderr}"
    );
    // Nothing ran, nothing was written.
    assert!(!json.exists() && !unknown.exists());
    // --format names one format: with several files, each takes its extension's.
    let xml = dir.path().join("run.xml");
    let out = run(&[
        "--format",
        "json",
        "--output",
        arg_of(&json),
        "--output",
        arg_of(&xml),
        arg_of(tree.path()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format with 2 --output files"));
}
