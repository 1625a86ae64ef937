//! Checks that the vendored upstream test data under `onnx-testdata/onnx-*/`
//! matches `onnx-testdata/MANIFEST.tsv` (written by `scripts/fetch-onnx-testdata`).
//! Files directly in `onnx-testdata/` and everything under `extended/` are not
//! covered by the manifest.

use crate::support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use support::manifest::{files_on_disk, parse_manifest, sha256_hex};

const HEADER: &str = "release\tcase\tfile\torigin\tbytes\tsha256";
const RELEASES: [&str; 12] = [
    "1.2.1", "1.3.0", "1.4.1", "1.6.0", "1.12.0", "1.13.1", "1.14.1", "1.16.2", "1.18.0", "1.19.1", "1.22.0", "1.23.2",
];

fn testdata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata")
}

/// Compares `manifest` (the text of MANIFEST.tsv) with the files under
/// `root/onnx-*/` and returns one message per problem, sorted by path.
fn check_manifest(manifest: &str, root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let listed = parse_manifest(
        manifest,
        HEADER,
        false,
        |names| format!("onnx-{}/{}/{}", names[0], names[1], names[2]),
        &mut problems,
    );
    let on_disk = files_on_disk(root, |name| name.starts_with("onnx-"));
    let paths: BTreeSet<&String> = listed.keys().chain(on_disk.keys()).collect();
    for path in paths {
        match (listed.get(path), on_disk.get(path)) {
            (Some(_), None) => problems.push(format!("missing: {path}")),
            (None, Some(_)) => problems.push(format!("extra (not in MANIFEST.tsv): {path}")),
            (Some((want_len, want_sha)), Some((len, sha))) if (want_len, want_sha) != (len, sha) => {
                problems.push(format!(
                    "changed: {path}: manifest has {want_len} bytes sha256 {want_sha}, \
                     file has {len} bytes sha256 {sha}"
                ))
            }
            _ => {}
        }
    }
    problems
}

#[test]
fn vendored_testdata_matches_manifest() {
    let root = testdata_dir();
    let manifest = fs::read_to_string(root.join("MANIFEST.tsv")).expect("reading MANIFEST.tsv");

    let releases: BTreeSet<&str> = manifest.lines().skip(1).filter_map(|l| l.split('\t').next()).collect();
    assert!(!releases.is_empty(), "MANIFEST.tsv lists no files");
    for release in RELEASES {
        assert!(
            releases.contains(release),
            "MANIFEST.tsv has no files of onnx {release}"
        );
    }

    let problems = check_manifest(&manifest, &root);
    assert!(
        problems.is_empty(),
        "onnx-testdata/ does not match MANIFEST.tsv (rerun scripts/fetch-onnx-testdata):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn check_manifest_reports_changed_missing_and_extra_files() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let root = dir.path();
    let write = |rel: &str, data: &[u8]| {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, data).unwrap();
    };
    write("onnx-1.0.0/node/test_a/model.onnx", b"model");
    write("onnx-1.0.0/node/test_a/test_data_set_0/input_0.pb", b"changed");
    write("onnx-1.0.0/node/test_b/model.onnx", b"extra");
    write("README.md", b"not covered");
    write("extended/node/test_c/model.onnx", b"not covered");

    let line = |case: &str, file: &str, data: &[u8]| {
        format!("1.0.0\t{case}\t{file}\twheel\t{}\t{}\n", data.len(), sha256_hex(data))
    };
    let manifest = [
        format!("{HEADER}\n"),
        line("node/test_a", "model.onnx", b"model"),
        line("node/test_a", "test_data_set_0/input_0.pb", b"original"),
        line("node/test_a", "test_data_set_0/output_0.pb", b"gone"),
    ]
    .concat();

    assert_eq!(
        check_manifest(&manifest, root),
        [
            format!(
                "changed: onnx-1.0.0/node/test_a/test_data_set_0/input_0.pb: manifest has 8 bytes \
                 sha256 {}, file has 7 bytes sha256 {}",
                sha256_hex(b"original"),
                sha256_hex(b"changed")
            ),
            "missing: onnx-1.0.0/node/test_a/test_data_set_0/output_0.pb".to_string(),
            "extra (not in MANIFEST.tsv): onnx-1.0.0/node/test_b/model.onnx".to_string(),
        ]
    );
}

/// Releases from 1.23 on ship no node-test files: their node cases are exported from onnx's
/// generators with numpy's seed fixed, and the manifest's origin column says so.
#[test]
fn exported_node_cases_record_their_origin_and_seed() {
    let manifest = fs::read_to_string(testdata_dir().join("MANIFEST.tsv")).expect("reading MANIFEST.tsv");
    let mut origins: std::collections::BTreeMap<(&str, &str), BTreeSet<&str>> = Default::default();
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let kind = fields[1].split('/').next().unwrap();
        origins.entry((fields[0], kind)).or_default().insert(fields[3]);
    }
    let one = |release, kind| origins[&(release, kind)].iter().copied().collect::<Vec<_>>();
    assert_eq!(one("1.23.2", "node"), ["export loader seed 0"]);
    assert_eq!(one("1.23.2", "pytorch-converted"), ["wheel"]);
    assert_eq!(one("1.22.0", "node"), ["wheel"]);
    for ((release, kind), found) in &origins {
        for origin in found {
            let exported = origin
                .strip_prefix("export ")
                .and_then(|rest| rest.split_once(" seed "));
            assert!(
                *origin == "wheel"
                    || exported.is_some_and(|(how, seed)| {
                        ["loader", "generators"].contains(&how) && seed.parse::<u64>().is_ok()
                    }),
                "onnx {release} {kind}: origin {origin:?} is neither `wheel` nor `export <how> seed <n>`"
            );
        }
    }
}
