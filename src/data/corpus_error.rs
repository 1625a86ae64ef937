//! What goes wrong reading a corpus's own files (VERSION, CHANGELOG.md, MANIFEST.tsv): apart
//! from corpus.rs so that the manifest's reader reports with it without depending on the corpus.

use std::path::PathBuf;

/// A VERSION or CHANGELOG.md that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file cannot be read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// VERSION does not hold a whole number.
    #[error(
        "{}: {text:?} is not a corpus version (a whole number)",
        crate::text::shown_path(path)
    )]
    Version {
        /// The VERSION file.
        path: PathBuf,
        /// What it holds.
        text: String,
    },
    /// A changelog line that is not `- `name`: why` under a `## N` heading.
    #[error("{}:{line}: {problem}", crate::text::shown_path(path))]
    Changelog {
        /// The changelog.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// A MANIFEST.tsv line that is not as its header says.
    #[error("{}:{line}: {problem}", crate::text::shown_path(path))]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// The changelog has no entry for the current version.
    #[error(
        "{}: no `## {version}` section for the current version",
        crate::text::shown_path(path)
    )]
    Unlisted {
        /// The changelog.
        path: PathBuf,
        /// The version VERSION names.
        version: u32,
    },
    /// The embedded corpus could not be unpacked.
    #[error(transparent)]
    Bundle(#[from] crate::data::bundled::BundleError),
    /// A manifest missing where the corpus's own record says it belongs: a subdirectory the
    /// changelog names data sets in without its MANIFEST.tsv (its checksums would silently stop).
    #[error("{}: missing, {why}", path.display())]
    Missing {
        /// The missing file.
        path: PathBuf,
        /// What says it belongs there.
        why: String,
    },
    /// Roots from two corpora whose directories share a name: a baseline names a corpus by
    /// its directory's name, so it could not tell their versions apart.
    #[error(
        "{} and {} are two corpora of one name: a baseline could not tell their versions apart; rename one or run them separately",
        crate::text::shown_path(first),
        crate::text::shown_path(second)
    )]
    SameName {
        /// One corpus's directory.
        first: PathBuf,
        /// The other's.
        second: PathBuf,
    },
}
