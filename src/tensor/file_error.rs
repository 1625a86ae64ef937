//! What goes wrong reading or writing a tensor file, named by path: the errors of file.rs and
//! raw_read.rs, apart so that neither needs the other for them.

use std::path::{Path, PathBuf};

use super::impossible_value::{ImpossibleValue, Stored};
use super::{DataType, TensorError};
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
    /// A raw tensor file (the worker protocol's raw layout) whose size is not what its
    /// declared element type and shape call for; checked before it is read.
    #[error("raw {tensor}: file of {bytes} bytes, but the element type and shape call for {expected} bytes")]
    RawSize {
        /// The declared element type and shape, `float32[3, 2]`.
        tensor: String,
        /// The file's size.
        bytes: u64,
        /// The size the element type and shape call for.
        expected: u64,
    },
    /// A raw tensor file declared with a shape that calls for more than the limit allows (or
    /// more elements than can be counted); checked before it is opened.
    #[error("raw {tensor}: the element type and shape call for {expected} bytes, over the limit of {limit} bytes")]
    RawTooLarge {
        /// The declared element type and shape.
        tensor: String,
        /// The size they call for, as a decimal, or `more than 2^64`.
        expected: String,
        /// The largest size allowed.
        limit: u64,
    },
    /// A string of a raw tensor file that the file cannot hold: its length runs past the end
    /// of the file, or bytes are left after the last one.
    #[error("raw {tensor}: element {index}: {problem}")]
    RawElement {
        /// The declared element type and shape.
        tensor: String,
        /// The element's index, row-major.
        index: u64,
        /// What is wrong with it, naming the value.
        problem: String,
    },
    /// An element of a raw tensor file whose byte its type cannot have: an int4 byte of 9, a
    /// bool of 2. The file is well formed; the value in it is impossible.
    #[error("raw {tensor}: {value}")]
    RawValue {
        /// The declared element type and shape.
        tensor: String,
        /// The element and its byte (boxed: it is large, and rare).
        value: Box<ImpossibleValue>,
    },
    /// Not a protobuf message of the expected type.
    #[error("malformed protobuf: {0}")]
    Protobuf(#[from] prost::DecodeError),
    /// A protobuf that does not decode to a tensor.
    #[error("tensor {name:?}: {problem}")]
    Tensor {
        /// The TensorProto's name.
        name: String,
        /// Its dims.
        dims: Vec<i64>,
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
            dims: proto.dims.clone(),
            problem: Box::new(problem),
        }
    }
}

impl FileError {
    /// The element whose stored value its type cannot have, when that is what is wrong with a
    /// file otherwise well formed: a raw file's bool or sub-byte element out of its type, a
    /// TensorProto's bool other than 0 or 1. `None` for a malformed file.
    pub(crate) fn impossible_value(&self) -> Option<ImpossibleValue> {
        match &self.problem {
            FileProblem::RawValue { value, .. } => Some((**value).clone()),
            FileProblem::Tensor { dims, problem, .. } => match **problem {
                // One value per element: the field's index is the element's.
                TensorError::ValueOutOfRange {
                    field,
                    index,
                    value,
                    data_type: DataType::Bool,
                } => Some(ImpossibleValue {
                    data_type: DataType::Bool,
                    shape: dims.iter().map(|&d| usize::try_from(d).unwrap_or_default()).collect(),
                    index,
                    stored: Stored::Field { field, value },
                }),
                _ => None,
            },
            _ => None,
        }
    }
}
