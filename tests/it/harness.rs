//! The libtest harness: one trial per data set, not-applicable cases ignored, and baselines
//! whose listed failures pass while failing and fail once they pass.

use crate::support;

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Conclusion};
use pad_conformance::testing::{Cause, Status};
use pad_conformance::{
    Backend, BackendError, Harness, Model, PadMode, Profile, ProfileError, RefBackend, Tensor, Tolerance,
};

/// Refuses the one case named `test_edge_pad`, runs the reference otherwise.
struct NoEdge;

impl Backend for NoEdge {
    fn name(&self) -> &str {
        "no-edge"
    }
    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        if model.path.to_string_lossy().contains("test_edge_pad") {
            return Err("edge is not implemented".into());
        }
        RefBackend.run(model, inputs)
    }
}

/// Runs the trials, writing libtest's report to a file so it does not read as this test
/// binary's own result.
fn conclude(harness: Harness) -> Conclusion {
    let log = tempfile::NamedTempFile::new().unwrap();
    let args = Arguments::from_iter(["harness", "--test-threads=1", "--logfile", log.path().to_str().unwrap()]);
    libtest_mimic::run(&args, pad_conformance::testing::trials(&harness).unwrap())
}

fn data() -> String {
    format!("{}/onnx-testdata/onnx-1.22.0", env!("CARGO_MANIFEST_DIR"))
}

fn baseline(dir: &Path, entries: &[&str]) -> std::path::PathBuf {
    let expected: serde_json::Map<String, serde_json::Value> = entries
        .iter()
        .map(|name| {
            (
                name.to_string(),
                serde_json::json!({"status": "errored", "reason": "not implemented"}),
            )
        })
        .collect();
    let path = dir.join("baseline.json");
    std::fs::write(&path, serde_json::json!({ "expected": expected }).to_string()).unwrap();
    path
}

#[test]
fn trials_are_named_by_case_and_data_set() {
    let trials = pad_conformance::testing::trials(&Harness::new(RefBackend).root(data())).unwrap();
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), 23);
    assert!(names.contains(&"node/test_wrap_pad/0"));
    let wrap = trials.iter().find(|t| t.name() == "node/test_wrap_pad/0").unwrap();
    assert_eq!(wrap.kind(), "Pad-25");
}

#[test]
fn an_unlisted_failure_fails_the_run() {
    let conclusion = conclude(Harness::new(NoEdge).root(data()));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (22, 1));
}

#[test]
fn a_listed_failure_passes_and_a_listed_pass_fails() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0"]);
    let conclusion = conclude(Harness::new(NoEdge).root(data()).baseline(&listed));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (23, 0));
    // The reference passes test_edge_pad: the stale entry is itself a failure.
    let conclusion = conclude(Harness::new(RefBackend).root(data()).baseline(&listed));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (22, 1));
}

#[test]
fn a_listed_failure_with_another_status_or_no_data_set_fails() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0", "node/test_gone_pad/0"]);
    // NoEdge errors on test_edge_pad, as listed; relisted as failed, it no longer matches.
    let text = std::fs::read_to_string(&listed).unwrap();
    let trials = pad_conformance::testing::trials(&Harness::new(NoEdge).root(data()).baseline(&listed)).unwrap();
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), 24);
    assert_eq!(names.last(), Some(&"baseline: entries for no data set"));
    let conclusion = conclude(Harness::new(NoEdge).root(data()).baseline(&listed));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (23, 1));
    std::fs::write(&listed, text.replace("errored", "failed")).unwrap();
    let conclusion = conclude(Harness::new(NoEdge).root(data()).baseline(&listed));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (22, 2));
}

#[test]
fn not_applicable_cases_are_ignored_trials() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let case = dir.path().join("test_conv_pad");
    std::fs::create_dir_all(&case).unwrap();
    // A model whose graph holds only an Identity node.
    let model = pad_conformance::testing::ModelProto {
        ir_version: 8,
        opset_import: vec![pad_conformance::testing::OperatorSetIdProto {
            domain: String::new(),
            version: 19,
        }],
        graph: Some(pad_conformance::testing::GraphProto {
            node: vec![pad_conformance::testing::NodeProto {
                op_type: "Identity".into(),
                input: vec!["x".into()],
                output: vec!["y".into()],
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    std::fs::write(case.join("model.onnx"), prost::Message::encode_to_vec(&model)).unwrap();
    let trials = pad_conformance::testing::trials(&Harness::new(RefBackend).root(dir.path())).unwrap();
    assert_eq!(trials.len(), 1);
    let run = execute(Harness::new(RefBackend).root(dir.path()), None);
    let conclusion = run.conclusion;
    assert_eq!(
        (conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored),
        (0, 0, 1)
    );
    // Counted in the harness's summary, which accounts for every data set.
    assert_eq!((run.summary.skipped, run.summary.total), (1, 1));
}

#[test]
fn without_a_root_the_harness_runs_the_bundled_cases() {
    let trials = pad_conformance::testing::trials(&Harness::new(RefBackend)).unwrap();
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"onnx-1.22.0/node/test_wrap_pad/0"), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("extended/")));
}

/// The reference's answers, each nonzero float nudged by one part in 4096: 2048 to 4096 ULPs
/// away, never bit-identical.
struct Nudging;

impl Backend for Nudging {
    fn name(&self) -> &str {
        "nudging"
    }
    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let outputs = RefBackend.run(model, inputs)?;
        Ok(outputs
            .into_iter()
            .map(|t| match t {
                Tensor::Float(a) => Tensor::Float(a.mapv(|x| x * (1.0 + 1.0 / 4096.0))),
                other => other,
            })
            .collect())
    }
}

