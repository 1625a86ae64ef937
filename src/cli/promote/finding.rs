//! One finding of `fuzz --out`, read for promotion: a directory of someone else's making, so
//! everything is checked before a byte of it reaches the corpus — its name, every entry's name
//! and type (regular files only, no links), every size — and read whole into memory, so that
//! what is checked, run and copied is one set of bytes.

use std::fs;
use std::path::{Path, PathBuf};

use crate::case::info::CASE_INFO_FILE;
use crate::data::side_file::{read_capped, read_text_capped, special_kind};
use crate::fuzz::reproducer::is_data_set_file;
use sha2::{Digest, Sha256};

/// The longest finding name taken: a promoted name adds 9 bytes, and a file name has 255.
const MAX_NAME: usize = 200;
/// The largest file of a finding: `fuzz` writes cases of at most 16 Mi elements.
const MAX_FILE_BYTES: u64 = 256 << 20;
/// The most bytes one finding may hold, all files together.
const MAX_FINDING_BYTES: u64 = 512 << 20;
/// The most input and output files of its one data set.
const MAX_DATA_FILES: usize = 64;
/// The largest description.txt: one line naming the cause and the case.
const MAX_DESCRIPTION_BYTES: u64 = 64 << 10;
/// The data set a finding holds.
const DATA_SET: &str = "test_data_set_0";
/// The one-line description `fuzz --out` writes beside the case.
pub(super) const DESCRIPTION_FILE: &str = "description.txt";

