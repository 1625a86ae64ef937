//! Reading a JSON file (a baseline, a generated case's case.json) into a value, with errors
//! that name the file.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::data::duplicate_keys::first_duplicate_key;
use crate::data::side_file::{excerpt_lines, read_text_capped};

/// A JSON file that cannot be read into the expected value.
#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    /// The file cannot be read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not JSON, or not of the expected shape. The message quotes at most a short excerpt of
    /// what was read.
    #[error("reading {}: {}", crate::text::shown_path(path), excerpt_lines(&source.to_string(), 300, 4))]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and why (line and column).
        #[source]
        source: serde_json::Error,
    },
    /// An object names a key twice: JSON readers keep one of the two values and drop the
    /// other silently, so it is refused.
    #[error(
        "reading {}: {:?} is named twice in one object (lines {first_line} and {second_line}); keep one",
        crate::text::shown_path(path),
        crate::data::side_file::excerpt(key, 100)
    )]
    DuplicateKey {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// Where it is named first (1-based).
        first_line: usize,
        /// Where it is named again.
        second_line: usize,
    },
    /// A format newer than this version reads.
    #[error(
        "reading {}: format {format} is newer than this pad-conformance reads ({supported}); upgrade it",
        crate::text::shown_path(path)
    )]
    Format {
        /// The file.
        path: PathBuf,
        /// The format it states.
        format: u32,
        /// The newest this version reads.
        supported: u32,
    },
}

/// Reads `path` as JSON into a `T`: a regular file of at most `limit` bytes
/// ([`crate::data::side_file`]).
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path, limit: u64) -> Result<T, JsonFileError> {
    let text = read_text_capped(path, limit).map_err(|source| JsonFileError::Read {
        path: path.to_owned(),
        source,
    })?;
    if let Some(duplicate) = first_duplicate_key(&text) {
        return Err(JsonFileError::DuplicateKey {
            path: path.to_owned(),
            key: duplicate.key,
            first_line: duplicate.first_line,
            second_line: duplicate.second_line,
        });
    }
    serde_json::from_str(&text).map_err(|source| JsonFileError::Parse {
        path: path.to_owned(),
        source,
    })
}