/// Runs the trials through `Harness::execute`, libtest's report in a file.
fn execute(harness: Harness, filter: Option<&str>) -> pad_conformance::testing::HarnessRun {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut args = vec!["harness", "--test-threads=1", "--logfile", log.path().to_str().unwrap()];
    args.extend(filter);
    pad_conformance::testing::execute(harness, &Arguments::from_iter(args)).unwrap()
}

#[test]
fn lossy_passes_are_counted_and_named() {
    let harness = Harness::new(Nudging).ulps(4096).root(data());
    let run = execute(harness, None);
    assert_eq!(run.conclusion.num_failed, 0);
    let summary = run.summary;
    let names: Vec<&str> = summary.lossy.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"node/test_constant_pad/0"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.contains("wrap")),
        "test_wrap_pad is int32: {names:?}"
    );
    // Each lossy pass carries its largest distance, within the 4096 allowed.
    for (name, deviation) in &summary.lossy {
        let ulps = deviation.as_ref().and_then(|d| d.max_ulps.as_ref()).map(|m| m.ulps);
        assert!(ulps.is_some_and(|u| (2048..=4096).contains(&u)), "{name}: {ulps:?}");
    }
    assert_eq!((summary.passed, summary.total), (23, 23));
    let line = summary.to_string();
    // The lossy passes first, the summary last.
    assert!(line.starts_with("  passed, not bit-identical: "), "{line}");
    assert!(
        line.contains(&format!(
            "\npad-conformance, backend nudging: 23 data sets: 23 passed ({} not bit-identical), 0 failed, 0 errored, 0 skipped\nno baseline: 0 failures, each new",
            names.len()
        )),
        "{line}"
    );
    assert!(line.ends_with("no baseline: 0 failures, each new"), "{line}");
    assert!(line.contains(" ulps at output 0 ["), "{line}");
}

#[test]
fn the_default_is_exact_and_ulps_loosen_it() {
    let failed = |harness: Harness| execute(harness, Some("test_constant_pad")).conclusion.num_failed;
    assert!(failed(Harness::new(Nudging).root(data())) > 0);
    assert!(failed(Harness::new(Nudging).root(data()).ulps(1000)) > 0);
    assert_eq!(failed(Harness::new(Nudging).root(data()).ulps(4096)), 0);
    let tolerance = Tolerance::Approx { rtol: 1e-3, atol: 0.0 };
    assert_eq!(failed(Harness::new(Nudging).tolerance(tolerance).root(data())), 0);
    // The reference itself passes every bit, NaN payloads included.
    assert_eq!(failed(Harness::new(RefBackend).exact().root(data())), 0);
}

/// `--list` runs no trial, so it records no baseline: the file, stale entry and all, stays as
/// it was (a recording would have dropped the entry that names no data set).
#[test]
fn a_listing_records_no_baseline() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_wrap_pad/0", "node/test_gone_pad/0"]);
    let before = std::fs::read_to_string(&listed).unwrap();
    let run = execute(
        Harness::new(NoEdge).root(data()).write_baseline(&listed),
        Some("--list"),
    );
    assert_eq!(run.conclusion.num_passed + run.conclusion.num_failed, 0);
    assert_eq!(std::fs::read_to_string(&listed).unwrap(), before);
}

#[test]
fn recording_a_filtered_run_keeps_the_entries_it_did_not_run() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_wrap_pad/0", "node/test_gone_pad/0"]);
    let run = execute(
        Harness::new(NoEdge).root(data()).write_baseline(&listed),
        Some("test_edge"),
    );
    assert_eq!((run.summary.new_failures, run.summary.known_failures), (1, 0));
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&listed).unwrap()).unwrap();
    let entries = recorded["expected"].as_object().unwrap();
    // test_edge_pad ran and errored: recorded. test_wrap_pad did not run: kept, reason
    // and all. test_gone_pad names no data set: dropped.
    assert_eq!(
        entries.keys().collect::<Vec<_>>(),
        ["node/test_edge_pad/0", "node/test_wrap_pad/0"]
    );
    assert_eq!(
        entries["node/test_edge_pad/0"]["reason"],
        "backend no-edge refused a valid input (kind refused): edge is not implemented"
    );
    assert_eq!(entries["node/test_wrap_pad/0"]["reason"], "not implemented");
}

