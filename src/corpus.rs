//! The corpus version and changelog (onnx-testdata/VERSION, onnx-testdata/CHANGELOG.md).
//! Expected results change as rules are corrected; a baseline records the corpus version it
//! was written against, so that a run on a newer corpus can tell verdicts that changed with
//! the corpus from the backend's own regressions.
//!
//! The changelog lists, under a `## N` heading per version, one line per data set whose
//! expected result or basis changed in that version: ``- `extended/test_x/0`: why``.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The file holding the corpus version, a whole number.
pub const VERSION_FILE: &str = "VERSION";
/// The file listing what changed in each version.
pub const CHANGELOG_FILE: &str = "CHANGELOG.md";

/// A versioned corpus: its directory, version and changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    /// The directory holding VERSION and CHANGELOG.md.
    pub dir: PathBuf,
    /// The current version.
    pub version: u32,
    /// Per version, the data sets (named relative to `dir`) whose expected result or basis
    /// changed in it.
    pub changes: BTreeMap<u32, BTreeSet<String>>,
}

/// A VERSION or CHANGELOG.md that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file cannot be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// VERSION does not hold a whole number.
    #[error("{}: {text:?} is not a corpus version (a whole number)", path.display())]
    Version {
        /// The VERSION file.
        path: PathBuf,
        /// What it holds.
        text: String,
    },
    /// A changelog line that is not `- `name`: why` under a `## N` heading.
    #[error("{}:{line}: {problem}", path.display())]
    Changelog {
        /// The changelog.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// The changelog has no entry for the current version.
    #[error("{}: no `## {version}` section for the current version", path.display())]
    Unlisted {
        /// The changelog.
        path: PathBuf,
        /// The version VERSION names.
        version: u32,
    },
}

impl Corpus {
    /// The corpus `root` belongs to: the nearest directory at or above it holding VERSION.
    /// `None` for a tree outside any versioned corpus.
    pub fn find(root: &Path) -> Result<Option<Corpus>, CorpusError> {
        let start = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        for dir in start.ancestors() {
            if dir.join(VERSION_FILE).is_file() {
                return Corpus::read(dir).map(Some);
            }
        }
        Ok(None)
    }

    /// Reads `dir`/VERSION and `dir`/CHANGELOG.md.
    pub fn read(dir: &Path) -> Result<Corpus, CorpusError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read_to_string(&path).map_err(|source| CorpusError::Read { path, source })
        };
        let text = read(VERSION_FILE)?;
        let version = text.trim().parse().map_err(|_| CorpusError::Version {
            path: dir.join(VERSION_FILE),
            text: text.trim().to_owned(),
        })?;
        let changes = parse_changelog(&read(CHANGELOG_FILE)?, &dir.join(CHANGELOG_FILE))?;
        if !changes.contains_key(&version) {
            return Err(CorpusError::Unlisted {
                path: dir.join(CHANGELOG_FILE),
                version,
            });
        }
        Ok(Corpus {
            dir: dir.to_owned(),
            version,
            changes,
        })
    }

    /// The data sets whose expected result or basis changed after `version`, named as a run
    /// over `root` names them (relative to `root`, which lies in this corpus).
    pub fn changed_since(&self, version: u32, root: &Path) -> BTreeSet<String> {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        let prefix = root.strip_prefix(&self.dir).map(|p| {
            p.components()
                .map(|c| format!("{}/", c.as_os_str().to_string_lossy()))
                .collect::<String>()
        });
        let Ok(prefix) = prefix else {
            return BTreeSet::new();
        };
        self.changes
            .range(version + 1..)
            .flat_map(|(_, names)| names)
            .filter_map(|name| name.strip_prefix(&prefix).map(str::to_owned))
            .collect()
    }
}

/// `## N` headings, each followed by ``- `name`: why`` lines; other lines are prose.
fn parse_changelog(text: &str, path: &Path) -> Result<BTreeMap<u32, BTreeSet<String>>, CorpusError> {
    let problem = |line: usize, problem: String| CorpusError::Changelog {
        path: path.to_owned(),
        line,
        problem,
    };
    let mut changes: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(heading) = line.strip_prefix("## ") {
            let version = heading
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u32>().ok())
                .ok_or_else(|| problem(number, format!("{heading:?} does not start with a version number")))?;
            if changes.insert(version, BTreeSet::new()).is_some() {
                return Err(problem(number, format!("version {version} is listed twice")));
            }
            current = Some(version);
        } else if let Some(entry) = line.strip_prefix("- `") {
            let Some((name, _why)) = entry.split_once("`: ") else {
                return Err(problem(number, "an entry must read - `data set`: why".to_owned()));
            };
            let version = current.ok_or_else(|| problem(number, "an entry before any `## N` heading".to_owned()))?;
            changes.entry(version).or_default().insert(name.to_owned());
        }
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changelog_lists_data_sets_per_version() {
        let text = "# Changes\n\n## 2 (2026-11-23)\n\nWhy it changed.\n\n- `extended/a/0`: now refused\n- `b/0`: basis\n\n## 1\n\nFirst.\n";
        let changes = parse_changelog(text, Path::new("CHANGELOG.md")).unwrap();
        assert_eq!(changes[&2].iter().collect::<Vec<_>>(), ["b/0", "extended/a/0"]);
        assert!(changes[&1].is_empty());
        let corpus = Corpus {
            dir: PathBuf::from("/c"),
            version: 2,
            changes,
        };
        let all: Vec<String> = corpus.changed_since(1, Path::new("/c")).into_iter().collect();
        assert_eq!(all, ["b/0", "extended/a/0"]);
        let under: Vec<String> = corpus.changed_since(1, Path::new("/c/extended")).into_iter().collect();
        assert_eq!(under, ["a/0"]);
        assert!(corpus.changed_since(2, Path::new("/c")).is_empty());
    }

    #[test]
    fn malformed_changelogs_name_the_line() {
        let bad = [
            ("- `a/0`: early\n", "1: an entry before"),
            ("## x\n", "1: \"x\" does not start"),
            ("## 1\n- `a/0` no colon\n", "2: an entry must read"),
            ("## 1\n## 1\n", "2: version 1 is listed twice"),
        ];
        for (text, expected) in bad {
            let error = parse_changelog(text, Path::new("C.md")).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
    }
}
