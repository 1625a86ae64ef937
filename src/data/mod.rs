//! The data layer: where the cases are (roots), which corpus they belong to (version,
//! changelog, manifests), which part of them a shard takes, what their expected results rest on (basis), and the small file
//! helpers the layers above share.

// For the tool's report files.
pub(crate) mod atomic_file;
pub(crate) mod basis;
pub(crate) mod bundled;
pub(crate) mod bundled_content;
pub(crate) mod content_key;
pub(crate) mod corpus;
pub(crate) mod corpus_error;
pub(crate) mod digest;
pub(crate) mod duplicate_keys;
pub(crate) mod json_file;
pub(crate) mod manifest;
pub(crate) mod output_paths;
pub(crate) mod parse_error;
mod roots;
pub(crate) mod scratch;
pub(crate) mod seconds;
pub(crate) mod shard;
// Size-capped reads of side files, for the tool too.
pub(crate) mod side_file;
pub(crate) mod toml_duplicate_keys;

// Scratch directories where the runner makes its own: for the tests' too.
pub use scratch::scratch_dir;

pub(crate) use roots::default_root;
pub use roots::{DataRoot, data_dir};
pub(crate) use roots::{corpus_name, corpus_versions};
