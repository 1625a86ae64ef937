//! The generated corpus covers every legal (operator version, dtype, mode) triple.

use std::path::Path;

use pad_conformance::coverage::Coverage;
use pad_conformance::operators::{OpVersion, PadMode};
use pad_conformance::tensor::DataType;

#[test]
fn no_legal_triple_is_missing() {
    let coverage = Coverage::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended")).unwrap();
    let missing: Vec<String> = coverage
        .missing()
        .iter()
        .map(|(op, t, mode)| format!("{} {t} {mode:?}", op.short_label()))
        .collect();
    assert!(missing.is_empty(), "uncovered legal triples: {missing:?}");
    // The legal space docs/semantics.md defines: 591 Pad triples (9 + 9 + 33 + 48 + 48 + 64 + 88 + 92
    // + 96 + 104 by version), 16 CenterCropPad dtypes (its schema's) and 9 com.microsoft Pad triples.
    let legal: usize = OpVersion::all()
        .map(|op| op.data_types().count() * op.modes().len().max(1))
        .sum();
    assert_eq!(legal, 616);
    assert!(coverage.refusals > 0);
}

#[test]
fn a_missing_triple_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("test_one_pad");
    std::fs::create_dir(&case).unwrap();
    let json = r#"{"op": "Pad", "domain": "", "version": 21, "mode": "wrap", "dtype": "int4", "expect": "output",
                   "basis": {"kind": "spec", "section": "docs/semantics.md#wrap-mode"}}"#;
    std::fs::write(case.join("case.json"), json).unwrap();
    let coverage = Coverage::read(dir.path()).unwrap();
    let missing = coverage.missing();
    assert_eq!(missing.len(), 615);
    assert!(
        !missing
            .iter()
            .any(|(op, t, mode)| op.short_label() == "Pad-21" && *t == DataType::Int4 && *mode == Some(PadMode::Wrap))
    );
}

#[test]
fn a_tree_without_case_json_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("test_one_pad")).unwrap();
    let error = Coverage::read(dir.path()).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("no test cases found under {}", dir.path().display())),
        "{error}"
    );
}
