//! The errors of loading and discovering test cases. Each names what a person needs to find
//! the problem: the file, the field or node, and the offending value.

use std::path::PathBuf;
use std::sync::Arc;

use crate::case::info::CASE_INFO_FILE;
use crate::data::corpus_error::CorpusError;
use crate::data::json_file::JsonFileError;
use crate::model::ReadError;
use crate::tensor::FileError;

/// An error of loading, decoding or discovering test cases.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file that could not be read or decoded (boxed: it is large, and rare).
    #[error(transparent)]
    File(Box<FileError>),
    /// A model.onnx that cannot be read.
    #[error(transparent)]
    Model(ReadError),
    /// A root that cannot be walked at all.
    #[error("walking {}: {source}", crate::text::shown_path(path))]
    Walk {
        /// The root.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A root whose walk goes past 10,000,000 entries: most
    /// likely not a directory of cases at all (`/`, `/sys`).
    #[error(
        "walking {}: more than {limit} entries, more than any corpus of cases holds; name the directory of the cases",
        crate::text::shown_path(path)
    )]
    WalkLimit {
        /// The root.
        path: PathBuf,
        /// The limit passed.
        limit: usize,
    },
    /// A case-directory pattern that is not a glob.
    #[error("invalid pattern {pattern:?}: {source}")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// Why it does not compile.
        #[source]
        source: glob::PatternError,
    },
    /// Discovery was cancelled.
    #[error("cancelled while looking for cases")]
    Cancelled,
    /// Nothing to run: a green run over nothing would mean nothing.
    #[error(
        "no test cases found under {}: a case is a directory holding model.onnx named test_*_pad*, test_center_crop_pad_* or test_*Pad* (--pattern GLOB names others)",
        roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoCases {
        /// The roots searched.
        roots: Vec<PathBuf>,
    },
    /// Two cases of one discovery that would share a name even with their roots prefixed (a
    /// directory named like another root's prefix, `other:node/test_x_pad`): reports, `diff`,
    /// `merge` and baselines key data sets by name, and would take one for the other.
    #[error("{0}")]
    SameName(Box<NameClash>),
    /// The corpus's VERSION or CHANGELOG.md cannot be read.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
}

impl From<ReadError> for Error {
    fn from(error: ReadError) -> Error {
        match error {
            ReadError::File(file) => Error::File(file),
            model => Error::Model(model),
        }
    }
}

impl From<FileError> for Error {
    fn from(error: FileError) -> Error {
        Error::File(Box::new(error))
    }
}

/// Two cases of one discovery that would take one name: their directories and roots. Boxed in
/// [`Error::SameName`], so that every `Result` of discovery stays small (four paths are 128
/// bytes on Windows).
#[derive(Debug, thiserror::Error)]
#[error(
    "{} and {} would both be named {id:?} (under the roots {} and {}): a run names each case once; rename one, or run the roots apart",
    crate::text::shown_path(first),
    crate::text::shown_path(second),
    crate::text::shown_path(first_root),
    crate::text::shown_path(second_root)
)]
pub struct NameClash {
    /// The name both would take.
    pub id: String,
    /// The first case's directory.
    pub first: PathBuf,
    /// The root it was found under.
    pub first_root: PathBuf,
    /// The second case's directory.
    pub second: PathBuf,
    /// The root it was found under.
    pub second_root: PathBuf,
}

/// A case.json whose `twin` names no valid twin ([`twin`](super::twin)).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}: its twin {twin:?} {problem}", crate::text::shown_path(path))]
pub struct TwinError {
    /// The case.json.
    pub path: PathBuf,
    /// What its `twin` says.
    pub twin: String,
    /// What is wrong with it.
    pub problem: TwinProblem,
}

/// What is wrong with a `twin`.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TwinProblem {
    /// Not one directory name: a path, `..`, or empty.
    #[error("is not the name of a case directory beside it")]
    NotAName,
    /// No case directory of that name beside it.
    #[error("does not exist: {} holds no model.onnx", crate::text::shown_path(dir))]
    Missing {
        /// Where the twin would be.
        dir: PathBuf,
    },
    /// The case naming it has no data set that must be refused.
    #[error("is named by a case with no data set that must be refused: only those have twins")]
    NotRefused,
    /// The twin must be refused too (`file` says so: an expected_error.txt or its case.json).
    #[error("must be refused too ({}): a twin is a valid case", crate::text::shown_path(file))]
    MustRefuse {
        /// The file that says so.
        file: PathBuf,
    },
    /// The twin is another operator.
    #[error("is {actual}, not {claimed}: a twin is the same operator")]
    OtherOperator {
        /// The operator of the case naming it (`Pad-18`, `com.microsoft Pad-1`).
        claimed: String,
        /// The twin's.
        actual: String,
    },
    /// The twin lacks a data set of a number that must be refused here.
    #[error("has no test_data_set_{number}: the twin of each data set is the twin's data set of its number")]
    MissingDataSet {
        /// The number.
        number: usize,
    },
    /// The twin has no case.json saying what it is.
    #[error("has no {CASE_INFO_FILE} saying which operator it is")]
    Undescribed,
    /// The twin's case.json cannot be read.
    #[error("cannot be read: {0}")]
    Unreadable(Arc<JsonFileError>),
}
