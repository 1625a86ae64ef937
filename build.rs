//! Fixes the bundled corpus at build time, so the bundled manifests are anchored by digests the
//! binary carries: with the `embedded-corpus` feature, the size and sha256 of every file of
//! onnx-testdata/ (and of the second oracle's worker script) as an index the crate includes,
//! and the files themselves as one deflate stream in the index's order (src/data/bundled.rs
//! unpacks it into a cache when files are needed); without it, the manifests' only. With or
//! without it, the digest of each bundled data set's content, from the manifests' checksums
//! (src/data/bundled_content.rs): a copy of a bundled data set is known by it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

// The digest the runner computes for the files it finds, computed here from the manifests.
#[path = "src/data/content_key.rs"]
mod content_key;

/// What is bundled, relative to the package root: the corpus, and the worker (with the package
/// it imports) that `promote` checks findings with.
const BUNDLED: [&str; 3] = [
    "onnx-testdata",
    "scripts/backends/onnx-reference-worker",
    "python/pad_conformance",
];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut files = Vec::new();
    for path in BUNDLED {
        println!("cargo::rerun-if-changed={path}");
        collect(&root, &root.join(path), &mut files);
    }
    files.sort();
    let manifests: Vec<&String> = files
        .iter()
        .filter(|path| {
            // The corpus root's and its subdirectories', as the runner reads them.
            let inner = path.strip_prefix("onnx-testdata/").unwrap_or_default();
            inner == "MANIFEST.tsv" || (inner.ends_with("/MANIFEST.tsv") && inner.matches('/').count() == 1)
        })
        .collect();
    fs::write(out.join("bundled-content.tsv"), content_table(&root, &manifests))
        .expect("writing the bundled data sets' digests");
    // Without the files themselves, the manifests alone are anchored: their checksums cover
    // every case file of the source tree a gate reads.
    if !cfg!(feature = "embedded-corpus") {
        files.retain(|path| path.ends_with("/MANIFEST.tsv"));
    }

    let mut index = String::new();
    let mut contents = Vec::new();
    for relative in &files {
        let data = fs::read(root.join(relative)).unwrap_or_else(|e| panic!("reading {relative}: {e}"));
        let digest: String = Sha256::digest(&data).iter().map(|b| format!("{b:02x}")).collect();
        index.push_str(&format!("{relative}\t{}\t{digest}\n", data.len()));
        contents.extend_from_slice(&data);
    }
    // The bundle's name in the cache: a digest of the index, so other content never reuses it.
    let digest: String = Sha256::digest(index.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    fs::write(out.join("bundled-digest.txt"), digest).expect("writing the bundled index's digest");
    fs::write(out.join("bundled-index.tsv"), index).expect("writing the bundled index");
    fs::write(out.join("bundled-corpus.deflate"), compress(&contents)).expect("writing the bundled corpus");
}