#[test]
fn recording_a_missing_baseline_matches_it_however_its_path_is_spelled() {
    // A gate names its baseline by an absolute path; the command that records it, run from
    // the crate's directory, names it relatively.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let absolute = dir.path().join("known-failures.json");
    // From the current directory up to `/` and down again: relative wherever the target
    // directory lies, inside the crate or not.
    // (On Windows both lie on one drive; its prefix is left out with the root.)
    let cwd = std::env::current_dir().unwrap();
    let names = |path: &Path| -> Vec<std::ffi::OsString> {
        path.components()
            .filter_map(|c| match c {
                std::path::Component::Normal(name) => Some(name.to_owned()),
                _ => None,
            })
            .collect()
    };
    let mut relative = PathBuf::from(".");
    for _ in names(&cwd) {
        relative.push("..");
    }
    relative.extend(names(&absolute));
    assert!(relative.is_relative());
    let run = execute(
        Harness::new(NoEdge)
            .root(data())
            .baseline(&absolute)
            .write_baseline(&relative),
        Some("test_edge"),
    );
    assert_eq!((run.summary.new_failures, run.summary.known_failures), (1, 0));
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&absolute).unwrap()).unwrap();
    assert_eq!(
        recorded["expected"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["node/test_edge_pad/0"]
    );
}

fn upstream(release: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("onnx-testdata")
        .join(release)
}

#[test]
fn a_harness_recorded_baseline_dates_its_corpus_and_lets_no_regression_pass() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("known.json");
    // Recorded by a backend that fails nothing: an empty list, dated by the corpus version.
    let recording = execute(
        Harness::new(RefBackend)
            .root(upstream("onnx-1.23.2"))
            .write_baseline(&path),
        None,
    );
    assert_eq!(recording.conclusion.num_failed, 0);
    let recorded: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let version = std::fs::read_to_string(upstream("VERSION")).unwrap();
    assert_eq!(recorded["corpus_version"], version.trim().parse::<u64>().unwrap());
    assert_eq!(recorded["format"], 2);
    assert_eq!(
        recorded["written_by"],
        format!("pad-conformance {}", env!("CARGO_PKG_VERSION"))
    );
    // A regression on a data set new in that corpus version is a regression, not the
    // corpus's doing, and every data set is counted once.
    let run = execute(Harness::new(NoEdge).root(upstream("onnx-1.23.2")).baseline(&path), None);
    assert_eq!(run.conclusion.num_failed, 1);
    let summary = run.summary;
    assert_eq!((summary.new_failures, summary.passed, summary.total), (1, 22, 23));
    assert!(summary.changed_with_corpus.is_empty());
}

#[test]
fn a_baseline_without_a_corpus_version_excuses_nothing() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    // Format 1, no corpus version: before, it read as version 1 and excused every change
    // on the data sets corpus versions 2 and 3 added.
    let path = baseline(dir.path(), &[]);
    let run = execute(Harness::new(NoEdge).root(upstream("onnx-1.23.2")).baseline(&path), None);
    assert_eq!(run.conclusion.num_failed, 1);
    assert_eq!(run.summary.new_failures, 1);
    // A version the corpus never had is an error naming the file.
    for bad in [0u64, 4294967295] {
        std::fs::write(
            &path,
            serde_json::json!({"corpus_version": bad, "expected": {}}).to_string(),
        )
        .unwrap();
        let error =
            pad_conformance::testing::trials(&Harness::new(NoEdge).root(upstream("onnx-1.23.2")).baseline(&path))
                .err()
                .unwrap()
                .to_string();
        assert!(
            error.contains(&format!("{}: corpus_version {bad} for onnx-testdata", path.display())),
            "{error}"
        );
    }
}

#[test]
fn a_baseline_from_an_older_corpus_names_what_changed_and_counts_it() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("known.json");
    std::fs::write(
        &path,
        serde_json::json!({"corpus_version": 2, "expected": {}}).to_string(),
    )
    .unwrap();
    // onnx-1.23.2 came with corpus version 3: a different verdict there is the corpus's,
    // shown with the changelog's reason and counted, never silently `ok`.
    let run = execute(Harness::new(NoEdge).root(upstream("onnx-1.23.2")).baseline(&path), None);
    assert_eq!(run.conclusion.num_failed, 0);
    let summary = run.summary;
    assert_eq!(summary.changed_with_corpus.len(), 1);
    assert_eq!(summary.passed + summary.changed_with_corpus.len(), summary.total);
    let line = summary.to_string();
    assert!(
        line.contains(
            "changed with the corpus, not the backend: node/test_edge_pad/0: was passed, now errored \
             (corpus version 3: new, onnx 1.23.2 (basis spec))"
        ),
        "{line}"
    );
}

