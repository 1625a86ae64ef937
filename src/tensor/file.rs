//! Tensor files (input_K.pb, output_K.pb): reading, bounded before anything is allocated, and
//! writing. Errors name the file.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

use bytes::Bytes;
use prost::Message;

use super::file_error::{FileError, FileProblem};
use super::raw_read::read_direct;
use super::{DecodeOptions, Tensor, decode_tensor, encode_tensor};
use crate::proto::TensorProto;

/// Reads and decodes a serialized `TensorProto` file (input_K.pb, output_K.pb).
pub fn read_tensor_file(path: &Path, options: &DecodeOptions) -> Result<Tensor, FileError> {
    read_tensor_file_by(path, options).map(|(tensor, _)| tensor)
}

/// How a tensor file was read; tests check the direct path is taken where it should be.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ReadPath {
    /// raw_data read from the file straight into the tensor's buffer.
    Direct,
    /// The whole file read into memory, then decoded.
    Whole,
}

/// [`read_tensor_file`], saying how the file was read.
pub(crate) fn read_tensor_file_by(path: &Path, options: &DecodeOptions) -> Result<(Tensor, ReadPath), FileError> {
    let (mut file, len) = open_limited(path, options.max_bytes)?;
    if let Some(tensor) = read_direct(&mut file, len, options).map_err(|problem| problem.at(path))? {
        return Ok((tensor, ReadPath::Direct));
    }
    // The whole-file path judges what the direct one left, with its precise errors.
    let io = |source: std::io::Error| FileProblem::Io(source).at(path);
    file.rewind().map_err(io)?;
    let bytes = read_open(file, len, options.max_bytes).map_err(io)?;
    let proto = TensorProto::decode(Bytes::from(bytes)).map_err(|e| FileProblem::from(e).at(path))?;
    let tensor = decode_tensor(&proto, options).map_err(|problem| FileProblem::tensor(&proto, problem).at(path))?;
    Ok((tensor, ReadPath::Whole))
}

/// Reads a whole regular file, refusing one larger than `limit` (plus 1 MiB of protobuf
/// framing) before reading.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_limited(path, limit)?;
    read_open(file, len, limit).map_err(|source| FileProblem::Io(source).at(path))
}

/// Reads a whole regular file of a few fields (a JSON descriptor, error.json,
/// expected_error.txt), refusing one larger than `limit` bytes exactly: such a file has no
/// protobuf framing to make room for.
pub(crate) fn read_small_file(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_at_most(path, limit)?;
    read_at_most(file, len, limit).map_err(|source| FileProblem::Io(source).at(path))
}

/// Opens a regular file and returns it with its size, refused over `limit` (plus 1 MiB of
/// protobuf framing) before anything is read.
pub(super) fn open_limited(path: &Path, limit: u64) -> Result<(File, u64), FileError> {
    open_at_most(path, framed(limit))
}

/// Opens a regular file and returns it with its size, refused over `allowed` bytes before
/// anything is read.
fn open_at_most(path: &Path, allowed: u64) -> Result<(File, u64), FileError> {
    let io = |source: std::io::Error| FileProblem::Io(source).at(path);
    // Opening a FIFO would block until something writes to it, and a device never ends:
    // only regular files are read.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(FileProblem::NotAFile.at(path));
    }
    // Non-blocking, and checked again once open: a file swapped for a FIFO in between cannot
    // block the open either.
    let file = crate::platform::open_for_reading(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(FileProblem::NotAFile.at(path));
    }
    let len = metadata.len();
    if len > allowed {
        return Err(FileProblem::TooLarge {
            bytes: len,
            limit: allowed,
        }
        .at(path));
    }
    Ok((file, len))
}

/// Reads a file [`open_limited`] opened, from where it stands to its end; `len`, its size when
/// opened, sizes the buffer.
fn read_open(file: File, len: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    read_at_most(file, len, framed(limit))
}

fn read_at_most(file: File, len: u64, allowed: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(len as usize);
    crate::tensor::huge_pages::advise_capacity(&bytes);
    // A file that grows while it is read stops at the limit, not at the end of memory.
    file.take(allowed).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `limit` bytes of element data with room for the framing: dims, names and tags come on top.
pub(super) fn framed(limit: u64) -> u64 {
    limit.saturating_add(1 << 20)
}

/// Writes `tensor` as a serialized `TensorProto` file.
pub fn write_tensor_file(path: &Path, tensor: &Tensor, name: &str) -> Result<(), FileError> {
    std::fs::write(path, encode_tensor(tensor, name).encode_to_vec()).map_err(|e| FileProblem::Io(e).writing(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tensor_written_and_read_back_is_the_same_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("input_0.pb");
        let x = Tensor::from_vec(&[3], vec![1.5f32, -0.0, f32::NAN]).unwrap();
        write_tensor_file(&path, &x, "x").unwrap();
        let read = read_tensor_file(&path, &DecodeOptions::default()).unwrap();
        assert_eq!(read.raw_bytes().unwrap(), x.raw_bytes().unwrap());
    }
}