/// Every regular file at or under `path`, `/`-separated relative to `root`. A symbolic link or
/// other special file in the corpus is a mistake worth a failed build.
fn collect(root: &Path, path: &Path, files: &mut Vec<String>) {
    let meta = fs::symlink_metadata(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    if meta.is_dir() {
        // Python's bytecode cache, written by whoever imported the package: not its source.
        if path.file_name().is_some_and(|name| name == "__pycache__") {
            return;
        }
        for entry in fs::read_dir(path).unwrap_or_else(|e| panic!("listing {}: {e}", path.display())) {
            collect(root, &entry.expect("listing the corpus").path(), files);
        }
    } else if meta.is_file() {
        let relative = path.strip_prefix(root).expect("under the package root");
        let parts: Vec<&str> = relative
            .components()
            .map(|c| c.as_os_str().to_str().expect("a corpus path is UTF-8"))
            .collect();
        files.push(parts.join("/"));
    } else {
        panic!("{} is neither a file nor a directory", path.display());
    }
}

/// The files' bytes, concatenated in the index's order, as one raw deflate stream.
#[cfg(feature = "embedded-corpus")]
fn compress(contents: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(contents).expect("compressing in memory");
    encoder.finish().expect("compressing in memory")
}

/// Without the `embedded-corpus` feature only the digests are bundled.
#[cfg(not(feature = "embedded-corpus"))]
fn compress(_: &[u8]) -> Vec<u8> {
    Vec::new()
}

/// One bundled case as its manifest lists it: each file's size and sha256.
#[derive(Default)]
struct ListedCase {
    upstream: bool,
    files: BTreeMap<String, (u64, [u8; 32])>,
}

/// A line of the table, the data set it names (`extended/test_x/0`) and its case.json's digest.
type Row = (String, String, Option<[u8; 16]>);

/// `max-file-bytes\tN`, then per bundled data set `model\tmodel bytes\tcontent\tcase.json|-\t
/// u|g\tcase\tN` (digests' first halves in hex; `u` upstream, `g` generated): what
/// src/data/bundled_content.rs reads. One line per content: copies of one upstream case in
/// several releases are one content with one basis; two bundled data sets of one content whose
/// case.json files differ fail the build (which one a copy keeps would be undecided).
fn content_table(root: &Path, manifests: &[&String]) -> String {
    let mut cases: BTreeMap<String, ListedCase> = BTreeMap::new();
    for manifest in manifests {
        let text = fs::read_to_string(root.join(manifest)).unwrap_or_else(|e| panic!("reading {manifest}: {e}"));
        let sub = manifest
            .strip_prefix("onnx-testdata/")
            .and_then(|m| m.strip_suffix("MANIFEST.tsv"))
            .expect("a manifest under onnx-testdata/");
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split('\t').collect();
            let (case, file, bytes, sha256) = match (sub, fields.as_slice()) {
                ("", [release, case, file, _origin, bytes, sha256]) => {
                    (format!("onnx-{release}/{case}"), *file, *bytes, *sha256)
                }
                (_, [case, file, bytes, sha256]) => (format!("{sub}{case}"), *file, *bytes, *sha256),
                _ => panic!("{manifest}: a line of {} fields: {line:?}", fields.len()),
            };
            let listed = cases.entry(case).or_default();
            listed.upstream = sub.is_empty();
            let bytes = bytes.parse().unwrap_or_else(|_| panic!("{manifest}: a size {bytes:?}"));
            listed.files.insert(file.to_owned(), (bytes, parse_sha256(sha256)));
        }
    }
    let mut max_bytes = 0;
    // Per content: its line, the data set it names, and its case.json's digest.
    let mut rows: BTreeMap<[u8; 16], Row> = BTreeMap::new();
    for (case, listed) in &cases {
        let Some(&(model_bytes, model)) = listed.files.get("model.onnx") else {
            continue;
        };
        max_bytes = listed.files.values().map(|(bytes, _)| *bytes).fold(max_bytes, u64::max);
        let info = listed
            .files
            .get("case.json")
            .map(|(_, sha256)| content_key::half(sha256));
        let mut data_sets: BTreeMap<u64, BTreeMap<&str, [u8; 32]>> = BTreeMap::new();
        for (file, (_, sha256)) in &listed.files {
            if let Some((dir, name)) = file.split_once('/')
                && let Some(number) = dir.strip_prefix("test_data_set_")
            {
                let number = number.parse().unwrap_or_else(|_| panic!("{case}/{dir}: not a number"));
                data_sets.entry(number).or_default().insert(name, *sha256);
            }
        }
        for (number, files) in &data_sets {
            let numbered = |prefix: &str| -> Vec<[u8; 32]> {
                let mut found: Vec<(u64, [u8; 32])> = files
                    .iter()
                    .filter_map(|(name, sha256)| {
                        let k = name.strip_prefix(prefix)?.strip_suffix(".pb")?;
                        Some((k.parse().unwrap_or_else(|_| panic!("{case}: {name}")), *sha256))
                    })
                    .collect();
                found.sort();
                assert!(
                    found.iter().enumerate().all(|(k, (n, _))| *n == k as u64),
                    "{case}/test_data_set_{number}: {prefix}K.pb numbered with a gap"
                );
                found.into_iter().map(|(_, sha256)| sha256).collect()
            };
            let content = content_key::content(
                &model,
                &numbered("input_"),
                &numbered("output_"),
                files.get("expected_error.txt"),
            );
            let row = format!(
                "{}\t{model_bytes}\t{}\t{}\t{}\t{case}\t{number}\n",
                hex(&model[..16]),
                hex(&content),
                info.map_or_else(|| "-".to_owned(), |info| hex(&info)),
                if listed.upstream { "u" } else { "g" },
            );
            match rows.get(&content) {
                Some((_, first, first_info)) => assert!(
                    *first_info == info,
                    "{case}/{number} is the content of {first}, with another case.json: which one a copy keeps is undecided"
                ),
                None => {
                    rows.insert(content, (row, format!("{case}/{number}"), info));
                }
            }
        }
    }
    let mut table = format!("max-file-bytes\t{max_bytes}\n");
    for (row, _, _) in rows.values() {
        table.push_str(row);
    }
    table
}

fn parse_sha256(text: &str) -> [u8; 32] {
    assert_eq!(text.len(), 64, "a sha256 of 64 hex digits: {text:?}");
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap_or_else(|_| panic!("not hex: {text:?}"));
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
