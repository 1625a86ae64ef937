//! The vendored corpus is versioned: VERSION and CHANGELOG.md parse, every changelog entry
//! names a data set that exists, and every extended data set resting on less than the spec
//! is listed where that basis was introduced.

use std::collections::BTreeSet;
use std::path::Path;

use pad_conformance::Basis;
use pad_conformance::testing::{Corpus, Patterns, discover};

#[test]
fn the_changelog_names_existing_data_sets_and_every_weaker_basis() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let corpus = Corpus::find(&root).unwrap().expect("onnx-testdata is versioned");
    assert_eq!(corpus.version, 3);
    let cases = discover(std::slice::from_ref(&root), &Patterns::default()).unwrap();
    let names: BTreeSet<String> = cases.iter().map(|c| c.data_set_name(0)).collect();
    let listed: BTreeSet<String> = corpus.changed_since(1, &root).into_keys().collect();
    let unknown: Vec<&String> = listed.difference(&names).collect();
    assert!(unknown.is_empty(), "CHANGELOG.md names no such data set: {unknown:?}");
    let weaker: BTreeSet<String> = cases
        .iter()
        .filter(|c| c.basis.kind != Basis::Spec)
        .map(|c| c.data_set_name(0))
        .collect();
    let unlisted: Vec<&String> = weaker.difference(&listed).collect();
    assert!(unlisted.is_empty(), "not in CHANGELOG.md's version 2: {unlisted:?}");
    assert!(weaker.len() > 200, "{}", weaker.len());
    // The corrected CenterCropPad rule is listed too, though its basis is the spec.
    assert!(listed.contains("extended/test_center_crop_pad_ext_dtype_int4/0"));
    // Version 3 added onnx 1.23.2's data sets, and only those: 23 cases of one data set each.
    let added: BTreeSet<String> = corpus.changed_since(2, &root).into_keys().collect();
    let exported: BTreeSet<String> = names
        .iter()
        .filter(|n| n.starts_with("onnx-1.23.2/"))
        .cloned()
        .collect();
    assert_eq!(added, exported);
    assert_eq!(added.len(), 23);
    assert!(added.contains("onnx-1.23.2/node/test_wrap_pad/0"));
}
