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
    assert_eq!(corpus.version, 5);
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
    // Corpus version 5 moved the data sets the spec decides to spec: 145 rest on less, and 13
    // of the promoted findings' twins on the reference (their data or an axis empty).
    assert_eq!(weaker.len(), 145 + 13);
    // The corrected CenterCropPad rule is listed too, though its basis is the spec.
    assert!(listed.contains("extended/test_center_crop_pad_ext_dtype_int4/0"));
    let in_version = |v: u32| -> BTreeSet<String> { corpus.changes[&v].keys().cloned().collect() };
    // Version 3 added onnx 1.23.2's data sets, and only those: 23 cases of one data set each.
    let added = in_version(3);
    let exported: BTreeSet<String> = names
        .iter()
        .filter(|n| n.starts_with("onnx-1.23.2/"))
        .cloned()
        .collect();
    assert_eq!(added, exported);
    assert_eq!(added.len(), 23);
    assert!(added.contains("onnx-1.23.2/node/test_wrap_pad/0"));
    // Version 4 added every case exposing a narrowing (case.json's `narrowing`).
    let narrowing: BTreeSet<String> = cases
        .iter()
        .filter(|c| c.info.as_ref().is_some_and(|info| info.narrowing.is_some()))
        .map(|c| c.data_set_name(0))
        .collect();
    assert_eq!(narrowing.len(), 180);
    // … and the promoted fuzz findings, and nothing else.
    let promoted: BTreeSet<String> = names
        .iter()
        .filter(|n| n.starts_with("fuzz/") && !n.ends_with("_twin/0"))
        .cloned()
        .collect();
    assert_eq!(promoted.len(), 52);
    let version_4: BTreeSet<String> = narrowing.union(&promoted).cloned().collect();
    assert_eq!(in_version(4), version_4);
    // Version 5 lists every must-refuse data set (its model declares an output shape, its
    // case.json names a twin), every new twin — of the generated cases and of the promoted
    // findings — and every promoted finding (its model declares an output shape).
    let version_5 = &corpus.changes[&5];
    let refused: Vec<&pad_conformance::testing::TestCase> = cases
        .iter()
        .filter(|c| c.data_sets.iter().any(|d| d.expected_error.is_some()))
        .collect();
    assert_eq!(refused.len(), 67 + 26);
    for case in &refused {
        let name = case.data_set_name(0);
        let twin = case.twin_of(0).unwrap_or_else(|| panic!("{} names no twin", case.id));
        assert!(
            version_5[&twin].starts_with(&format!("new, the valid twin of `{name}`: ")),
            "{twin}"
        );
        assert!(
            version_5[&name].ends_with(&format!("names its valid twin `{twin}`")),
            "{}",
            version_5[&name]
        );
    }
    assert!(promoted.is_subset(&in_version(5)));
    assert_eq!(version_5.len(), 486);
    // … and the cancelling pads of constant mode, which the spec decides.
    let cancelling = "extended/test_ext_pad24_constant_int32_r1/0";
    assert!(
        version_5[cancelling].contains("basis rule → spec"),
        "{}",
        version_5[cancelling]
    );
    let case = cases.iter().find(|c| c.data_set_name(0) == cancelling).unwrap();
    assert_eq!(case.basis.kind, Basis::Spec);
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

/// A baseline written at corpus version 3 meets version 4: a data set version 4 added, failing,
/// is the corpus's change ("new" in the changelog), not a regression, and fails the run only
/// under --strict-corpus; a baseline written at version 4 gets it as a regression.
#[test]
fn a_data_set_added_after_the_baseline_was_written_is_the_corpus_s_change_not_a_regression() {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let root = dir.path().join("corpus");
    let added = "onnx-1.22.0/node/test_wrap_pad";
    std::fs::create_dir_all(&root).unwrap();
    // The manifest without the added case (its expected output is made to fail below).
    let manifest = std::fs::read_to_string(from.join("MANIFEST.tsv")).unwrap();
    let kept: String = manifest
        .lines()
        .filter(|line| !line.starts_with("1.22.0\tnode/test_wrap_pad\t"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(root.join("MANIFEST.tsv"), kept).unwrap();
    std::fs::write(root.join("VERSION"), "4\n").unwrap();
    std::fs::write(
        root.join("CHANGELOG.md"),
        format!("# Corpus changelog\n\n## 4 (2026-12-01)\n\n- `{added}/0`: new, a test's (basis spec)\n\n## 3\n\n## 2\n\n## 1\n"),
    )
    .unwrap();
    let kept_case = "onnx-1.22.0/node/test_edge_pad";
    crate::support::files::copy_dir(&from.join(kept_case), &root.join(kept_case));
    crate::support::files::failing_wrap(&root.join(added));
    let gate = |version: u32, extra: &[&str]| {
        let baseline = dir.path().join(format!("v{version}.json"));
        let json = format!(r#"{{"corpus_version": {version}, "expected": {{}}}}"#);
        std::fs::write(&baseline, json).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args([root.to_str().unwrap(), "--baseline", baseline.to_str().unwrap()])
            .args(extra)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        // The baseline's summary goes to standard error, after the run's lines.
        let text = [out.stdout, out.stderr].concat();
        (out.status.code(), String::from_utf8_lossy(&text).into_owned())
    };
    let (code, stdout) = gate(3, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("baseline: 0 expected failures, 0 regressions, 0 unexpected passes, 1 changed with the corpus"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "{added}/0: was passed, now failed (corpus version 4: new, a test's"
        )),
        "{stdout}"
    );
    assert_eq!(gate(3, &["--strict"]).0, Some(0));
    assert_eq!(gate(3, &["--strict-corpus"]).0, Some(1));
    let (code, stdout) = gate(4, &[]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("1 regressions"), "{stdout}");
}

/// Every must-refuse data set of the bundled corpus's generated cases and promoted findings
/// names a valid twin, and the reference passes every twin (and refuses every data set that
/// names one).
#[test]
fn every_twin_passes_with_the_reference() {
    use pad_conformance::RefBackend;
    use pad_conformance::testing::{CheckOptions, Status, check_data_set};

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let cases = discover(std::slice::from_ref(&root), &Patterns::default()).unwrap();
    let by_name: std::collections::BTreeMap<String, (&pad_conformance::testing::TestCase, usize)> = cases
        .iter()
        .flat_map(|c| c.job_indices().map(move |i| (c.data_set_name(i), (c, i))))
        .collect();
    let mut twins = 0;
    let generated =
        |c: &&pad_conformance::testing::TestCase| c.id.starts_with("extended/") || c.id.starts_with("fuzz/");
    for case in cases.iter().filter(generated) {
        for (index, data_set) in case.data_sets.iter().enumerate() {
            assert!(case.problem.is_none(), "{}: {:?}", case.id, case.problem);
            let Some(twin) = case.twin_of(index) else {
                assert!(data_set.expected_error.is_none(), "{} names no twin", case.id);
                continue;
            };
            let options = CheckOptions::default();
            assert_eq!(
                check_data_set(&RefBackend, case, index, &options).status(),
                Status::Passed,
                "{}",
                case.id
            );
            let (twin_case, twin_index) = by_name[&twin];
            let outcome = check_data_set(&RefBackend, twin_case, twin_index, &options);
            assert_eq!(outcome.status(), Status::Passed, "{twin}: {}", outcome.message());
            assert!(twin_case.data_sets[twin_index].expected_error.is_none(), "{twin}");
            twins += 1;
        }
    }
    assert_eq!(twins, 67 + 26);
}
