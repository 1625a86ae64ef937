//! Where the test data is, and which corpus it belongs to: the one resolver of data roots
//! that the CLI and the harness share. Without paths, the data is `$PAD_CONFORMANCE_DATA`,
//! else `./onnx-testdata`, else the bundled corpus: with the `embedded-corpus` feature (the
//! binary's), the copy embedded in the build, unpacked into a cache; without it, this crate's
//! own `onnx-testdata/`, located from the crate's manifest directory when it was built, so that
//! a gate depending on it by path or by git finds the cases without being told a path.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::data::bundled;
use crate::data::corpus::Corpus;
use crate::data::corpus_error::CorpusError;
use crate::data::manifest::ListedCase;

/// The environment variable that overrides [`data_dir`]: a directory of cases to use instead
/// of the bundled ones.
pub(crate) const DATA_ENV: &str = "PAD_CONFORMANCE_DATA";

/// The bundled cases: `$PAD_CONFORMANCE_DATA` when set (and not empty), else, with the
/// `embedded-corpus` feature, the corpus embedded in the build, unpacked into a cache directory
/// (`$PAD_CONFORMANCE_CACHE`, else the platform's) and verified; else this crate's
/// `onnx-testdata/` as it was when the crate was built — for a git dependency, the checkout
/// under cargo's home, which outlives the build.
///
/// ```
/// let dir = pad_conformance::data_dir();
/// # if std::env::var_os("PAD_CONFORMANCE_DATA").is_none() {
/// assert!(dir.join("MANIFEST.tsv").is_file());
/// # }
/// ```
pub fn data_dir() -> PathBuf {
    data_dir_from(std::env::var_os(DATA_ENV))
}

fn data_dir_from(env: Option<OsString>) -> PathBuf {
    match env {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        // An unpacking that fails is reported by `default_root`, which the harness and the
        // command line use; here the path shows up as missing.
        _ => bundled_root().unwrap_or_else(|_| bundled::source_corpus()),
    }
}

/// The bundled corpus: the embedded copy in the cache (feature `embedded-corpus`), else the
/// source tree's.
fn bundled_root() -> Result<PathBuf, bundled::BundleError> {
    #[cfg(feature = "embedded-corpus")]
    return bundled::unpacked_corpus();
    #[cfg(not(feature = "embedded-corpus"))]
    Ok(bundled::source_corpus())
}

/// The default root of the command line and the harness alike: `$PAD_CONFORMANCE_DATA`
/// when set, else `./onnx-testdata` when the current directory has one (a checkout of this
/// repository, or a project keeping its own copy), else the bundled data.
pub(crate) fn default_root() -> Result<PathBuf, CorpusError> {
    if let Some(dir) = std::env::var_os(DATA_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let local = Path::new("onnx-testdata");
    if local.is_dir() {
        return Ok(local.to_owned());
    }
    bundled_root().map_err(CorpusError::Bundle)
}

/// A directory searched for cases, with the corpus it belongs to (if any): its version
/// dates a baseline, its changelog explains verdicts that changed with it, and its manifests
/// say which cases are upstream.
#[derive(Clone, Debug)]
pub struct DataRoot {
    /// The directory as given.
    pub path: PathBuf,
    /// The corpus it lies in, by [`Corpus::find`]'s rule.
    pub corpus: Option<Arc<Corpus>>,
}

impl DataRoot {
    /// Resolves `paths`, or the [`default_root`] when there are none. Each corpus is read
    /// once however many roots lie in it; roots from different corpora keep their own.
    pub fn resolve(paths: &[PathBuf]) -> Result<Vec<DataRoot>, CorpusError> {
        let defaulted;
        let paths = if paths.is_empty() {
            defaulted = [default_root()?];
            &defaulted[..]
        } else {
            paths
        };
        let mut read: HashMap<PathBuf, Arc<Corpus>> = HashMap::new();
        let roots = paths
            .iter()
            .map(|path| {
                let corpus = match Corpus::find(path)? {
                    Some(corpus) => Some(Arc::clone(
                        read.entry(corpus.dir.clone()).or_insert_with(|| Arc::new(corpus)),
                    )),
                    None => None,
                };
                Ok(DataRoot {
                    path: path.clone(),
                    corpus,
                })
            })
            .collect::<Result<Vec<_>, CorpusError>>()?;
        let mut by_name: HashMap<String, &Path> = HashMap::new();
        for corpus in read.values() {
            if let Some(other) = by_name.insert(corpus_name(corpus), &corpus.dir) {
                let (first, second) = if other <= corpus.dir.as_path() {
                    (other, corpus.dir.as_path())
                } else {
                    (corpus.dir.as_path(), other)
                };
                return Err(CorpusError::SameName {
                    first: first.to_owned(),
                    second: second.to_owned(),
                });
            }
        }
        Ok(roots)
    }

    /// Whether `listed`, a case of this root's corpus, is vouched for by the digests this
    /// build carries: a case of the bundled corpus itself.
    pub(crate) fn anchors(&self, listed: &ListedCase) -> bool {
        self.corpus
            .as_deref()
            .is_some_and(|corpus| !corpus.manifest.unanchored().contains(&listed.manifest))
    }

    /// The manifest's entry for the case at `dir` (under this root), if its corpus lists it.
    pub fn listed_case(&self, dir: &Path) -> Option<&ListedCase> {
        let corpus = self.corpus.as_deref()?;
        let dir = dir.canonicalize().ok()?;
        corpus.manifest.case(&corpus.relative(&dir)?)
    }
}

/// The versions of the corpora `roots` belong to, by corpus name (its directory's name):
/// what a baseline records. Empty when no root lies in a versioned corpus.
pub(crate) fn corpus_versions(roots: &[DataRoot]) -> BTreeMap<String, u32> {
    roots
        .iter()
        .filter_map(|root| root.corpus.as_deref())
        .map(|corpus| (corpus_name(corpus), corpus.version))
        .collect()
}

/// A corpus's name in a baseline: its directory's name (`onnx-testdata`).
pub(crate) fn corpus_name(corpus: &Corpus) -> String {
    corpus.dir.file_name().map_or_else(
        || corpus.dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_data_is_this_crates_and_the_environment_overrides_it() {
        let bundled = data_dir_from(None);
        assert!(bundled.join("onnx-1.22.0/node/test_wrap_pad/model.onnx").is_file());
        assert_eq!(data_dir_from(Some("".into())), bundled);
        assert_eq!(data_dir_from(Some("/elsewhere".into())), Path::new("/elsewhere"));
    }
}