/// A corpus of VERSION, CHANGELOG.md, MANIFEST.tsv and onnx-1.22.0, copied.
fn corpus_copy() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    for file in ["VERSION", "CHANGELOG.md", "MANIFEST.tsv"] {
        std::fs::copy(upstream(file), dir.path().join(file)).unwrap();
    }
    support::files::copy_dir(&upstream("onnx-1.22.0"), &dir.path().join("onnx-1.22.0"));
    dir
}

fn failures(run: &pad_conformance::testing::HarnessRun) -> usize {
    run.summary.new_failures
}

#[test]
fn a_sidecar_cannot_relabel_upstream_data_and_a_changed_file_fails() {
    let corpus = corpus_copy();
    let edge = corpus.path().join("onnx-1.22.0/node/test_edge_pad");
    // A case.json saying "undefined" would make the failure not gating.
    std::fs::write(
        edge.join("case.json"),
        r#"{"op": "Pad", "domain": "", "version": 25, "mode": "edge", "dtype": "float", "expect": "output",
            "basis": {"kind": "undefined", "section": "planted"}}"#,
    )
    .unwrap();
    let root = corpus.path().join("onnx-1.22.0");
    let trials = Harness::new(RefBackend).root(&root);
    let run = execute(trials, Some("test_edge_pad"));
    assert_eq!(
        (run.conclusion.num_failed, failures(&run), run.summary.not_gating),
        (1, 1, 0)
    );
    std::fs::remove_file(edge.join("case.json")).unwrap();
    // One changed byte in an expected output: an error naming the file, never a pass.
    let output = corpus
        .path()
        .join("onnx-1.22.0/node/test_wrap_pad/test_data_set_0/output_0.pb");
    let mut bytes = std::fs::read(&output).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&output, bytes).unwrap();
    let run = execute(Harness::new(RefBackend).root(&root), None);
    assert_eq!((run.conclusion.num_failed, run.summary.passed), (1, 22));
    let cases = pad_conformance::testing::discover(&[root], &Default::default()).unwrap();
    let wrap = cases.iter().find(|c| c.id == "node/test_wrap_pad").unwrap();
    let problem = wrap.problem.as_ref().unwrap().to_string();
    assert!(problem.contains("output_0.pb: its sha256 differs from"), "{problem}");
    assert!(problem.contains("MANIFEST.tsv"), "{problem}");
}

/// A copy of a bundled data set outside the corpus keeps the bundled basis whatever case.json
/// lies beside it: the refusal of a valid data set gates (it was "answers not gating").
#[test]
fn a_copy_of_a_bundled_data_set_gates_on_its_bundled_basis() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let edge = dir.path().join("test_edge_pad");
    support::files::copy_dir(&upstream("onnx-1.22.0/node/test_edge_pad"), &edge);
    std::fs::write(
        edge.join("case.json"),
        r#"{"op": "Pad", "domain": "", "version": 25, "mode": "edge", "dtype": "float", "expect": "output",
            "basis": {"kind": "undefined", "section": "planted"}}"#,
    )
    .unwrap();
    let run = execute(Harness::new(NoEdge).root(dir.path()), None);
    assert_eq!(
        (run.conclusion.num_failed, failures(&run), run.summary.not_gating),
        (1, 1, 0)
    );
    let cases = pad_conformance::testing::discover(&[dir.path().to_owned()], &Default::default()).unwrap();
    assert_eq!(cases[0].basis_of(0).kind, pad_conformance::Basis::Spec);
}

#[test]
fn a_version_planted_in_a_parent_is_not_adopted() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    std::fs::write(dir.path().join("VERSION"), "7\n").unwrap();
    std::fs::write(dir.path().join("CHANGELOG.md"), "## 7\n").unwrap();
    std::fs::write(
        dir.path().join("MANIFEST.tsv"),
        "release\tcase\tfile\torigin\tbytes\tsha256\n",
    )
    .unwrap();
    let data = dir.path().join("mine");
    support::files::copy_dir(&upstream("onnx-1.22.0/node/test_edge_pad"), &data.join("test_edge_pad"));
    assert!(pad_conformance::testing::Corpus::find(&data).unwrap().is_none());
    // The real corpus is found from any of its data directories.
    let found = pad_conformance::testing::Corpus::find(&upstream("onnx-1.22.0/node"))
        .unwrap()
        .unwrap();
    assert_eq!(found.dir, upstream("").canonicalize().unwrap());
    // A baseline recorded over the planted tree has no version to record.
    let path = dir.path().join("known.json");
    execute(Harness::new(RefBackend).root(&data).write_baseline(&path), None);
    let recorded: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(recorded.get("corpus_version").is_none(), "{recorded}");
}

