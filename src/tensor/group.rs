//! Tensor files read as one group (a data set's inputs and outputs, a worker's reply), their
//! sizes added up and bounded together before any is read; each a `TensorProto` file or a raw
//! one (the worker protocol's layout).

use std::path::{Path, PathBuf};

use super::file::{framed, read_tensor_file};
use super::file_error::{FileError, FileProblem};
use super::{DataType, DecodeOptions, Tensor, read_raw};

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
    read_file_group(&files, options, limit, group).map_err(|e| e.error)
}

/// A file of a group that could not be read: its place in the group, and why.
#[derive(Debug)]
pub(crate) struct GroupError {
    /// The file's index in the group.
    pub(crate) file: usize,
    /// Why.
    pub(crate) error: FileError,
}

/// [`read_tensor_group`] of files each a `TensorProto` or raw. A file whose only fault is an
/// element its type cannot have ([`FileError::impossible_value`]) does not stop the reading:
/// any other file's error outranks it, so that which error a group gives does not hang on the
/// values in it.
pub(crate) fn read_file_group(
    files: &[TensorFile],
    options: &DecodeOptions,
    limit: u64,
    group: &'static str,
) -> Result<Vec<Tensor>, GroupError> {
    let allowed = framed(limit);
    let mut bytes = 0u64;
    for (index, file) in files.iter().enumerate() {
        let path = file.path();
        // A file that cannot be stat'ed is reported when it is read, with its own reason.
        bytes = bytes.saturating_add(std::fs::metadata(path).map_or(0, |m| m.len()));
        if bytes > allowed {
            return Err(GroupError {
                file: index,
                error: FileProblem::GroupTooLarge {
                    group,
                    bytes,
                    limit: allowed,
                }
                .at(path),
            });
        }
    }
    let mut left = limit;
    let mut tensors = Vec::with_capacity(files.len());
    let mut impossible = None;
    for (index, file) in files.iter().enumerate() {
        let max_bytes = options.max_bytes.min(left);
        let read = match file {
            TensorFile::Proto(path) => read_tensor_file(
                path,
                &DecodeOptions {
                    max_bytes,
                    ..options.clone()
                },
            ),
            TensorFile::Raw { path, data_type, shape } => read_raw(path, *data_type, shape, max_bytes),
        };
        match read {
            Ok(tensor) => {
                let taken = (tensor.len() as u64).saturating_mul(tensor.max_element_bytes() as u64);
                left = left.saturating_sub(taken);
                tensors.push(tensor);
            }
            Err(error) if error.impossible_value().is_some() => {
                impossible.get_or_insert(GroupError { file: index, error });
            }
            Err(error) => return Err(GroupError { file: index, error }),
        }
    }
    match impossible {
        Some(error) => Err(error),
        None => Ok(tensors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_value_is_reported_after_every_file_was_read_and_a_malformed_file_outranks_it() {
        let dir = tempfile::tempdir().unwrap();
        let raw = |name: &str, bytes: &[u8], data_type: DataType| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            TensorFile::Raw {
                path,
                data_type,
                shape: vec![2],
            }
        };
        let impossible = raw("bool.bin", &[0, 7], DataType::Bool);
        let good = raw("good.bin", &[1, 0], DataType::Bool);
        let short = raw("short.bin", &[0, 0, 0], DataType::Float);
        let read = |files: &[TensorFile]| read_file_group(files, &DecodeOptions::default(), 1 << 20, "test");
        let error = read(&[good.clone(), impossible.clone()]).unwrap_err();
        assert_eq!(error.file, 1);
        assert_eq!(
            error.error.impossible_value().map(|v| v.index),
            Some(1),
            "{}",
            error.error
        );
        // Whichever comes first, the malformed file is the group's error.
        for (files, malformed) in [([impossible.clone(), short.clone()], 1), ([short, impossible], 0)] {
            let error = read(&files).unwrap_err();
            assert_eq!(error.file, malformed, "{}", error.error);
            assert_eq!(error.error.impossible_value(), None, "{}", error.error);
        }
        assert_eq!(read(&[good]).unwrap().len(), 1);
    }
}
