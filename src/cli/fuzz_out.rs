//! `fuzz --out DIR`: checked before the run, and cleared of an earlier run's findings (only
//! those) before this run's are written, so that no stale file mixes into a reproducer.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz::reproducer::is_data_set_file;

use super::Fatal;

/// A directory the findings can be written to.
pub(super) struct FindingsDir {
    path: PathBuf,
    /// The reproducers an earlier run left there.
    earlier: Vec<PathBuf>,
}

impl FindingsDir {
    /// Makes `path` if it is missing and checks that a file can be made in it. One that
    /// holds anything but reproducers (`test_fuzz_*_pad` directories of the files `fuzz`
    /// writes) is refused: clearing it would delete what this tool did not write.
    pub(super) fn prepare(path: &Path) -> Result<FindingsDir, Fatal> {
        let problem = |what: String| Fatal(format!("--out {}: {what}", path.display()));
        fs::create_dir_all(path).map_err(|e| problem(format!("cannot make the directory ({e})")))?;
        if !fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(problem("not a directory".into()));
        }
        tempfile::NamedTempFile::new_in(path).map_err(|e| problem(format!("cannot write there ({e})")))?;
        let mut earlier = Vec::new();
        let entries = fs::read_dir(path).map_err(|e| problem(format!("cannot read it ({e})")))?;
        for entry in entries {
            let entry = entry.map_err(|e| problem(format!("cannot read it ({e})")))?;
            if !is_reproducer(&entry.path()) {
                return Err(problem(format!(
                    "holds {:?}, which is no finding of `fuzz`; give a new or empty directory, or one of earlier findings",
                    entry.file_name()
                )));
            }
            earlier.push(entry.path());
        }
        Ok(FindingsDir {
            path: path.to_owned(),
            earlier,
        })
    }

    /// Removes the earlier run's reproducers; returns the directory to write into.
    pub(super) fn clear_earlier(&self) -> Result<&Path, Fatal> {
        for dir in &self.earlier {
            fs::remove_dir_all(dir)
                .map_err(|e| Fatal(format!("removing the earlier finding {}: {e}", dir.display())))?;
        }
        Ok(&self.path)
    }
}

/// Whether `dir` is a reproducer as `fuzz` writes one: a real directory `test_fuzz_*_pad`
/// holding model.onnx, case.json, description.txt and test_data_set_0 with input_K.pb,
/// output_K.pb or expected_error.txt — regular files, nothing else.
fn is_reproducer(dir: &Path) -> bool {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.starts_with("test_fuzz_")
        && name.ends_with("_pad")
        && only(dir, |name, kind| match name {
            "model.onnx" | "case.json" | "description.txt" => kind.is_file(),
            "test_data_set_0" => {
                kind.is_dir() && only(&dir.join(name), |name, kind| kind.is_file() && is_data_set_file(name))
            }
            _ => false,
        })
}

/// Whether `dir` is a real directory whose every entry passes `allowed` (its name and type,
/// links not followed).
fn only(dir: &Path, allowed: impl Fn(&str, fs::FileType) -> bool) -> bool {
    if !fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return false;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.into_iter().all(|entry| {
        entry.is_ok_and(|e| {
            e.file_type()
                .is_ok_and(|kind| allowed(&e.file_name().to_string_lossy(), kind))
        })
    })
}