#[test]
fn a_sidecar_that_contradicts_its_model_or_its_rules_is_a_named_error() {
    use pad_conformance::testing::{CheckOptions, Status, check_data_set};

    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let case = dir.path().join("test_ext_pad18_err_mode_wrap");
    support::files::copy_dir(&upstream("extended/test_ext_pad18_err_mode_wrap"), &case);
    // With the valid twin its case.json names: a twin that does not exist errors the case.
    let twin = "test_ext_pad18_err_mode_wrap_twin";
    support::files::copy_dir(&upstream(&format!("extended/{twin}")), &dir.path().join(twin));
    let info_path = case.join("case.json");
    let info: serde_json::Value = serde_json::from_slice(&std::fs::read(&info_path).unwrap()).unwrap();
    assert_eq!(info["rules"], serde_json::json!(["mode-not-in-version"]));
    let run = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut edited = info.clone();
        edit(&mut edited);
        std::fs::write(&info_path, edited.to_string()).unwrap();
        let cases = pad_conformance::testing::discover(&[dir.path().to_owned()], &Default::default()).unwrap();
        check_data_set(&RefBackend, &cases[0], 0, &CheckOptions::default())
    };
    // As generated: refused as required, by the rule the sidecar lists.
    assert_eq!(run(&|_| {}).status(), Status::Passed);
    // A weaker basis than the rule's would make the case not gating: refused, named.
    let relabelled = run(&|i| i["basis"]["kind"] = "undefined".into());
    assert_eq!(relabelled.status(), Status::Errored);
    assert!(
        relabelled
            .message()
            .ends_with("case.json: its basis is \"undefined\", but the table of the rules it lists says \"spec\""),
        "{}",
        relabelled.message()
    );
    // A broken case gates, whatever basis its sidecar claims.
    assert!(relabelled.gates() && relabelled.is_gating_failure());
    let wrong_version = run(&|i| {
        i["version"] = 19.into();
        i["basis"]["kind"] = "reference".into();
        // Its Pad-18 twin would be refused first, at discovery, as another operator.
        i.as_object_mut().unwrap().remove("twin");
    });
    assert!(wrong_version.gates(), "{}", wrong_version.message());
    assert!(
        wrong_version
            .message()
            .ends_with("case.json: its version is \"19\", but the model says \"18\""),
        "{}",
        wrong_version.message()
    );
    assert_eq!(wrong_version.status(), Status::Errored);
}

#[test]
fn the_harness_writes_reports_that_show_the_gate() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0"]);
    let (json, junit, markdown) = (
        dir.path().join("run.json"),
        dir.path().join("run.xml"),
        dir.path().join("run.md"),
    );
    let run = execute(
        Harness::new(NoEdge)
            .root(data())
            .baseline(&listed)
            .json_report(&json)
            .junit_report(&junit)
            .markdown_report(&markdown),
        None,
    );
    assert_eq!(run.conclusion.num_failed, 0);
    // The JSON report: every data set with its gate result, and the baseline's sum.
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 23);
    let edge = cases.iter().find(|c| c["id"] == "node/test_edge_pad").unwrap();
    assert_eq!(edge["status"], "errored");
    assert_eq!(
        edge["gate"],
        serde_json::json!({"result": "known-failure", "reason": "not implemented"})
    );
    let wrap = cases.iter().find(|c| c["id"] == "node/test_wrap_pad").unwrap();
    assert_eq!(wrap["gate"]["result"], "agrees");
    assert_eq!(
        report["baseline"]["expected_failures"],
        serde_json::json!(["node/test_edge_pad/0"])
    );
    // The JUnit report: the known failure is a skipped test case with the baseline's reason,
    // so a green gate is green in a CI viewer; nothing fails.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"23\""), "{xml}");
    assert!(xml.contains("failures=\"0\"") && xml.contains("errors=\"0\""), "{xml}");
    assert!(
        xml.contains("known failure (in the baseline: not implemented): errored"),
        "{xml}"
    );
    // The Markdown report, from the same run: the known failure's row with its reason.
    let text = std::fs::read_to_string(&markdown).unwrap();
    assert!(text.starts_with("### pad-conformance: backend `no-edge`"), "{text}");
    assert!(
        text.contains("| errored | known: not implemented | `node/test_edge_pad/0` |"),
        "{text}"
    );
    // Without the entry, the same failure is an error in both.
    let run = execute(
        Harness::new(NoEdge)
            .root(data())
            .json_report(&json)
            .junit_report(&junit),
        None,
    );
    assert_eq!(run.conclusion.num_failed, 1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("errors=\"1\""), "{xml}");
}

