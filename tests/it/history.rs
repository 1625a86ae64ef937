//! `history`: releases recorded from real run reports, the page written from them, one data
//! set shown across them, and stored files that lie refused naming the file and field.

use crate::support;

use std::path::Path;

use support::files::{arg_of, failing_tree, run};

/// The reference's JSON report of the data sets of `tree` that `filter` selects (all when
/// empty), written to `output`; the run's exit code must be `code`.
fn ref_run(tree: &Path, filter: &str, output: &Path, code: i32) {
    let mut args = vec!["--format", "json", "--output", arg_of(output), arg_of(tree)];
    if !filter.is_empty() {
        args.extend(["--filter", filter]);
    }
    let out = run(&args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The JSON report at `from`, its runtime made `rt` at `version`, written to `to`: the report
/// a release's worker would write.
fn as_release(from: &Path, version: &str, to: &Path) -> serde_json::Value {
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(from).unwrap()).unwrap();
    json["runtime"] = serde_json::json!({"name": "rt", "version": version});
    std::fs::write(to, serde_json::to_vec(&json).unwrap()).unwrap();
    json
}

/// A run of the reference over `tree` as the report of runtime `rt` at `version`, with the
/// failing wrap data set passing when `fixed`.
fn release_report(tree: &Path, version: &str, fixed: bool) -> std::path::PathBuf {
    let plain = tree.join("plain.json");
    if !plain.exists() {
        let out = run(&["--format", "json", "--output", arg_of(&plain), arg_of(tree)]);
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let path = tree.join(format!("run-{version}.json"));
    let mut json = as_release(&plain, version, &path);
    if fixed {
        for case in json["cases"].as_array_mut().unwrap() {
            if case["status"] == "failed" {
                case["status"] = "passed".into();
                case["verdict"] = serde_json::json!({"verdict": "passed", "bit_exact": true});
            }
        }
    }
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    path
}

/// `history record` of `report` into the history directory `dir`, with a self-check of the
/// same release (the reference's run of test_edge_pad, or `self-check.json` when the test
/// wrote one).
fn record(tree: &Path, report: &Path, dir: &Path) -> std::process::Output {
    let version: serde_json::Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    let version = version["runtime"]["version"].as_str().unwrap().to_owned();
    let self_check = tree.join("self-check.json");
    if !self_check.exists() {
        ref_run(tree, "test_edge_pad", &self_check, 0);
    }
    let of_release = tree.join(format!("self-check-{version}.json"));
    as_release(&self_check, &version, &of_release);
    run(&[
        "history",
        "record",
        "--report",
        arg_of(report),
        "--self-check",
        arg_of(&of_release),
        "--date",
        "2026-11-28",
        "--dir",
        arg_of(dir),
        arg_of(tree),
    ])
}

/// The runtime file `history/rt.json` as JSON.
fn runtime_file(history: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(history.join("rt.json")).unwrap()).unwrap()
}

/// Release `version` of the runtime file `file`, with its data sets' list.
fn release<'a>(file: &'a serde_json::Value, version: &str) -> (&'a serde_json::Value, Vec<&'a str>) {
    let release = file["releases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["version"] == version)
        .unwrap_or_else(|| panic!("no release {version} in {file}"));
    let key = release["data_sets"].as_str().unwrap();
    let list = file["lists"][key]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    (release, list)
}

#[test]
fn a_failure_fixed_in_a_later_release_is_one_line_saying_where() {
    let tree = failing_tree();
    let history = tree.path().join("history");
    for (version, fixed) in [("1.9.0", false), ("1.10.0", true)] {
        let report = release_report(tree.path(), version, fixed);
        let out = record(tree.path(), &report, &history);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let file = runtime_file(&history);
    let (stored, data_sets) = release(&file, "1.9.0");
    assert_eq!(data_sets.len(), 2, "{file}");
    // Both releases ran the same data sets: one list, stored once.
    assert_eq!(file["lists"].as_object().unwrap().len(), 1, "{file}");
    let not_passed = stored["not_passed"].as_array().unwrap();
    assert_eq!(not_passed.len(), 1);
    assert_eq!(not_passed[0]["status"], "failed");
    assert_eq!(
        not_passed[0]["group"],
        "spec failed: wrong-values: wrap padding, other values"
    );
    let digest = not_passed[0]["data_sets"][0].as_str().unwrap();
    assert_eq!(file["names"][digest], "test_wrap_pad/0");
    // The group's label, its smallest data set's message as said: numbers kept.
    let said =
        "mismatch: output 0 \"y\": 1 of 126 elements differ; the differing element is in padding; the interior matches";
    assert_eq!(
        stored["messages"]["spec failed: wrong-values: wrap padding, other values"], said,
        "{file}"
    );

    let page = run(&["history", "write", "--dir", arg_of(&history)]);
    assert_eq!(page.status.code(), Some(0), "{}", String::from_utf8_lossy(&page.stderr));
    let page = String::from_utf8(page.stdout).unwrap();
    // 1.10.0 sorts after 1.9.0 by its numbers, not its characters.
    // Conformance, then coverage: 1 of 2 passed, both supported.
    assert!(
        page.contains(" | 1 | 1 | 0 | 0 | 2 | 50.0% | 100.0% | ██████████░░░░░░░░░░ |"),
        "{page}"
    );
    assert!(page.contains(" | 2 | 0 | 0 | 0 | 2 | 100.0% | 100.0% | "), "{page}");
    assert!(
        page.find("| 1.9.0 |") < page.find("| 1.10.0 |"),
        "1.10.0 sorts after 1.9.0: {page}"
    );
    assert!(
        page.contains(&format!(
            "- **1.10.0** (2026-11-28, since 1.9.0):\n  - fixed: 1 × wrong-values: wrap padding, other values (failed, spec basis); \
             e.g. test\\_wrap\\_pad/0. It says: {said}\n"
        )),
        "{page}"
    );
    assert!(
        page.contains(
            "- **wrong-values: wrap padding, other values (failed, spec basis)**: fixed in 1.10.0. 1.9.0 failing (1) → 1.10.0 passing"
        ),
        "{page}"
    );

    let case = run(&[
        "history",
        "case",
        "test_wrap_pad/0",
        "--dir",
        arg_of(&history),
        arg_of(tree.path()),
    ]);
    assert_eq!(case.status.code(), Some(0), "{}", String::from_utf8_lossy(&case.stderr));
    let case = String::from_utf8(case.stdout).unwrap();
    let lines: Vec<&str> = case.lines().map(str::trim_end).collect();
    assert_eq!(lines[1], "rt:");
    assert_eq!(
        lines[2],
        "  1.9.0        failed: wrong-values: wrap padding, other values (failed, spec basis)"
    );
    assert_eq!(lines[3], "  1.10.0       passed  <- changed");

    // What the newest release changed, on the terminal, with the command to follow it.
    let changes = run(&["history", "changes", "rt", "--dir", arg_of(&history)]);
    assert_eq!(
        changes.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&changes.stderr)
    );
    assert_eq!(
        String::from_utf8(changes.stdout).unwrap(),
        format!(
            "rt 1.10.0 (2026-11-28), since 1.9.0: 1 fixed\n  \
             fixed: 1 × wrong-values: wrap padding, other values (failed, spec basis)\n      \
             says: {said}\n      \
             e.g. test_wrap_pad/0: pad-conformance history case test_wrap_pad/0\n"
        )
    );
    let first = run(&["history", "changes", "rt", "1.9.0", "--dir", arg_of(&history)]);
    assert_eq!(
        String::from_utf8(first.stdout).unwrap(),
        "rt 1.9.0 (2026-11-28): the first stored release: nothing to weigh it against\n"
    );
    let none = run(&["history", "changes", "rt", "2.0", "--dir", arg_of(&history)]);
    assert_eq!(none.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&none.stderr)
            .contains("\"2.0\": no stored release of rt of that version; stored: 1.9.0, 1.10.0"),
        "{none:?}"
    );
}

