//! The corpus version and changelog (onnx-testdata/VERSION, onnx-testdata/CHANGELOG.md).
//! Expected results change as rules are corrected; a baseline records the corpus version it
//! was written against, so that a run on a newer corpus can tell verdicts that changed with
//! the corpus from the backend's own regressions.
//!
//! The changelog lists, under a `## N` heading per version, one line per data set whose
//! expected result or basis changed in that version: ``- `extended/test_x/0`: why``.
//!
//! A corpus root holds VERSION, CHANGELOG.md and MANIFEST.tsv ([`crate::data::manifest`]). A data
//! root belongs to the corpus that is itself, or to its nearest ancestor corpus whose
//! manifests list data there: a VERSION planted in an unrelated parent is never adopted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::data::corpus_error::CorpusError;
use crate::data::manifest::{MANIFEST_FILE, Manifest};
use crate::data::side_file::{MAX_CORPUS_LIST_BYTES, MAX_VERSION_BYTES, excerpt, read_text_capped};

/// The file holding the corpus version, a whole number (read here, raised by the tool's
/// promotion).
pub(crate) const VERSION_FILE: &str = "VERSION";
/// The file listing what changed in each version.
pub(crate) const CHANGELOG_FILE: &str = "CHANGELOG.md";

/// A versioned corpus: its directory, version and changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    /// The directory holding VERSION and CHANGELOG.md.
    pub dir: PathBuf,
    /// The current version.
    pub version: u32,
    /// Per version, the data sets (named relative to `dir`) whose expected result or basis
    /// changed in it, each with the changelog's reason.
    pub changes: BTreeMap<u32, BTreeMap<String, String>>,
    /// The files it vouches for.
    pub manifest: Manifest,
}

impl Corpus {
    /// The corpus `root` belongs to: `root` itself when it is a corpus root, else the
    /// nearest corpus root above it whose manifests list data at or under it. `None` for a
    /// tree outside any versioned corpus.
    pub fn find(root: &Path) -> Result<Option<Corpus>, CorpusError> {
        let start = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        for dir in start.ancestors() {
            // A root holding VERSION or CHANGELOG.md is read as a corpus, and a file of it that
            // is missing, huge or no regular file is an error naming it: never passed over.
            let marked = dir == start
                && [VERSION_FILE, CHANGELOG_FILE]
                    .iter()
                    .any(|name| std::fs::symlink_metadata(dir.join(name)).is_ok());
            if !marked && !is_corpus_root(dir) {
                continue;
            }
            let corpus = Corpus::read(dir)?;
            if corpus.manifest.covers(&corpus.relative(&start).unwrap_or_default()) {
                return Ok(Some(corpus));
            }
        }
        Ok(None)
    }

