//! What goes wrong reading or writing a tensor file, named by path: the errors of file.rs and
//! raw_read.rs, apart so that neither needs the other for them.

use std::path::{Path, PathBuf};

use super::TensorError;
use crate::proto::TensorProto;

/// A file that could not be read or written: the path, and what went wrong.
#[derive(Debug, thiserror::Error)]
#[error("{} {}: {problem}", if matches!(problem, FileProblem::Write(_)) { "writing" } else { "reading" }, crate::text::shown_path(path))]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong with it.
    #[source]
    pub problem: FileProblem,
}

/// What went wrong with a file.
#[derive(Debug, thiserror::Error)]
pub enum FileProblem {
    /// The operating system refused (missing, unreadable, …).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The operating system refused a write (a full disk, …): the error says "writing".
    #[error("{0}")]
    Write(std::io::Error),
    /// A directory, FIFO or device where a regular file must be.
    #[error("not a regular file")]
    NotAFile,
    /// Larger than the limit allows (checked before reading).
    #[error("file of {bytes} bytes is over the limit of {limit} bytes")]
    TooLarge {
        /// The file's size.
        bytes: u64,
        /// The largest size allowed.
        limit: u64,
    },
    /// A group of files read together (a data set, a worker's reply) whose sizes add up to
    /// more than the group may take; checked before any of them is read.
    #[error("with the files listed before it, {bytes} bytes, over the limit of {limit} bytes for one {group}")]
    GroupTooLarge {
        /// `data set`, `worker reply`.
        group: &'static str,
        /// The sizes of the files up to and including this one, added up.
        bytes: u64,
        /// The limit for the group.
        limit: u64,
    },
    /// Not a protobuf message of the expected type.
    #[error("malformed protobuf: {0}")]
    Protobuf(#[from] prost::DecodeError),
    /// A protobuf that does not decode to a tensor.
    #[error("tensor {name:?}: {problem}")]
    Tensor {
        /// The TensorProto's name.
        name: String,
        /// Why it does not decode (boxed: it is large, and rare).
        #[source]
        problem: Box<TensorError>,
    },
}

impl FileProblem {
    /// This problem, of the file at `path`.
    pub fn at(self, path: &Path) -> FileError {
        FileError {
            path: path.to_owned(),
            problem: self,
        }
    }

    /// `self` writing the file at `path`.
    pub fn writing(self, path: &Path) -> FileError {
        match self {
            FileProblem::Io(e) => FileProblem::Write(e),
            other => other,
        }
        .at(path)
    }

    /// `problem`, of the tensor `proto` decodes to.
    pub(super) fn tensor(proto: &TensorProto, problem: TensorError) -> FileProblem {
        FileProblem::Tensor {
            name: proto.name.clone(),
            problem: Box::new(problem),
        }
    }
}
