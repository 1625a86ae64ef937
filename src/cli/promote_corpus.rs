//! Writing promoted findings into a versioned corpus: each case under `fuzz/` in a directory of
//! its own (never over one that exists), `fuzz/MANIFEST.tsv` with every file's size and
//! sha256, one `## N` section of CHANGELOG.md for the whole batch, and VERSION raised by one —
//! written in that order, each file whole or not at all, so that the corpus reads at every step.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::data::atomic_file::write_atomically;
use crate::data::corpus::{CHANGELOG_FILE, Corpus, VERSION_FILE};
use crate::data::manifest::{GENERATED_HEADER, MANIFEST_FILE};
use crate::data::side_file::{MAX_CORPUS_LIST_BYTES, read_text_capped};
use sha2::{Digest, Sha256};

use super::Fatal;

/// The corpus subdirectory promoted findings go in.
pub(super) const FUZZ_DIR: &str = "fuzz";

const README: &str = "# Promoted fuzz findings

Written by `pad-conformance promote`; do not edit by hand. Each `test_fuzz_<cause>_<digest>_pad/`
is a finding of `pad-conformance fuzz --out` made a fixed regression test: `model.onnx`,
`test_data_set_0/` (inputs, and the reference's outputs or `expected_error.txt`), `description.txt`
(the cause and the case as the fuzzer found them) and `case.json` with the basis of the expected
result and its `promotion`: the finding it came from, and `oracle` — `confirmed` when a second
oracle (ONNX's reference evaluator) agrees with the reference, `reference-only` with a `note`
saying why none could. `<digest>` is the start of a sha256 of the model and the data set, so
a finding promoted twice is one case. `MANIFEST.tsv` lists every file with its size and sha256;
CHANGELOG.md one level up names every case, in the corpus version that added it. See
docs/corpus.md.
";

/// A case to add: its directory name and files (relative path, bytes).
pub(super) struct NewCase {
    /// `test_fuzz_<slug>_<digest>_pad`.
    pub name: String,
    /// Its files.
    pub files: Vec<(String, Vec<u8>)>,
    /// Why it is added, for the changelog: `new, ...`.
    pub why: String,
}

/// The corpus's `fuzz/` directory.
pub(super) fn fuzz_dir(corpus: &Corpus) -> PathBuf {
    corpus.dir.join(FUZZ_DIR)
}

/// The case under `fuzz/` that holds the test whose digest is `digest` (its name ends in
/// `_<digest>_pad`): `Some((name, true))` when it holds exactly `files` (bytes compared),
/// `Some((name, false))` when other files; `None` when there is none.
pub(super) fn existing(corpus: &Corpus, digest: &str, files: &[(&str, &[u8])]) -> Option<(String, bool)> {
    let suffix = format!("_{digest}_pad");
    let entries = fs::read_dir(fuzz_dir(corpus)).ok()?;
    let name = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with("test_fuzz_") && name.ends_with(&suffix))?;
    let dir = fuzz_dir(corpus).join(&name);
    let same = files.iter().all(|(file, bytes)| {
        crate::data::side_file::read_capped(&dir.join(file), bytes.len() as u64).is_ok_and(|b| b == *bytes)
    });
    Some((name, same))
}

/// Adds `cases` to `corpus` as version `corpus.version + 1`, dated `date`, the section's
/// prose `summary`. Returns the new version.
pub(super) fn release(corpus: &Corpus, cases: &[NewCase], date: &str, summary: &str) -> Result<u32, Fatal> {
    let version = corpus.version.checked_add(1).ok_or_else(|| {
        Fatal(format!(
            "{}: version {} cannot be raised",
            corpus.dir.join(VERSION_FILE).display(),
            corpus.version
        ))
    })?;
    let dir = fuzz_dir(corpus);
    let io = |path: &Path, e: std::io::Error| Fatal(format!("writing {}: {e}", path.display()));
    let manifest_path = dir.join(MANIFEST_FILE);
    let mut lines: Vec<String> = match fs::symlink_metadata(&dir) {
        Err(_) => {
            fs::create_dir(&dir).map_err(|e| io(&dir, e))?;
            write_atomically(&dir.join("README.md"), README.as_bytes()).map_err(|e| io(&dir.join("README.md"), e))?;
            Vec::new()
        }
        Ok(m) if m.is_dir() => {
            let text = read_text_capped(&manifest_path, MAX_CORPUS_LIST_BYTES)
                .map_err(|e| Fatal(format!("reading {}: {e}", manifest_path.display())))?;
            text.lines().skip(1).map(str::to_owned).collect()
        }
        Ok(_) => return Err(Fatal(format!("{}: not a directory", dir.display()))),
    };
    for case in cases {
        let case_dir = dir.join(&case.name);
        // create_dir fails on anything there: an existing case is never written over.
        fs::create_dir(&case_dir).map_err(|e| io(&case_dir, e))?;
        for (file, bytes) in &case.files {
            let path = case_dir.join(file);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            let mut out = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| io(&path, e))?;
            out.write_all(bytes).map_err(|e| io(&path, e))?;
            let sha: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
            lines.push(format!("{}\t{file}\t{}\t{sha}", case.name, bytes.len()));
        }
    }
    lines.sort();
    let manifest = format!("{GENERATED_HEADER}\n{}\n", lines.join("\n"));
    write_atomically(&manifest_path, manifest.as_bytes()).map_err(|e| io(&manifest_path, e))?;
    let changelog_path = corpus.dir.join(CHANGELOG_FILE);
    let changelog = read_text_capped(&changelog_path, MAX_CORPUS_LIST_BYTES)
        .map_err(|e| Fatal(format!("reading {}: {e}", changelog_path.display())))?;
    let section = changelog_section(version, date, summary, cases);
    write_atomically(&changelog_path, with_section(&changelog, &section).as_bytes())
        .map_err(|e| io(&changelog_path, e))?;
    // Last: the changelog already lists the version VERSION names.
    let version_path = corpus.dir.join(VERSION_FILE);
    write_atomically(&version_path, format!("{version}\n").as_bytes()).map_err(|e| io(&version_path, e))?;
    Ok(version)
}