    /// `path` (canonical, inside this corpus) relative to its root, `/`-separated.
    pub fn relative(&self, path: &Path) -> Option<String> {
        // Either may be spelled through a symbolic link, or on Windows one be canonical (a
        // verbatim `\\?\C:\…` path) and the other not: then they are compared resolved.
        let resolved;
        let relative = match path.strip_prefix(&self.dir) {
            Ok(relative) => relative,
            Err(_) => {
                resolved = (path.canonicalize().ok()?, self.dir.canonicalize().ok()?);
                resolved.0.strip_prefix(&resolved.1).ok()?
            }
        };
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// Reads `dir`/VERSION, `dir`/CHANGELOG.md and the manifests.
    pub fn read(dir: &Path) -> Result<Corpus, CorpusError> {
        let read = |name: &str, limit| {
            let path = dir.join(name);
            read_text_capped(&path, limit).map_err(|source| CorpusError::Read { path, source })
        };
        let text = read(VERSION_FILE, MAX_VERSION_BYTES)?;
        let version = text.trim().parse().map_err(|_| CorpusError::Version {
            path: dir.join(VERSION_FILE),
            text: excerpt(text.trim(), 40).into_owned(),
        })?;
        let changes = parse_changelog(&read(CHANGELOG_FILE, MAX_CORPUS_LIST_BYTES)?, &dir.join(CHANGELOG_FILE))?;
        if !changes.contains_key(&version) {
            return Err(CorpusError::Unlisted {
                path: dir.join(CHANGELOG_FILE),
                version,
            });
        }
        let manifest = Manifest::read(dir)?;
        check_manifests_kept(dir, &changes, &manifest)?;
        Ok(Corpus {
            dir: dir.to_owned(),
            version,
            changes,
            manifest,
        })
    }

    /// The data sets whose expected result or basis changed after `version`, named as a run
    /// over `root` names them (relative to `root`, which lies in this corpus), each with the
    /// changelog's reason (the latest, when it changed more than once).
    pub fn changed_since(&self, version: u32, root: &Path) -> BTreeMap<String, String> {
        let Some(prefix) = self.relative(root) else {
            return BTreeMap::new();
        };
        let prefix = if prefix.is_empty() { prefix } else { prefix + "/" };
        self.changes
            .range(version.saturating_add(1)..)
            .flat_map(|(v, names)| {
                names
                    .iter()
                    .map(move |(name, why)| (name, format!("corpus version {v}: {why}")))
            })
            .filter_map(|(name, why)| name.strip_prefix(&prefix).map(|n| (n.to_owned(), why)))
            .collect()
    }
}

/// Whether `dir` is a corpus root: VERSION, CHANGELOG.md and MANIFEST.tsv, regular files.
fn is_corpus_root(dir: &Path) -> bool {
    [VERSION_FILE, CHANGELOG_FILE, MANIFEST_FILE]
        .iter()
        .all(|name| std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file()))
}

/// Every subdirectory whose data sets the changelog names (generated cases: `extended/`,
/// `fuzz/`) keeps its MANIFEST.tsv while it exists: the corpus's own record says it had one.
fn check_manifests_kept(dir: &Path, changes: &Changes, manifest: &Manifest) -> Result<(), CorpusError> {
    let named: std::collections::BTreeSet<&str> = changes
        .values()
        .flat_map(|names| names.keys())
        .filter_map(|name| name.split_once('/').map(|(first, _)| first))
        .collect();
    for sub in named {
        let path = dir.join(sub).join(MANIFEST_FILE);
        let is_dir = std::fs::symlink_metadata(dir.join(sub)).is_ok_and(|m| m.is_dir());
        if is_dir && !manifest.lists_upstream_under(sub) && std::fs::symlink_metadata(&path).is_err() {
            return Err(CorpusError::Missing {
                path,
                why: format!(
                    "while {} names data sets under {sub}/: its checksums would silently stop",
                    dir.join(CHANGELOG_FILE).display()
                ),
            });
        }
    }
    Ok(())
}

/// `## N` headings, each followed by ``- `name`: why`` lines; other lines are prose.
type Changes = BTreeMap<u32, BTreeMap<String, String>>;

