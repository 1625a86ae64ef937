//! The vendored case that hostile inputs and misbehaving workers run beside.

use std::path::{Path, PathBuf};

use super::files::copy_dir;

/// The good case's name: onnx 1.22.0's test_edge_pad.
pub const GOOD: &str = "test_edge_pad";

pub fn good_case_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("onnx-testdata/onnx-1.22.0/node")
        .join(GOOD)
}

/// Copies the good case into `root/name`.
pub fn copy_good(root: &Path, name: impl AsRef<std::ffi::OsStr>) -> PathBuf {
    let to = root.join(name.as_ref());
    copy_dir(&good_case_dir(), &to);
    to
}
