//! `fuzz --out DIR`: checked before the run; this run's findings are written whole into a
//! staging directory beside it, and only then replace an earlier run's findings (only those),
//! so that no stale file mixes into a reproducer and a failed write (a full disk) loses none.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz::reproducer::is_data_set_file;

use crate::cli::fatal::Fatal;
use crate::text::shown_path;

/// A directory the findings can be written to.
pub(super) struct FindingsDir {
    path: PathBuf,
    /// The reproducers an earlier run left there.
    earlier: Vec<PathBuf>,
    /// Where this run's are written before they move in: beside `path`, on its file system.
    staging: tempfile::TempDir,
}

impl FindingsDir {
    /// Makes `path` if it is missing and checks that a file can be made in it. One that
    /// holds anything but reproducers (`test_fuzz_*_pad` directories of the files `fuzz`
    /// writes) is refused: clearing it would delete what this tool did not write.
    pub(super) fn prepare(path: &Path) -> Result<FindingsDir, Fatal> {
        let problem = |what: String| Fatal(format!("--out {}: {what}", shown_path(path)));
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
        let beside = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let staging = tempfile::Builder::new()
            .prefix(".pad-conformance-findings-")
            .tempdir_in(beside)
            .map_err(|e| problem(format!("cannot make a staging directory beside it ({e})")))?;
        Ok(FindingsDir {
            path: path.to_owned(),
            earlier,
            staging,
        })
    }

    /// Writes `findings` (each by `write`, into the directory it is given) into the staging
    /// directory; when every one is written, removes the earlier run's reproducers and moves
    /// the new ones in. Returns where they are.
    pub(super) fn publish<T>(
        self,
        findings: impl IntoIterator<Item = T>,
        mut write: impl FnMut(T, &Path) -> Result<PathBuf, Fatal>,
    ) -> Result<Vec<PathBuf>, Fatal> {
        let staged = findings
            .into_iter()
            .map(|finding| write(finding, self.staging.path()))
            .collect::<Result<Vec<_>, Fatal>>()?;
        for dir in &self.earlier {
            fs::remove_dir_all(dir)
                .map_err(|e| Fatal(format!("removing the earlier finding {}: {e}", shown_path(dir))))?;
        }
        let mut published = Vec::with_capacity(staged.len());
        for dir in staged {
            let target = self.path.join(dir.file_name().unwrap_or_default());
            fs::rename(&dir, &target).map_err(|e| Fatal(format!("writing {}: {e}", shown_path(&target))))?;
            published.push(target);
        }
        Ok(published)
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

#[cfg(test)]
mod publish_tests {
    use super::*;

    fn reproducer(dir: &Path, name: &str) -> PathBuf {
        let case = dir.join(name);
        fs::create_dir_all(case.join("test_data_set_0")).unwrap();
        for file in [
            "model.onnx",
            "case.json",
            "description.txt",
            "test_data_set_0/input_0.pb",
        ] {
            fs::write(case.join(file), name).unwrap();
        }
        case
    }

    #[test]
    fn a_failed_write_keeps_the_earlier_findings_and_a_whole_one_replaces_them() {
        let dir = crate::data::scratch_dir().unwrap();
        let out = dir.path().join("findings");
        let old = reproducer(&out, "test_fuzz_old_pad");
        let write = |fail_at: usize| {
            move |(i, name): (usize, &str), staging: &Path| {
                if i == fail_at {
                    return Err(Fatal(format!("writing {name}: no space left on device")));
                }
                Ok(reproducer(staging, name))
            }
        };
        let names = ["test_fuzz_a_pad", "test_fuzz_b_pad"];
        let error = FindingsDir::prepare(&out)
            .ok()
            .unwrap()
            .publish(names.into_iter().enumerate(), write(1))
            .err()
            .unwrap();
        assert!(error.0.starts_with("writing test_fuzz_b_pad"), "{}", error.0);
        // The earlier finding is whole; nothing of the new ones got in, no staging is left.
        assert_eq!(
            fs::read_to_string(old.join("description.txt")).unwrap(),
            "test_fuzz_old_pad"
        );
        assert_eq!(fs::read_dir(&out).unwrap().count(), 1);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        let written = FindingsDir::prepare(&out)
            .ok()
            .unwrap()
            .publish(names.into_iter().enumerate(), write(usize::MAX))
            .ok()
            .unwrap();
        assert_eq!(written, [out.join(names[0]), out.join(names[1])]);
        assert!(!old.exists() && written.iter().all(|d| d.join("model.onnx").is_file()));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_that_cannot_be_written_says_writing() {
        use crate::tensor::FileProblem;
        let full = || std::io::Error::from(std::io::ErrorKind::StorageFull);
        let error = FileProblem::Io(full()).writing(Path::new("out/model.onnx")).to_string();
        assert!(error.starts_with("writing out/model.onnx: "), "{error}");
        let error = FileProblem::Io(full()).at(Path::new("in/model.onnx")).to_string();
        assert!(error.starts_with("reading in/model.onnx: "), "{error}");
    }
}
