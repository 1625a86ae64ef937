//! The data layer: where the cases are (roots), which corpus they belong to (version,
//! changelog, manifests), what their expected results rest on (basis), and the small file
//! helpers the layers above share.

pub mod atomic_file;
pub mod basis;
pub mod corpus;
pub mod json_file;
pub mod manifest;
mod roots;

pub use roots::{DATA_ENV, DataRoot, corpus_name, corpus_versions, data_dir, default_root};