/// `## N (date)`, the prose, and a line per data set.
fn changelog_section(version: u32, date: &str, summary: &str, cases: &[NewCase]) -> String {
    let mut section = format!("## {version} ({date})\n\n{summary}\n\n");
    for case in cases {
        section.push_str(&format!("- `{FUZZ_DIR}/{}/0`: {}\n", case.name, case.why));
    }
    section
}

/// `changelog` with `section` before its first `## ` heading (newest first), or at its end.
fn with_section(changelog: &str, section: &str) -> String {
    let at = changelog
        .match_indices("## ")
        .find(|(i, _)| *i == 0 || changelog.as_bytes()[i - 1] == b'\n')
        .map(|(i, _)| i);
    match at {
        Some(i) => format!("{}{section}\n{}", &changelog[..i], &changelog[i..]),
        None => {
            let separator = if changelog.ends_with("\n\n") || changelog.is_empty() {
                ""
            } else if changelog.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            format!("{changelog}{separator}{section}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_section_goes_before_the_newest() {
        let log = "# Corpus changelog\n\nProse with a ## inside.\n\n## 3 (2026-11-23)\n\nThird.\n";
        let case = NewCase {
            name: "test_fuzz_x_0123abcd_pad".into(),
            files: Vec::new(),
            why: "new, why".into(),
        };
        let section = changelog_section(4, "2026-11-25", "Promoted.", &[case]);
        assert_eq!(
            with_section(log, &section),
            "# Corpus changelog\n\nProse with a ## inside.\n\n## 4 (2026-11-25)\n\nPromoted.\n\n\
             - `fuzz/test_fuzz_x_0123abcd_pad/0`: new, why\n\n## 3 (2026-11-23)\n\nThird.\n"
        );
        assert_eq!(with_section("# Log\n", "## 1\n"), "# Log\n\n## 1\n");
    }
}
