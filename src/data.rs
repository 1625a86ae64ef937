//! Where the test data is: this crate's own `onnx-testdata/`, located from the crate's
//! manifest directory when it was built, so that a downstream crate depending on it by path or
//! by git, and the installed binary, find the cases without being told a path.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable that overrides [`data_dir`]: a directory of cases to use instead
/// of the bundled ones.
pub const DATA_ENV: &str = "PAD_CONFORMANCE_DATA";

/// The bundled cases: `$PAD_CONFORMANCE_DATA` when set (and not empty), else this crate's
/// `onnx-testdata/` as it was when the crate was built — for a git dependency, the checkout
/// under cargo's home, which outlives the build.
///
/// ```
/// let dir = pad_conformance::data_dir();
/// # if std::env::var_os("PAD_CONFORMANCE_DATA").is_none() {
/// assert!(dir.join("MANIFEST.tsv").is_file());
/// # }
/// ```
pub fn data_dir() -> PathBuf {
    data_dir_from(std::env::var_os(DATA_ENV))
}

fn data_dir_from(env: Option<OsString>) -> PathBuf {
    match env {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata"),
    }
}

/// The command line's default root: `$PAD_CONFORMANCE_DATA` when set, else `./onnx-testdata`
/// when the current directory has one (a checkout of this repository, or a project keeping
/// its own copy), else the bundled data.
pub fn default_root() -> PathBuf {
    let env = std::env::var_os(DATA_ENV).filter(|dir| !dir.is_empty());
    let local = Path::new("onnx-testdata");
    if env.is_none() && local.is_dir() {
        return local.to_owned();
    }
    data_dir_from(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_data_is_this_crates_and_the_environment_overrides_it() {
        let bundled = data_dir_from(None);
        assert_eq!(bundled, Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata"));
        assert!(bundled.join("onnx-1.22.0/node/test_wrap_pad/model.onnx").is_file());
        assert_eq!(data_dir_from(Some("".into())), bundled);
        assert_eq!(data_dir_from(Some("/elsewhere".into())), Path::new("/elsewhere"));
    }
}