/// An entry whose data set now passes fails its trial, and the reports say so too: the JUnit
/// case is a failure and the JSON report's gate is strict, never a green report beside a red
/// trial.
#[test]
fn an_outdated_entry_fails_its_trial_and_its_report_alike() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    // test_wrap_pad passes with NoEdge: its entry is outdated.
    let listed = baseline(dir.path(), &["node/test_edge_pad/0", "node/test_wrap_pad/0"]);
    let (json, junit) = (dir.path().join("run.json"), dir.path().join("run.xml"));
    let run = execute(
        Harness::new(NoEdge)
            .root(data())
            .baseline(&listed)
            .json_report(&json)
            .junit_report(&junit),
        None,
    );
    assert_eq!(run.conclusion.num_failed, 1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"1\""), "{xml}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["baseline"]["strict"], true, "{report}");
    assert_eq!(report["baseline"]["unexpected_passes"][0], "node/test_wrap_pad/0");
}

#[test]
fn a_boxed_shared_or_borrowed_backend_is_a_backend() {
    static SHARED: NoEdge = NoEdge;
    let boxed: Box<dyn Backend> = Box::new(NoEdge);
    let arc = std::sync::Arc::new(NoEdge);
    for harness in [
        Harness::new(boxed),
        Harness::new(std::sync::Arc::clone(&arc)),
        Harness::new(&SHARED),
    ] {
        // Each is the same backend: test_edge_pad refused, the rest passed.
        let run = execute(harness.root(data()), None);
        assert_eq!((run.conclusion.num_passed, run.conclusion.num_failed), (22, 1));
        assert_eq!(run.summary.backend, "no-edge");
    }
}

#[test]
fn two_corpora_of_one_name_are_refused() {
    // A baseline names a corpus by its directory's name: two of one name (here, temporary
    // directories renamed alike under two parents) would share one recorded version.
    let parents = [
        pad_conformance::testing::scratch_dir().unwrap(),
        pad_conformance::testing::scratch_dir().unwrap(),
    ];
    let copies = [corpus_copy(), corpus_copy()];
    let roots: Vec<std::path::PathBuf> = parents
        .iter()
        .zip(&copies)
        .map(|(parent, copy)| {
            let named = parent.path().join("onnx-testdata");
            std::fs::rename(copy.path(), &named).unwrap();
            named.join("onnx-1.22.0")
        })
        .collect();
    let error = match pad_conformance::testing::trials(&Harness::new(RefBackend).root(&roots[0]).root(&roots[1])) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("two corpora named onnx-testdata were accepted"),
    };
    assert!(error.contains("are two corpora of one name"), "{error}");
    // Either alone is fine.
    assert_eq!(
        pad_conformance::testing::trials(&Harness::new(RefBackend).root(&roots[0]))
            .unwrap()
            .len(),
        23
    );
}

#[test]
fn recording_refuses_a_json_file_that_is_no_baseline_as_the_command_line_does() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("report.json");
    let text = r#"{"format": 3, "backend": "ref", "cases": []}"#;
    std::fs::write(&path, text).unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let args = Arguments::from_iter(["harness", "--logfile", log.path().to_str().unwrap()]);
    let error = pad_conformance::testing::execute(Harness::new(RefBackend).root(data()).write_baseline(&path), &args)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        error.contains("report.json: not a baseline (it has no \"expected\" object); refusing to overwrite it"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_report_over_the_baseline_or_a_directory_is_refused_before_any_trial() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0"]);
    let before = std::fs::read_to_string(&listed).unwrap();
    let args = Arguments::from_iter(["harness", "--test-threads=1"]);
    let error = pad_conformance::testing::execute(
        Harness::new(NoEdge).root(data()).baseline(&listed).json_report(&listed),
        &args,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        error.contains("JSON report") && error.contains("is also the baseline"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&listed).unwrap(), before);
    let error = pad_conformance::testing::execute(Harness::new(NoEdge).root(data()).junit_report(dir.path()), &args)
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("JUnit report") && error.contains("is a directory"),
        "{error}"
    );
    // Updating the baseline it reads stays allowed.
    let run = execute(
        Harness::new(NoEdge)
            .root(data())
            .baseline(&listed)
            .write_baseline(&listed),
        None,
    );
    assert_eq!(run.conclusion.num_failed, 0);
}

/// A gate whose profile, built in code, leaves nothing to run fails before running: it would
/// otherwise pass with every trial ignored.
#[test]
fn a_profile_that_leaves_every_data_set_unsupported_stops_the_gate() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let args = Arguments::from_iter(["harness", "--logfile", log.path().to_str().unwrap()]);
    let harness = Harness::new(RefBackend)
        .root(data())
        .profile(Profile::everything().without_modes(PadMode::ALL));
    let error = pad_conformance::testing::execute(harness, &args)
        .err()
        .expect("refused");
    assert!(
        matches!(&error, pad_conformance::Error::Profile(ProfileError::BuiltExcludesEverything { field, .. }) if field == "modes"),
        "{error}"
    );
}