/// A finding, read and checked.
#[derive(Debug)]
pub(super) struct Finding {
    /// Its directory's name: `test_fuzz_<slug>_pad`.
    pub name: String,
    /// The cause's slug in that name.
    pub slug: String,
    /// Its files, by path relative to its directory (`/`-separated), sorted.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Why a directory is no finding that can be promoted.
#[derive(Debug, thiserror::Error)]
pub(super) enum FindingError {
    /// Its name is not one `fuzz --out` gives.
    #[error(
        "{}: the name {name:?} is not a finding's: test_fuzz_<slug>_pad, of ASCII letters, digits, - and _, at most {MAX_NAME} bytes",
        crate::text::shown_path(dir)
    )]
    Name {
        /// The directory.
        dir: PathBuf,
        /// Its name.
        name: String,
    },
    /// A file it must hold is not there.
    #[error("{}: no {file}: a finding of `fuzz --out` holds one", crate::text::shown_path(dir))]
    Missing {
        /// The directory.
        dir: PathBuf,
        /// The file.
        file: &'static str,
    },
    /// An entry that is not as a finding holds it.
    #[error("{}: {problem}", crate::text::shown_path(path))]
    Entry {
        /// The entry.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

impl Finding {
    /// Reads the finding at `dir`.
    pub(super) fn read(dir: &Path) -> Result<Finding, FindingError> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let slug = name
            .strip_prefix("test_fuzz_")
            .and_then(|rest| rest.strip_suffix("_pad"))
            .filter(|slug| {
                !slug.is_empty()
                    && name.len() <= MAX_NAME
                    && slug
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
            .ok_or_else(|| FindingError::Name {
                dir: dir.to_owned(),
                name: name.clone(),
            })?
            .to_owned();
        let mut reader = Reader {
            files: Vec::new(),
            total: 0,
        };
        for (entry, kind) in entries(dir)? {
            let path = dir.join(&entry);
            match entry.as_str() {
                "model.onnx" | CASE_INFO_FILE if kind.is_file() => reader.read(&path, &entry, MAX_FILE_BYTES)?,
                DESCRIPTION_FILE if kind.is_file() => {
                    let text = read_text_capped(&path, MAX_DESCRIPTION_BYTES).map_err(|e| entry_error(&path, e))?;
                    if text.chars().any(|c| c.is_control() && c != '\n') {
                        return Err(FindingError::Entry {
                            path,
                            problem: "holds control characters; a description is plain text".into(),
                        });
                    }
                    reader.add(&path, entry, text.into_bytes())?;
                }
                DATA_SET if kind.is_dir() => {
                    let data: Vec<_> = entries(&path)?;
                    if data.len() > MAX_DATA_FILES + 1 {
                        return Err(FindingError::Entry {
                            path,
                            problem: format!(
                                "{} entries, over the {MAX_DATA_FILES} data files a finding holds",
                                data.len()
                            ),
                        });
                    }
                    for (file, kind) in data {
                        let path = path.join(&file);
                        if !(kind.is_file() && is_data_set_file(&file)) {
                            return Err(unexpected(path, kind));
                        }
                        reader.read(&path, &format!("{DATA_SET}/{file}"), MAX_FILE_BYTES)?;
                    }
                }
                _ => return Err(unexpected(path, kind)),
            }
        }
        for required in ["model.onnx", CASE_INFO_FILE] {
            if !reader.files.iter().any(|(name, _)| name == required) {
                return Err(FindingError::Missing {
                    dir: dir.to_owned(),
                    file: required,
                });
            }
        }
        if !reader.files.iter().any(|(name, _)| name.starts_with(DATA_SET)) {
            return Err(FindingError::Missing {
                dir: dir.to_owned(),
                file: "test_data_set_0/ with its files",
            });
        }
        reader.files.sort();
        Ok(Finding {
            name,
            slug,
            files: reader.files,
        })
    }

    /// The first 8 hex digits of a sha256 over the model and the data set (names and bytes):
    /// what makes two findings the same test, whatever their sidecars say.
    pub(super) fn content_digest(&self) -> String {
        let mut digest = Sha256::new();
        for (name, bytes) in self.test_files() {
            digest.update((name.len() as u64).to_le_bytes());
            digest.update(name.as_bytes());
            digest.update((bytes.len() as u64).to_le_bytes());
            digest.update(bytes);
        }
        digest.finalize()[..4].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The model and the data set's files: the test itself, without its sidecars.
    pub(super) fn test_files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files
            .iter()
            .filter(|(name, _)| name != CASE_INFO_FILE && name != DESCRIPTION_FILE)
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
    }
}

/// The files read so far, within the budget of one finding.
struct Reader {
    files: Vec<(String, Vec<u8>)>,
    total: u64,
}

impl Reader {
    fn read(&mut self, path: &Path, name: &str, limit: u64) -> Result<(), FindingError> {
        let bytes = read_capped(path, limit).map_err(|e| entry_error(path, e))?;
        self.add(path, name.to_owned(), bytes)
    }

    fn add(&mut self, path: &Path, name: String, bytes: Vec<u8>) -> Result<(), FindingError> {
        self.total += bytes.len() as u64;
        if self.total > MAX_FINDING_BYTES {
            return Err(FindingError::Entry {
                path: path.to_owned(),
                problem: format!(
                    "the finding's files reach {} bytes here, over the {MAX_FINDING_BYTES} one finding may hold",
                    self.total
                ),
            });
        }
        self.files.push((name, bytes));
        Ok(())
    }
}

/// The entries of the real directory `dir` (a link is refused), by name, sorted, with their
/// types (links not followed).
fn entries(dir: &Path) -> Result<Vec<(String, fs::FileType)>, FindingError> {
    let error = |e: std::io::Error| entry_error(dir, e);
    let metadata = fs::symlink_metadata(dir).map_err(error)?;
    if !metadata.is_dir() {
        return Err(unexpected(dir.to_owned(), metadata.file_type()));
    }
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(error)? {
        let entry = entry.map_err(error)?;
        let kind = entry.file_type().map_err(error)?;
        let Ok(name) = entry.file_name().into_string() else {
            return Err(FindingError::Entry {
                path: entry.path(),
                problem: "a name that is not UTF-8, which no finding of `fuzz` holds".into(),
            });
        };
        found.push((name, kind));
        if found.len() > MAX_DATA_FILES + 8 {
            return Err(FindingError::Entry {
                path: dir.to_owned(),
                problem: "more entries than any finding of `fuzz` holds".into(),
            });
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

fn entry_error(path: &Path, e: std::io::Error) -> FindingError {
    FindingError::Entry {
        path: path.to_owned(),
        problem: format!("cannot be read: {e}"),
    }
}

/// An entry no finding holds, or holds as another type.
fn unexpected(path: PathBuf, kind: fs::FileType) -> FindingError {
    let what = special_kind(kind).unwrap_or("file");
    FindingError::Entry {
        path,
        problem: format!(
            "a {what} that no finding of `fuzz --out` holds (model.onnx, case.json, description.txt, test_data_set_0/ with input_K.pb, output_K.pb or expected_error.txt, regular files only)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(root: &Path, name: &str) -> PathBuf {
        let dir = root.join(name);
        fs::create_dir_all(dir.join(DATA_SET)).unwrap();
        for (file, bytes) in [
            ("model.onnx", &b"model"[..]),
            ("case.json", b"{}"),
            ("test_data_set_0/input_0.pb", b"in"),
            ("test_data_set_0/output_0.pb", b"out"),
        ] {
            fs::write(dir.join(file), bytes).unwrap();
        }
        dir
    }

    #[test]
    fn a_finding_is_read_whole_and_named_by_its_content() {
        let root = crate::data::scratch_dir().unwrap();
        let dir = finding(root.path(), "test_fuzz_wrong-values_edge-padding_other-values_pad");
        let read = Finding::read(&dir).unwrap();
        assert_eq!(read.slug, "wrong-values_edge-padding_other-values");
        let names: Vec<&str> = read.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "case.json",
                "model.onnx",
                "test_data_set_0/input_0.pb",
                "test_data_set_0/output_0.pb"
            ]
        );
        let digest = read.content_digest();
        assert_eq!(digest.len(), 8);
        // The sidecar is not the test: another case.json, the same digest; another input, another.
        fs::write(dir.join("case.json"), b"{\"x\": 1}").unwrap();
        assert_eq!(Finding::read(&dir).unwrap().content_digest(), digest);
        fs::write(dir.join("test_data_set_0/input_0.pb"), b"IN").unwrap();
        assert_ne!(Finding::read(&dir).unwrap().content_digest(), digest);
    }

    #[cfg(unix)]
    #[test]
    fn hostile_findings_are_refused_naming_the_entry() {
        let root = crate::data::scratch_dir().unwrap();
        let error = |dir: &Path| Finding::read(dir).unwrap_err().to_string();
        let bad = finding(root.path(), "test_fuzz_x/../y_pad");
        assert!(
            error(&bad).contains("the name \"y_pad\" is not a finding's"),
            "{}",
            error(&bad)
        );
        let bad = finding(root.path(), "test_fuzz_a b_pad");
        assert!(error(&bad).contains("\"test_fuzz_a b_pad\""), "{}", error(&bad));

        let dir = finding(root.path(), "test_fuzz_link_pad");
        std::os::unix::fs::symlink("/etc/passwd", dir.join("test_data_set_0/input_1.pb")).unwrap();
        let message = error(&dir);
        assert!(
            message.contains("test_fuzz_link_pad/test_data_set_0/input_1.pb: a symbolic link that no finding"),
            "{message}"
        );

        let dir = finding(root.path(), "test_fuzz_extra_pad");
        fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert!(
            error(&dir).contains("notes.txt: a file that no finding"),
            "{}",
            error(&dir)
        );

        let dir = finding(root.path(), "test_fuzz_fifo_pad");
        fs::remove_file(dir.join("model.onnx")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join("model.onnx"))
            .status()
            .unwrap();
        assert!(status.success());
        assert!(
            error(&dir).contains("model.onnx: a FIFO that no finding"),
            "{}",
            error(&dir)
        );

        let dir = finding(root.path(), "test_fuzz_bare_pad");
        fs::remove_file(dir.join("case.json")).unwrap();
        assert!(error(&dir).ends_with("test_fuzz_bare_pad: no case.json: a finding of `fuzz --out` holds one"));

        let dir = finding(root.path(), "test_fuzz_control_pad");
        fs::write(dir.join(DESCRIPTION_FILE), "wrong\u{1b}[2J values\n").unwrap();
        assert!(
            error(&dir).contains("description.txt: holds control characters"),
            "{}",
            error(&dir)
        );
    }
}
