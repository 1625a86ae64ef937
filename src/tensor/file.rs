//! Tensor files (input_K.pb, output_K.pb): reading, bounded before anything is allocated, and
//! writing. Errors name the file.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use prost::Message;

use super::{DecodeOptions, Tensor, TensorError, decode_tensor, encode_tensor};
use crate::proto::TensorProto;

/// A file that could not be read or written: the path, and what went wrong.
#[derive(Debug, thiserror::Error)]
#[error("reading {}: {problem}", path.display())]
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
}

/// Reads and decodes a serialized `TensorProto` file (input_K.pb, output_K.pb).
pub fn read_tensor_file(path: &Path, options: &DecodeOptions) -> Result<Tensor, FileError> {
    let bytes = read_limited(path, options.max_bytes)?;
    let proto = TensorProto::decode(Bytes::from(bytes)).map_err(|e| FileProblem::from(e).at(path))?;
    decode_tensor(&proto, options).map_err(|problem| {
        FileProblem::Tensor {
            name: proto.name.clone(),
            problem: Box::new(problem),
        }
        .at(path)
    })
}

/// The most a group of tensor files read together (a data set's inputs and outputs, a worker's
/// reply) may take when each may take `max_tensor_bytes`: twice that, an input and an output
/// at the limit.
pub fn group_limit(max_tensor_bytes: u64) -> u64 {
    max_tensor_bytes.saturating_mul(2)
}

/// Reads and decodes `paths` as one group that may take `limit` bytes in all: their sizes
/// on disk are added up and refused over the limit before any is read (a file listed twice
/// counts twice), and each file's tensor, external data included, may take only what the
/// files before it left.
pub fn read_tensor_group(
    paths: &[PathBuf],
    options: &DecodeOptions,
    limit: u64,
    group: &'static str,
) -> Result<Vec<Tensor>, FileError> {
    let allowed = limit.saturating_add(1 << 20);
    let mut bytes = 0u64;
    for path in paths {
        // A file that cannot be stat'ed is reported when it is read, with its own reason.
        bytes = bytes.saturating_add(std::fs::metadata(path).map_or(0, |m| m.len()));
        if bytes > allowed {
            return Err(FileProblem::GroupTooLarge {
                group,
                bytes,
                limit: allowed,
            }
            .at(path));
        }
    }
    let mut left = limit;
    paths
        .iter()
        .map(|path| {
            let options = DecodeOptions {
                max_bytes: options.max_bytes.min(left),
                ..options.clone()
            };
            let tensor = read_tensor_file(path, &options)?;
            let taken = (tensor.len() as u64).saturating_mul(tensor.max_element_bytes() as u64);
            left = left.saturating_sub(taken);
            Ok(tensor)
        })
        .collect()
}

/// Reads a whole regular file, refusing one larger than `limit` (plus 1 MiB of protobuf
/// framing) before reading.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let io = |source: std::io::Error| FileProblem::Io(source).at(path);
    // Opening a FIFO would block until something writes to it, and a device never ends:
    // only regular files are read.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(FileProblem::NotAFile.at(path));
    }
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    // Framing: dims, names and tags come on top of the element bytes.
    let allowed = limit.saturating_add(1 << 20);
    if len > allowed {
        return Err(FileProblem::TooLarge {
            bytes: len,
            limit: allowed,
        }
        .at(path));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    crate::huge_pages::advise_capacity(&bytes);
    // A file that grows while it is read stops at the limit, not at the end of memory.
    file.take(allowed).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// Writes `tensor` as a serialized `TensorProto` file.
pub fn write_tensor_file(path: &Path, tensor: &Tensor, name: &str) -> Result<(), FileError> {
    std::fs::write(path, encode_tensor(tensor, name).encode_to_vec()).map_err(|e| FileProblem::Io(e).at(path))
}
