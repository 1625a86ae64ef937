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
    assert_eq!(corpus.version, 4);
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
    // Version 3 added onnx 1.23.2's export; version 4 the promoted fuzz findings.
    let added: BTreeSet<String> = corpus.changed_since(2, &root).into_keys().collect();
    let exported: BTreeSet<String> = names
        .iter()
        .filter(|n| n.starts_with("onnx-1.23.2/") || n.starts_with("fuzz/"))
        .cloned()
        .collect();
    assert_eq!(added, exported);
    assert_eq!(added.len(), 23 + 40);
    assert!(added.contains("onnx-1.23.2/node/test_wrap_pad/0"));
}

/// A root with its own manifests runs checked against them, and the command says that nothing
/// vouches for those manifests; the crate's own corpus is not named.
#[test]
fn a_copied_corpus_runs_and_its_manifests_are_reported_unanchored() {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    for file in ["VERSION", "CHANGELOG.md", "MANIFEST.tsv"] {
        std::fs::copy(from.join(file), dir.path().join(file)).unwrap();
    }
    let case = "onnx-1.22.0/node/test_edge_pad";
    crate::support::files::copy_dir(&from.join(case), &dir.path().join(case));
    let list = |root: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(["--list", root.to_str().unwrap()])
            .env_remove("PAD_CONFORMANCE_DATA")
            .output()
            .unwrap()
    };
    let out = list(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("{} is unanchored", dir.path().join("MANIFEST.tsv").display())),
        "{stderr}"
    );
    let out = list(&from.join(case));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("unanchored"));
}