#[test]
fn a_runtime_file_renamed_or_edited_is_refused_naming_the_field() {
    let tree = failing_tree();
    let history = tree.path().join("history");
    let report = release_report(tree.path(), "2.0", false);

    // A self-check of another release is not this release's.
    ref_run(tree.path(), "test_edge_pad", &tree.path().join("self-check.json"), 0);
    let other = tree.path().join("self-check-other.json");
    as_release(&tree.path().join("self-check.json"), "1.0", &other);
    let out = run(&[
        "history",
        "record",
        "--report",
        arg_of(&report),
        "--self-check",
        arg_of(&other),
        "--dir",
        arg_of(&history),
        arg_of(tree.path()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("runtime: rt 1.0, but the run is of rt 2.0"),
        "{out:?}"
    );
    assert!(!history.join("rt.json").exists());

    assert_eq!(record(tree.path(), &report, &history).status.code(), Some(0));
    let stored = history.join("rt.json");
    // Another runtime's name: the file names its runtime twice, and both must agree.
    std::fs::copy(&stored, history.join("other.json")).unwrap();
    let out = run(&["history", "write", "--dir", arg_of(&history)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("other.json: runtime: \"rt\", but the file is named \"other\""),
        "{stderr}"
    );
    std::fs::remove_file(history.join("other.json")).unwrap();

    // A failure edited away with its data set: the list no longer has the digest it is stored under.
    let mut json = runtime_file(&history);
    let key = json["releases"][0]["data_sets"].as_str().unwrap().to_owned();
    json["lists"][&key].as_array_mut().unwrap().pop();
    json["releases"][0]["not_passed"] = serde_json::json!([]);
    std::fs::write(&stored, serde_json::to_vec(&json).unwrap()).unwrap();
    let out = run(&["history", "write", "--dir", arg_of(&history)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("rt.json: lists.{key}: not the digest of the list it names")),
        "{stderr}"
    );
}

#[test]
fn a_release_whose_worker_fails_its_self_check_is_stored_without_results() {
    let tree = failing_tree();
    let report = release_report(tree.path(), "3.0", false);
    // The self-check ran a data set that failed: the worker, not the release, is at fault.
    let self_check = tree.path().join("self-check.json");
    ref_run(tree.path(), "test_wrap_pad", &self_check, 1);
    let history = tree.path().join("history");
    assert_eq!(record(tree.path(), &report, &history).status.code(), Some(0));
    let file = runtime_file(&history);
    let (json, data_sets) = release(&file, "3.0");
    assert_eq!(json["worker"]["passed"], false);
    assert!(
        json["worker"]["detail"].as_str().unwrap().starts_with("failed: "),
        "{json}"
    );
    assert_eq!(data_sets.len(), 0);
    let page = run(&["history", "write", "--dir", arg_of(&tree.path().join("history"))]);
    let page = String::from_utf8(page.stdout).unwrap();
    assert!(
        page.contains("The worker failed its self-check on these releases"),
        "{page}"
    );
    assert!(
        page.contains(" | 0 | 0 | 0 | 0 | 0 | — | — | worker failed |"),
        "{page}"
    );
}

#[test]
fn a_run_of_part_of_the_corpus_adds_to_what_the_release_file_holds() {
    let tree = failing_tree();
    let stored = tree.path().join("history");
    let whole = release_report(tree.path(), "4.0", false);
    assert_eq!(record(tree.path(), &whole, &stored).status.code(), Some(0));
    // Only the edge data set again (as after a corpus change that touched only it).
    let plain = tree.path().join("edge-plain.json");
    ref_run(tree.path(), "test_edge_pad", &plain, 0);
    let part = tree.path().join("part.json");
    as_release(&plain, "4.0", &part);
    assert_eq!(record(tree.path(), &part, &stored).status.code(), Some(0));
    let file = runtime_file(&stored);
    let (after, data_sets) = release(&file, "4.0");
    // The wrap data set's failure, not run this time, is kept beside the edge data set's pass.
    assert_eq!(data_sets.len(), 2, "{file}");
    let kept = after["not_passed"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{file}");
    assert_eq!(
        file["names"][kept[0]["data_sets"][0].as_str().unwrap()],
        "test_wrap_pad/0"
    );

    // A report with a case removed is not the run it says it is.
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&whole).unwrap()).unwrap();
    json["cases"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["id"] == "test_wrap_pad");
    let cut = tree.path().join("cut.json");
    std::fs::write(&cut, serde_json::to_vec(&json).unwrap()).unwrap();
    let out = record(tree.path(), &cut, &stored);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("run.selection: not the digest"),
        "{out:?}"
    );
}

#[test]
fn a_data_set_unsupported_in_a_release_is_shown_so_and_a_release_supporting_nothing_is_not_a_worker_failure() {
    let tree = failing_tree();
    let history = tree.path().join("history");
    // The profile leaves out wrap: that data set is unsupported in this release.
    let profile = tree.path().join("profile.toml");
    std::fs::write(&profile, "modes = [\"constant\", \"edge\"]\n").unwrap();
    let plain = tree.path().join("profiled.json");
    let out = run(&[
        "--profile",
        arg_of(&profile),
        "--format",
        "json",
        "--output",
        arg_of(&plain),
        arg_of(tree.path()),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report = tree.path().join("run-5.0.json");
    as_release(&plain, "5.0", &report);
    assert_eq!(record(tree.path(), &report, &history).status.code(), Some(0));
    let case = run(&[
        "history",
        "case",
        "test_wrap_pad/0",
        "--dir",
        arg_of(&history),
        arg_of(tree.path()),
    ]);
    assert_eq!(case.status.code(), Some(0), "{}", String::from_utf8_lossy(&case.stderr));
    assert!(
        String::from_utf8(case.stdout)
            .unwrap()
            .contains("  5.0          unsupported")
    );

    // Everything unsupported: a release that supports nothing, not one whose worker failed.
    std::fs::write(&profile, "modes = [\"reflect\"]\n").unwrap();
    let out = run(&[
        "--profile",
        arg_of(&profile),
        "--format",
        "json",
        "--output",
        arg_of(&plain),
        arg_of(tree.path()),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    as_release(&plain, "5.1", &tree.path().join("run-5.1.json"));
    assert_eq!(
        record(tree.path(), &tree.path().join("run-5.1.json"), &history)
            .status
            .code(),
        Some(0)
    );
    let page = String::from_utf8(run(&["history", "write", "--dir", arg_of(&history)]).stdout).unwrap();
    // Applicable, not supported: no conformance, no coverage, but not "worker failed".
    assert!(page.contains(" | 0 | 0 | 0 | 2 | 2 | 0.0% | 0.0% |  |"), "{page}");
}

#[test]
fn a_data_set_listed_twice_in_a_stored_release_is_refused() {
    let tree = failing_tree();
    let history = tree.path().join("history");
    let report = release_report(tree.path(), "6.0", false);
    assert_eq!(record(tree.path(), &report, &history).status.code(), Some(0));
    // The failure listed again as a skip: which of the two would hold?
    let mut json = runtime_file(&history);
    let digest = json["releases"][0]["not_passed"][0]["data_sets"][0].clone();
    json["releases"][0]["not_passed"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"status": "skipped", "data_sets": [digest]}));
    std::fs::write(history.join("rt.json"), serde_json::to_vec(&json).unwrap()).unwrap();
    let out = run(&["history", "write", "--dir", arg_of(&history)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "rt.json: 6.0: not_passed: {} is listed twice",
            digest.as_str().unwrap()
        )),
        "{stderr}"
    );

    // In a name table too, a key named twice is refused, as in any JSON file read.
    let text = std::fs::read_to_string(history.join("rt.json")).unwrap();
    let names_twice = text.replacen("\"names\":{", &format!("\"names\":{{\n{digest}:\"x/0\","), 1);
    std::fs::write(history.join("rt.json"), names_twice).unwrap();
    let out = run(&["history", "write", "--dir", arg_of(&history)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is named twice in one object (lines"), "{stderr}");
}

#[test]
fn a_release_file_of_format_1_is_still_read_and_compact_moves_it_into_the_runtimes_file() {
    let tree = failing_tree();
    let history = tree.path().join("history");
    let report = release_report(tree.path(), "7.0", false);
    assert_eq!(record(tree.path(), &report, &history).status.code(), Some(0));
    let page = |history: &Path| {
        let out = run(&["history", "write", "--dir", arg_of(history)]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    // Format 1 stored no messages: the same release without them.
    let mut file = runtime_file(&history);
    file["releases"][0].as_object_mut().unwrap().remove("messages").unwrap();
    std::fs::write(history.join("rt.json"), serde_json::to_vec(&file).unwrap()).unwrap();
    let written = page(&history);
    // The same release as format 1 wrote it: history/rt/7.0.json, its lists inline.
    let (stored, data_sets) = release(&file, "7.0");
    let set = &stored["not_passed"][0];
    let digest = set["data_sets"][0].as_str().unwrap();
    let old = serde_json::json!({
        "format": 1,
        "runtime": "rt",
        "version": "7.0",
        "corpora": stored["corpora"],
        "gating": stored["gating"],
        "tolerance": stored["tolerance"],
        "date": stored["date"],
        "worker": stored["worker"],
        "selection": stored["data_sets"],
        "data_sets": data_sets,
        "unsupported": [],
        "not_passed": {digest: {"name": file["names"][digest], "status": set["status"], "gates": set["gates"].as_bool().unwrap_or(false), "group": set["group"]}},
    });
    let legacy = tree.path().join("legacy");
    std::fs::create_dir_all(legacy.join("rt")).unwrap();
    std::fs::write(legacy.join("rt/7.0.json"), serde_json::to_vec_pretty(&old).unwrap()).unwrap();
    assert_eq!(page(&legacy), written);

    // Stored in both layouts: which one holds?
    std::fs::copy(history.join("rt.json"), legacy.join("rt.json")).unwrap();
    let out = run(&["history", "write", "--dir", arg_of(&legacy)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("7.0.json: version: 7.0 is stored in"),
        "{out:?}"
    );
    std::fs::remove_file(legacy.join("rt.json")).unwrap();

    let out = run(&["history", "compact", "--dir", arg_of(&legacy)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !legacy.join("rt").exists(),
        "the release file and its directory are gone"
    );
    assert_eq!(runtime_file(&legacy), runtime_file(&history));
    assert_eq!(page(&legacy), written);
}

#[test]
fn docs_history_md_is_what_the_stored_releases_say() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = run(&["history", "write", "--dir", arg_of(&root.join("history"))]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read_to_string(root.join("docs/history.md")).unwrap();
    assert!(
        String::from_utf8(out.stdout).unwrap() == committed,
        "docs/history.md is stale: run pad-conformance history write --output docs/history.md"
    );
}
