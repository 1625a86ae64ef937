//! The data layer: where the cases are (roots), which corpus they belong to (version,
//! changelog, manifests), which part of them a shard takes, what their expected results rest on (basis), and the small file
//! helpers the layers above share.

// For the tool's report files.
#[doc(hidden)]
pub mod atomic_file;
pub mod basis;
pub mod corpus;
#[doc(hidden)]
pub mod json_file;
pub mod manifest;
mod roots;
pub(crate) mod scratch;
pub mod shard;
// Size-capped reads of side files, for the tool too.
#[doc(hidden)]
pub mod side_file;

pub use json_file::JsonFileError;
// Scratch directories where the runner makes its own: for the tests' too.
#[doc(hidden)]
pub use scratch::scratch_dir;

pub use roots::{DataRoot, data_dir, default_root};
pub(crate) use roots::{corpus_name, corpus_versions};