#[test]
fn recording_succeeds_into_a_new_directory_with_the_failures_shown_green() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("baselines/debug/known.json");
    let run = execute(
        Harness::new(NoEdge).root(data()).config("debug").write_baseline(&path),
        Some("test_edge"),
    );
    // The data set that errored is recorded, and its trial passes: the run exits 0.
    assert_eq!((run.conclusion.num_failed, run.conclusion.num_passed), (0, 1));
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(recorded["format"], 3);
    assert_eq!(
        recorded["expected"]["node/test_edge_pad/0"]["configs"],
        serde_json::json!(["debug"])
    );
    // Judged in that configuration it is known; in another it is inert, a new failure.
    let gate = |config: &str| {
        let run = execute(
            Harness::new(NoEdge).root(data()).config(config).baseline(&path),
            Some("test_edge"),
        );
        (run.summary.known_failures, run.summary.new_failures)
    };
    assert_eq!(gate("debug"), (1, 0));
    assert_eq!(gate("release"), (0, 1));
}

#[test]
fn a_configuration_that_is_no_name_is_refused_naming_it() {
    let args = Arguments::from_iter(["harness", "--test-threads=1"]);
    let harness = Harness::new(RefBackend)
        .root(data())
        .config("linux x64")
        .baseline("none.json");
    let error = pad_conformance::testing::execute(harness, &args).err().unwrap();
    assert!(
        error
            .to_string()
            .starts_with("Harness::config: \"linux x64\" is not a configuration name"),
        "{error}"
    );
}

#[test]
fn require_tracking_fails_a_gate_whose_known_failures_lack_a_link_naming_them() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0"]);
    let run = execute(
        Harness::new(NoEdge).root(data()).baseline(&listed).require_tracking(),
        None,
    );
    // The one failing trial is the one that names the untracked entry.
    assert_eq!((run.conclusion.num_failed, run.summary.known_failures), (1, 1));
    let tracked = serde_json::json!({"expected": {"node/test_edge_pad/0":
        {"status": "errored", "reason": "not implemented", "tracking": "https://bugs.example/12"}}});
    std::fs::write(&listed, tracked.to_string()).unwrap();
    let run = execute(
        Harness::new(NoEdge).root(data()).baseline(&listed).require_tracking(),
        None,
    );
    assert_eq!((run.conclusion.num_failed, run.summary.known_failures), (0, 1));
}

/// Knows no CenterCropPad: refuses it with a plain error, as a runtime without the operator does.
struct NoCrop;

impl Backend for NoCrop {
    fn name(&self) -> &str {
        "no-crop"
    }
    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        if model.graph.nodes.iter().any(|n| n.op_type == "CenterCropPad") {
            return Err("unknown operator CenterCropPad".into());
        }
        RefBackend.run(model, inputs)
    }
}

/// Refuses every data set, as a runtime that implements nothing does.
struct RefusesAll;

impl Backend for RefusesAll {
    fn name(&self) -> &str {
        "refuses-all"
    }
    fn run(&self, _: &Model, _: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        Err("not implemented".into())
    }
}

fn extended() -> String {
    format!("{}/onnx-testdata/extended", env!("CARGO_MANIFEST_DIR"))
}

/// The data sets of `run` that must be refused and name a twin, by status.
fn must_refuse_statuses(run: &pad_conformance::testing::HarnessRun) -> std::collections::BTreeMap<Status, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for outcome in run.results.iter().filter(|o| o.twin().is_some()) {
        *counts.entry(outcome.status()).or_default() += 1;
    }
    counts
}

/// A backend that refuses everything passes nothing: each of the 67 must-refuse data sets of
/// extended/ is refused while its twin errored, so its refusal is not verified. libtest saw
/// each of those trials pass (the twin may run after it); the summary and the results, decided
/// once every trial ran, say otherwise, and fail nothing.
#[test]
fn a_backend_that_refuses_everything_passes_no_data_set_that_must_be_refused() {
    let run = execute(Harness::new(RefusesAll).root(extended()), None);
    assert_eq!(must_refuse_statuses(&run), [(Status::NotVerified, 67)].into());
    assert_eq!((run.summary.counts.passed, run.summary.passed), (0, 0));
    assert_eq!(run.summary.counts.not_verified, 67);
    assert_eq!(run.summary.not_verified.len(), 67);
    let (name, twin) = &run.summary.not_verified[0];
    assert_eq!(name, "test_center_crop_pad_ext_dtype_float4e2m1/0");
    let twin = twin.as_ref().unwrap();
    assert_eq!(twin.name, "test_center_crop_pad_ext_dtype_float4e2m1_twin/0");
    assert_eq!(
        (twin.status, twin.cause),
        (Some(Status::Errored), Some(Cause::RefusesValid))
    );
    let shown = run.summary.to_string();
    assert!(
        shown.contains(", 67 refusals not verified")
            && shown.starts_with(
                "  refusal not verified: test_center_crop_pad_ext_dtype_float4e2m1/0 (its twin test_center_crop_pad_ext_dtype_float4e2m1_twin/0 did not pass (errored, refuses-valid))\n"
            ),
        "{shown}"
    );
    // What a Rust gate's author writes for what the runtime lacks.
    assert!(
        shown.contains("\n  hint: where the backend lacks what a data set asks, return `BackendUnsupported`: "),
        "{shown}"
    );
    // Each refusal's trial is ok: only the valid data sets it refused, where they gate, fail.
    let counts = run.summary.counts;
    assert_eq!(counts.errored + counts.not_gating + 67, run.results.len());
    assert_eq!(run.conclusion.num_failed as usize, counts.errored);
}

