//! MANIFEST.tsv files: one line per vendored file with its size and sha256, parsed and
//! checked against the files on disk. Shared by tests/it/manifest.rs (upstream data) and
//! tests/it/extended_generator.rs (the generated corpus).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use sha2::{Digest, Sha256};
use walkdir::WalkDir;

/// (bytes, sha256) of each file, keyed by its path relative to the manifest's directory.
pub type Files = BTreeMap<String, (u64, String)>;

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file under the directories of `root` whose names `covered` accepts, keyed by its
/// path relative to `root` with `/` separators.
pub fn files_on_disk(root: &Path, covered: impl Fn(&str) -> bool) -> Files {
    let mut files = Files::new();
    let entries = fs::read_dir(root).unwrap_or_else(|e| panic!("reading {}: {e}", root.display()));
    for entry in entries.map(|e| e.expect("directory entry")) {
        if !covered(&entry.file_name().to_string_lossy()) || !entry.path().is_dir() {
            continue;
        }
        for file in WalkDir::new(entry.path()).sort_by_file_name() {
            let file = file.expect("walking the data");
            if file.file_type().is_dir() {
                continue;
            }
            let rel = file.path().strip_prefix(root).expect("under root");
            let key: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
            let data = fs::read(file.path()).unwrap_or_else(|e| panic!("reading {}: {e}", file.path().display()));
            files.insert(key.join("/"), (data.len() as u64, sha256_hex(&data)));
        }
    }
    files
}

/// Parses a manifest whose columns are `header` (tab-separated, ending in `bytes` and
/// `sha256`); `key` makes a file's key from the other fields. Format problems (a wrong
/// header, a short line, a bad size, a file listed twice, and with `sorted` a line out of
/// order) are appended to `problems`.
pub fn parse_manifest(
    text: &str,
    header: &str,
    sorted: bool,
    key: impl Fn(&[&str]) -> String,
    problems: &mut Vec<String>,
) -> Files {
    let columns = header.split('\t').count();
    let mut files = Files::new();
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        problems.push(format!("MANIFEST.tsv: the first line is not the header {header:?}"));
    }
    let mut previous: Option<&str> = None;
    for (n, line) in lines.enumerate() {
        let line_no = n + 2;
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != columns {
            problems.push(format!(
                "MANIFEST.tsv line {line_no}: expected {columns} fields: {line:?}"
            ));
            continue;
        }
        let (names, last) = fields.split_at(columns - 2);
        let (bytes, sha) = (last[0], last[1]);
        let Ok(bytes) = bytes.parse::<u64>() else {
            problems.push(format!("MANIFEST.tsv line {line_no}: bad size {bytes:?}"));
            continue;
        };
        if sorted && previous.is_some_and(|p| p >= line) {
            problems.push(format!("MANIFEST.tsv line {line_no}: not sorted"));
        }
        previous = Some(line);
        let key = key(names);
        if files.insert(key.clone(), (bytes, sha.to_owned())).is_some() {
            problems.push(format!("MANIFEST.tsv line {line_no}: {key} is listed twice"));
        }
    }
    files
}
