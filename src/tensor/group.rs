//! Tensor files read as one group (a data set's inputs and outputs, a worker's reply), their
//! sizes added up and bounded together before any is read; each a `TensorProto` file or a raw
//! one (the worker protocol's layout).

use std::path::{Path, PathBuf};

use super::file::{framed, read_tensor_file};
use super::file_error::{FileError, FileProblem};
use super::raw_file::read_raw;
use super::{DataType, DecodeOptions, Tensor};

/// The most a group of tensor files read together (a data set's inputs and outputs, a worker's
/// reply) may take when each may take `max_tensor_bytes`: twice that, an input and an output
/// at the limit.
pub(crate) fn group_limit(max_tensor_bytes: u64) -> u64 {
    max_tensor_bytes.saturating_mul(2)
}

/// A tensor file of a group: a serialized `TensorProto`, or a raw file (the worker protocol's
/// layout) with the element type and shape declared beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TensorFile {
    /// A `TensorProto` file.
    Proto(PathBuf),
    /// A raw file.
    Raw {
        /// The file.
        path: PathBuf,
        /// Its declared element type.
        data_type: DataType,
        /// Its declared shape.
        shape: Vec<u64>,
    },
}

impl TensorFile {
    /// The file.
    pub(crate) fn path(&self) -> &Path {
        match self {
            TensorFile::Proto(path) | TensorFile::Raw { path, .. } => path,
        }
    }
}

/// Reads and decodes `paths` as one group that may take `limit` bytes in all: their sizes
/// on disk are added up and refused over the limit before any is read (a file listed twice
/// counts twice), and each file's tensor, external data included, may take only what the
/// files before it left.
pub(crate) fn read_tensor_group(
    paths: &[PathBuf],
    options: &DecodeOptions,
    limit: u64,
    group: &'static str,
) -> Result<Vec<Tensor>, FileError> {
    let files: Vec<_> = paths.iter().cloned().map(TensorFile::Proto).collect();
    read_file_group(&files, options, limit, group)
}

/// [`read_tensor_group`] of files each a `TensorProto` or raw.
pub(crate) fn read_file_group(
    files: &[TensorFile],
    options: &DecodeOptions,
    limit: u64,
    group: &'static str,
) -> Result<Vec<Tensor>, FileError> {
    let allowed = framed(limit);
    let mut bytes = 0u64;
    for file in files {
        let path = file.path();
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
    files
        .iter()
        .map(|file| {
            let max_bytes = options.max_bytes.min(left);
            let tensor = match file {
                TensorFile::Proto(path) => read_tensor_file(
                    path,
                    &DecodeOptions {
                        max_bytes,
                        ..options.clone()
                    },
                )?,
                TensorFile::Raw { path, data_type, shape } => read_raw(path, *data_type, shape, max_bytes)?,
            };
            let taken = (tensor.len() as u64).saturating_mul(tensor.max_element_bytes() as u64);
            left = left.saturating_sub(taken);
            Ok(tensor)
        })
        .collect()
}