/// A runtime without CenterCropPad refuses its must-refuse data sets with the rest: none of
/// those counts, while the reference's refusals are each verified by their twins.
#[test]
fn a_refusal_counts_only_when_its_twin_passes() {
    let run = execute(Harness::new(NoCrop).root(extended()), Some("center_crop_pad"));
    assert_eq!(must_refuse_statuses(&run), [(Status::NotVerified, 15)].into());
    let unverified = run.results.iter().find(|o| o.status() == Status::NotVerified).unwrap();
    assert_eq!(
        unverified.message(),
        "refusal not verified: its twin test_center_crop_pad_ext_dtype_float4e2m1_twin/0 did not pass (errored, refuses-valid), so backend no-crop may refuse what it lacks, not the rule: unknown operator CenterCropPad"
    );
    let reference = execute(Harness::new(RefBackend).root(extended()), None);
    assert_eq!(must_refuse_statuses(&reference), [(Status::Passed, 67)].into());
    assert_eq!(reference.summary.counts.not_verified, 0);
    // A filter that leaves the twin out: the refusal is not verified, its twin not run.
    let alone = execute(
        Harness::new(RefBackend).root(extended()),
        Some("test_ext_pad18_err_axes_repeated/0"),
    );
    assert_eq!(alone.results.len(), 1);
    assert_eq!(
        alone.results[0].message(),
        "refusal not verified (twin not run): its twin test_ext_pad18_err_axes_repeated_twin/0 was not in the run, so nothing shows that backend ref refused by the rule: Pad-18: input 3 (axes) [1, 1] name axis 1 twice"
    );
    // Left out by the filter, the twin says nothing of what the backend lacks: no hint.
    assert!(!alone.summary.to_string().contains("hint:"), "{}", alone.summary);
}

/// `require_verified`: a refusal whose twin did not run fails the run, counted among libtest's
/// failures (its trial was `ok`), and its reports judged against a baseline say so; without
/// it, or when the twin ran and passed, nothing fails.
#[test]
fn require_verified_fails_the_run_on_a_refusal_its_twin_did_not_verify() {
    let refused = "test_ext_pad18_err_axes_repeated/0";
    let counts = |run: &pad_conformance::testing::HarnessRun| (run.conclusion.num_passed, run.conclusion.num_failed);
    let alone = execute(Harness::new(RefBackend).root(extended()), Some(refused));
    assert_eq!(alone.results[0].status(), Status::NotVerified);
    assert_eq!(counts(&alone), (1, 0));
    assert!(!alone.conclusion.has_failed());
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let junit = dir.path().join("junit.xml");
    let required = execute(
        Harness::new(RefBackend)
            .root(extended())
            .require_verified()
            .baseline(baseline(dir.path(), &[]))
            .junit_report(&junit),
        Some(refused),
    );
    assert_eq!(required.summary.not_verified.len(), 1);
    assert_eq!(counts(&required), (0, 1));
    assert!(required.conclusion.has_failed());
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<failure"), "{xml}");
    // Its twin in the run and passing: verified, nothing fails.
    let both = execute(
        Harness::new(RefBackend).root(extended()).require_verified(),
        Some("test_ext_pad18_err_axes_repeated"),
    );
    assert_eq!(counts(&both), (2, 0));
    assert!(both.summary.not_verified.is_empty());
}

/// The harness's JSON report records the run's facts as the command line's does, so `merge`
/// and `diff` can check it: its configuration, options and the data sets it ran.
#[test]
fn the_harness_json_report_records_its_run() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let path = dir.path().join("report.json");
    let run = execute(
        Harness::new(RefBackend)
            .root(data())
            .config("release")
            .ulps(4)
            .json_report(&path),
        Some("test_edge"),
    );
    assert_eq!(run.conclusion.num_passed, 1);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let facts = &report["run"];
    assert_eq!(facts["complete"], true, "{facts}");
    assert_eq!(facts["config"], "release", "{facts}");
    assert_eq!(facts["tolerance"], "4 ulps", "{facts}");
    assert!(facts.get("retries").is_none(), "none asked for: {facts}");
    let ran = pad_conformance::testing::selection_digest(["node/test_edge_pad/0"]);
    assert_eq!(facts["selection"], ran.as_str(), "{facts}");
}
