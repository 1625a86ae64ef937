//! onnx 1.23 and later ship no node-test files, so scripts/fetch-onnx-testdata exports their
//! Pad-family node cases from onnx's generators. That the export is faithful is checked on
//! the last release that shipped both: exporting onnx 1.22.0's generators must give the
//! cases its wheel shipped — the same names, the same models, the same element types and
//! shapes of every input and output — and the reference backend must pass both.
//!
//! It needs the pinned Python packages (numpy, to run the generators) and the package index
//! (the onnx 1.22.0 wheel), so `cargo test` ignores it; .ci/run runs it
//! (`cargo test --test it -- --ignored onnx_export::`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use pad_conformance::testing::{CheckOptions, Expected, Patterns, Status, TestCase, check_data_set, discover};
use pad_conformance::{Model, RefBackend, Tensor, Tolerance};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn node_cases(dir: &Path) -> Vec<TestCase> {
    let mut cases = discover(&[dir.to_path_buf()], &Patterns::default()).unwrap();
    cases.retain(|c| c.id.starts_with("node/"));
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    cases
}

/// What must agree between a shipped and an exported model: the opsets, the nodes with
/// their attributes, and the declared inputs and outputs (everything but the path).
fn model_facts(model: &Model) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        model.opset_imports,
        model.graph.nodes,
        model.graph.inputs,
        model.graph.outputs,
        model.graph.input_types,
        model.graph.output_types
    )
}

/// Each tensor's element type and shape.
type Facts = Vec<(String, Vec<usize>)>;

fn types_and_shapes(tensors: &[Tensor]) -> Facts {
    tensors
        .iter()
        .map(|t| (t.data_type().name().to_owned(), t.shape().to_vec()))
        .collect()
}

/// Every data set of `case`: its inputs' and expected outputs' element types and shapes.
fn data_facts(case: &TestCase) -> Vec<(Facts, Facts)> {
    let options = case.decode_options(1 << 30);
    case.data_sets
        .iter()
        .map(|data_set| {
            let loaded = case.load_data_set(data_set, &options).unwrap();
            let Expected::Outputs(outputs) = loaded.expected else {
                panic!("{}: upstream cases have outputs", case.id)
            };
            (types_and_shapes(&loaded.inputs), types_and_shapes(&outputs))
        })
        .collect()
}

fn ref_passes(case: &TestCase) {
    let exact = CheckOptions {
        tolerance: Tolerance::Bitwise,
        ..CheckOptions::default()
    };
    for index in case.job_indices() {
        let outcome = check_data_set(&RefBackend, case, index, &exact);
        assert_eq!(
            outcome.status(),
            Status::Passed,
            "{}: {}",
            outcome.name(),
            outcome.message()
        );
    }
}

#[test]
#[ignore = "needs the pinned Python packages and the package index: run by .ci/run"]
fn exporting_onnx_1_22_0s_generators_gives_the_cases_it_shipped() {
    let out = pad_conformance::testing::scratch_dir().unwrap();
    let status = Command::new(support::python::python())
        .arg(root().join("scripts/fetch-onnx-testdata"))
        .args(["--export", "1.22.0", "--output-dir"])
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success(), "scripts/fetch-onnx-testdata --export 1.22.0 failed");

    let exported_root: PathBuf = out.path().join("onnx-1.22.0");
    let exported = node_cases(&exported_root);
    let shipped = node_cases(&root().join("onnx-testdata/onnx-1.22.0"));
    let names = |cases: &[TestCase]| cases.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    assert_eq!(names(&exported), names(&shipped));
    assert_eq!(shipped.len(), 18, "onnx 1.22.0 shipped 18 Pad-family node cases");
    assert!(names(&shipped).contains(&"node/test_center_crop_pad_crop_and_pad_expanded".to_owned()));

    for (exported, shipped) in exported.iter().zip(&shipped) {
        let options = shipped.decode_options(1 << 30);
        assert_eq!(
            model_facts(&exported.load_model(&options).unwrap()),
            model_facts(&shipped.load_model(&options).unwrap()),
            "{}: the models differ",
            shipped.id
        );
        let facts = data_facts(shipped);
        assert!(
            !facts.is_empty()
                && facts
                    .iter()
                    .all(|(inputs, outputs)| !inputs.is_empty() && !outputs.is_empty())
        );
        assert_eq!(
            data_facts(exported),
            facts,
            "{}: element types or shapes differ",
            shipped.id
        );
        ref_passes(exported);
        ref_passes(shipped);
    }
}
