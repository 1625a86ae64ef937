//! A profile that cannot be used: a file that cannot be read or is not a profile, or a profile
//! built in code that would leave every data set unsupported.

use std::path::PathBuf;

use crate::data::parse_error::ParseError;
use crate::data::side_file::excerpt_lines;
use crate::tensor::DataType;

/// A profile file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// The file cannot be read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not TOML of a profile's shape. The message quotes at most a short excerpt of the
    /// line at fault.
    #[error("reading {}: {}", crate::text::shown_path(path), excerpt_lines(&source.to_string(), 160, 12))]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and why.
        #[source]
        source: ParseError,
    },
    /// A key defined twice: the toml crate refuses it pointing at the second definition only,
    /// so the refusal names the key and both lines.
    #[error(
        "reading {}: {key} is defined twice (lines {first_line} and {second_line}); keep one",
        crate::text::shown_path(path)
    )]
    DuplicateKey {
        /// The file.
        path: PathBuf,
        /// The key, as a field is named (`except[1].modes`).
        key: String,
        /// Where it is defined first (1-based).
        first_line: usize,
        /// Where it is defined again.
        second_line: usize,
    },
    /// A file that sets nothing: most likely the wrong file, and "everything" is what leaving
    /// `--profile` out already means.
    #[error(
        "{}: the profile sets nothing (no key); leave it out to run every data set",
        crate::text::shown_path(path)
    )]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A list that is empty: every data set would be unsupported.
    #[error(
        "{}: {field} = [] would leave every data set unsupported; leave the key out to mean all",
        crate::text::shown_path(path)
    )]
    EmptyList {
        /// The file.
        path: PathBuf,
        /// `operators`, `dtypes`, `ranks` or `modes`.
        field: &'static str,
    },
    /// A key whose value excludes every data set it applies to: an `[[except]]` with no
    /// operators, dtypes or modes, an input's `ranks = []`, or its `min` above its `max`.
    #[error(
        "{}: {field} = {value} would leave every data set unsupported",
        crate::text::shown_path(path)
    )]
    ExcludesEverything {
        /// The file.
        path: PathBuf,
        /// The key (`except[0]`, `inputs.pads.ranks`).
        field: String,
        /// Its value as the file states it.
        value: String,
    },
    /// A name that is no operator version, element type or mode.
    #[error("{}: {field}: unknown {what} {value:?}", crate::text::shown_path(path))]
    Unknown {
        /// The file.
        path: PathBuf,
        /// The field (`dtypes`, `except[2].modes`).
        field: String,
        /// `operator`, `element type` or `mode`.
        what: &'static str,
        /// The name.
        value: String,
    },
    /// A profile built in code whose setting leaves every data set unsupported (a gate that
    /// would pass by running nothing): `without_dtypes` of every type, `operators([])`, …
    #[error("the profile handed to the harness sets {field} = {value}, which would leave every data set unsupported")]
    BuiltExcludesEverything {
        /// What was set: `operators`, `dtypes`, `modes`, `inputs.pads.ranks`, `inputs.pads`.
        field: String,
        /// What it was set to.
        value: String,
    },
    /// A `[storage]` line that declares no narrowing the runner judges: a key that is no
    /// element type with a narrower one (`int32`), or a value that is no narrower type of
    /// the key's kind (`int64 = "float"`).
    #[error("{}:{line}: storage.{key} = {value:?}: {why}", crate::text::shown_path(path))]
    Narrowing {
        /// The file.
        path: PathBuf,
        /// The line of the key (1-based).
        line: usize,
        /// The key as written.
        key: String,
        /// The value as written.
        value: String,
        /// Which narrowings there are.
        why: String,
    },
    /// A narrowing built in code that the runner does not judge (`storage(Int64, Float)`).
    #[error("the profile handed to the harness keeps {wide} as {narrow}: {why}")]
    BuiltNarrowing {
        /// The element type narrowed.
        wide: DataType,
        /// The type it is kept in.
        narrow: DataType,
        /// Which narrowings there are.
        why: String,
    },
    /// A value of the right type but not of a profile's shape.
    #[error("{}: {field}: {source}", crate::text::shown_path(path))]
    Field {
        /// The file.
        path: PathBuf,
        /// The field (`inputs.pads`).
        field: String,
        /// Why.
        #[source]
        source: ParseError,
    },
}