fn parse_changelog(text: &str, path: &Path) -> Result<Changes, CorpusError> {
    let problem = |line: usize, problem: String| CorpusError::Changelog {
        path: path.to_owned(),
        line,
        problem,
    };
    let mut changes = Changes::new();
    let mut current = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(heading) = line.strip_prefix("## ") {
            let version = heading
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u32>().ok())
                .ok_or_else(|| {
                    problem(
                        number,
                        format!("{:?} does not start with a version number", excerpt(heading, 60)),
                    )
                })?;
            if changes.insert(version, BTreeMap::new()).is_some() {
                return Err(problem(number, format!("version {version} is listed twice")));
            }
            current = Some(version);
        } else if let Some(entry) = line.strip_prefix("- `") {
            let Some((name, why)) = entry.split_once("`: ") else {
                return Err(problem(number, "an entry must read - `data set`: why".to_owned()));
            };
            let version = current.ok_or_else(|| problem(number, "an entry before any `## N` heading".to_owned()))?;
            changes
                .entry(version)
                .or_default()
                .insert(name.to_owned(), why.to_owned());
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
        assert_eq!(changes[&2].keys().collect::<Vec<_>>(), ["b/0", "extended/a/0"]);
        assert!(changes[&1].is_empty());
        let corpus = Corpus {
            dir: PathBuf::from("/c"),
            version: 2,
            changes,
            manifest: Manifest::default(),
        };
        let all: Vec<String> = corpus.changed_since(1, Path::new("/c")).into_keys().collect();
        assert_eq!(all, ["b/0", "extended/a/0"]);
        let under = corpus.changed_since(1, Path::new("/c/extended"));
        assert_eq!(
            under.into_iter().collect::<Vec<_>>(),
            [("a/0".to_owned(), "corpus version 2: now refused".to_owned())]
        );
        assert!(corpus.changed_since(2, Path::new("/c")).is_empty());
    }

    /// A corpus read through a symbolic link still names the changes under a root spelled
    /// without it, and the reverse (on Windows: a canonical `\\?\` path against a plain one).
    #[cfg(unix)]
    #[test]
    fn a_root_spelled_another_way_still_finds_its_changes() {
        let dir = crate::data::scratch_dir().unwrap();
        let real = dir.path().join("real");
        corpus_root(&real);
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let through_link = Corpus::read(&dir.path().join("link")).unwrap();
        let expected = [("test_a_pad/0".to_owned(), "corpus version 2: new".to_owned())];
        let changed = through_link.changed_since(1, &real.join("extended"));
        assert_eq!(changed.into_iter().collect::<Vec<_>>(), expected);
        let direct = Corpus::read(&real).unwrap();
        let changed = direct.changed_since(1, &dir.path().join("link").join("extended"));
        assert_eq!(changed.into_iter().collect::<Vec<_>>(), expected);
    }

    fn corpus_root(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(VERSION_FILE), "2\n").unwrap();
        std::fs::write(
            dir.join(CHANGELOG_FILE),
            "## 2\n\n- `extended/test_a_pad/0`: new\n\n## 1\n",
        )
        .unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), "release\tcase\tfile\torigin\tbytes\tsha256\n").unwrap();
        std::fs::create_dir_all(dir.join("extended")).unwrap();
        std::fs::write(dir.join("extended").join(MANIFEST_FILE), "case\tfile\tbytes\tsha256\n").unwrap();
    }

    #[test]
    fn a_manifest_the_changelog_vouches_for_cannot_vanish() {
        let dir = crate::data::scratch_dir().unwrap();
        corpus_root(dir.path());
        assert!(Corpus::find(dir.path()).unwrap().is_some());
        std::fs::remove_file(dir.path().join("extended").join(MANIFEST_FILE)).unwrap();
        let error = Corpus::find(&dir.path().join("extended")).unwrap_err().to_string();
        // The path as the platform writes it (backslashes on Windows).
        let expected = format!("extended{}MANIFEST.tsv: missing, while", std::path::MAIN_SEPARATOR);
        assert!(error.contains(&expected), "{error}");
        // Without the subdirectory, nothing of it runs unchecked.
        std::fs::remove_dir(dir.path().join("extended")).unwrap();
        assert!(Corpus::find(dir.path()).unwrap().is_some());
    }

    #[test]
    fn a_root_with_a_huge_or_lonely_corpus_file_is_refused_naming_it() {
        for (file, size) in [(VERSION_FILE, 6u64 << 30), (CHANGELOG_FILE, 6 << 30)] {
            let dir = crate::data::scratch_dir().unwrap();
            corpus_root(dir.path());
            std::fs::remove_file(dir.path().join(MANIFEST_FILE)).unwrap();
            // Sparse: no disk is used.
            std::fs::File::options()
                .write(true)
                .open(dir.path().join(file))
                .unwrap()
                .set_len(size)
                .unwrap();
            let error = Corpus::find(dir.path()).unwrap_err().to_string();
            assert!(error.contains(&format!("{file}: 6442450944 bytes, over")), "{error}");
        }
        let dir = crate::data::scratch_dir().unwrap();
        corpus_root(dir.path());
        std::fs::remove_file(dir.path().join(MANIFEST_FILE)).unwrap();
        let error = Corpus::find(dir.path()).unwrap_err().to_string();
        assert!(error.contains("MANIFEST.tsv"), "{error}");
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
