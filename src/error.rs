//! The library's errors. Each variant carries what a person needs to find the problem: the
//! file, the field or node, and the offending value.

use std::path::PathBuf;

use crate::tensor::TensorError;

/// An error of loading, decoding or discovering test cases.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("reading {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("reading {path}: not a regular file")]
    NotAFile { path: PathBuf },
    #[error("reading {path}: file of {bytes} bytes is over the limit of {limit} bytes")]
    FileTooLarge { path: PathBuf, bytes: u64, limit: u64 },
    #[error("reading {path}: malformed protobuf: {source}")]
    Protobuf { path: PathBuf, source: prost::DecodeError },
    #[error("reading {path}: tensor {name:?}: {problem}")]
    Tensor {
        path: PathBuf,
        name: String,
        problem: TensorError,
    },
    #[error("reading {path}: {message}")]
    Model { path: PathBuf, message: String },
    #[error("walking {path}: {message}")]
    Walk { path: PathBuf, message: String },
    #[error("invalid pattern {pattern:?}: {message}")]
    Pattern { pattern: String, message: String },
    #[error("no test cases found under {}", roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", "))]
    NoCases { roots: Vec<PathBuf> },
}
