//! The libtest harness: one trial per data set, not-applicable cases ignored, and baselines
//! whose listed failures pass while failing and fail once they pass.

use std::path::Path;

use libtest_mimic::{Arguments, Conclusion};
use pad_conformance::Tensor;
use pad_conformance::backend::{Backend, BackendError, RefBackend};
use pad_conformance::harness::Harness;
use pad_conformance::model::Model;

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
    libtest_mimic::run(&args, harness.trials().unwrap())
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
    let trials = Harness::new(RefBackend).root(data()).trials().unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0"]);
    let conclusion = conclude(Harness::new(NoEdge).root(data()).baseline(&listed));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (23, 0));
    // The reference passes test_edge_pad: the stale entry is itself a failure.
    let conclusion = conclude(Harness::new(RefBackend).root(data()).baseline(&listed));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (22, 1));
}

#[test]
fn a_listed_failure_with_another_status_or_no_data_set_fails() {
    let dir = tempfile::tempdir().unwrap();
    let listed = baseline(dir.path(), &["node/test_edge_pad/0", "node/test_gone_pad/0"]);
    // NoEdge errors on test_edge_pad, as listed; relisted as failed, it no longer matches.
    let text = std::fs::read_to_string(&listed).unwrap();
    let trials = Harness::new(NoEdge).root(data()).baseline(&listed).trials().unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("test_conv_pad");
    std::fs::create_dir_all(&case).unwrap();
    // A model whose graph holds only an Identity node.
    let model = pad_conformance::proto::ModelProto {
        ir_version: 8,
        opset_import: vec![pad_conformance::proto::OperatorSetIdProto {
            domain: String::new(),
            version: 19,
        }],
        graph: Some(pad_conformance::proto::GraphProto {
            node: vec![pad_conformance::proto::NodeProto {
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
    let trials = Harness::new(RefBackend).root(dir.path()).trials().unwrap();
    assert_eq!(trials.len(), 1);
    assert!(trials[0].has_ignored_flag());
    let conclusion = conclude(Harness::new(RefBackend).root(dir.path()));
    assert_eq!(
        (conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored),
        (0, 0, 1)
    );
}

#[test]
fn without_a_root_the_harness_runs_the_bundled_cases() {
    let trials = Harness::new(RefBackend).trials().unwrap();
    let names: Vec<&str> = trials.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"onnx-1.22.0/node/test_wrap_pad/0"), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("extended/")));
}
