//! The Python the ignored tests run scripts with. `cargo test` needs no Python: those tests
//! are ignored there, and .ci/run installs the pinned packages and names the interpreter in
//! PAD_CONFORMANCE_PYTHON before running them, each as a step of its own.

use std::path::PathBuf;

/// The interpreter PAD_CONFORMANCE_PYTHON names; a test run without it fails saying so.
pub fn python() -> PathBuf {
    std::env::var_os("PAD_CONFORMANCE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "PAD_CONFORMANCE_PYTHON is not set: these ignored tests need a Python with the pinned \
             packages (.ci/run installs them and sets it)"
            )
        })
}
