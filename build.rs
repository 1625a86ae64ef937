//! Fixes the bundled corpus at build time, so the bundled manifests are anchored by digests the
//! binary carries: with the `embedded-corpus` feature, the size and sha256 of every file of
//! onnx-testdata/ (and of the second oracle's worker script) as an index the crate includes,
//! and the files themselves as one deflate stream in the index's order (src/data/bundled.rs
//! unpacks it into a cache when files are needed); without it, the manifests' only.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

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
