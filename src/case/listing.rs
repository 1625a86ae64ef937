//! Listing one case directory: its data sets and their numbered files, read once each, a
//! case its corpus's manifest lists checked against it, and its case.json read; what cannot
//! be listed is the case's or the data set's [`ListingProblem`], never the end of the run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::info::{CASE_INFO_FILE, CaseInfo};
use super::{DataSet, EXPECTED_ERROR_FILE, ListingProblem, TestCase, bundled_copy};
use crate::data::DataRoot;
use crate::data::basis::BasisNote;
use crate::data::json_file::read_json;
use crate::data::manifest::{ListedCase, Tampered};
use crate::data::side_file::MAX_CASE_INFO_BYTES;
use crate::platform::{lossless_name, slash_separated};

impl ListingProblem {
    pub(super) fn unreadable(path: &Path, source: std::io::Error) -> ListingProblem {
        ListingProblem::Unreadable {
            path: path.to_owned(),
            source: Arc::new(source),
        }
    }
}

impl TestCase {
    /// A directory that could not be listed: no data sets, and the reason as its problem.
    pub(super) fn unlisted(root: &Path, dir: &Path, problem: ListingProblem) -> TestCase {
        TestCase {
            id: case_id(root, dir),
            dir: dir.to_owned(),
            data_sets: Vec::new(),
            problem: Some(problem),
            basis: BasisNote::upstream(),
            info: None,
            twin: None,
        }
    }
}

/// `dir` relative to `root`, with `/` separators: `onnx-1.22.0/node/test_constant_pad`.
fn case_id(root: &Path, dir: &Path) -> String {
    let relative = dir.strip_prefix(root).unwrap_or(dir);
    if relative.as_os_str().is_empty() {
        dir.file_name().map(lossless_name).unwrap_or_default()
    } else {
        relative
            .components()
            .map(|c| lossless_name(c.as_os_str()))
            .collect::<Vec<_>>()
            .join("/")
    }
}

pub(super) fn load_case_dir(data_root: &DataRoot, dir: &Path, model_bytes: Option<u64>) -> TestCase {
    let root = data_root.path.as_path();
    // Each directory is read once, and what is known from its entries is not asked again of
    // the file system: at 100,000 cases, every call per case counts.
    let entries = match Entries::read(dir) {
        Ok(entries) => entries,
        Err(problem) => return TestCase::unlisted(root, dir, problem),
    };
    let data_set_dirs = match entries.numbered("test_data_set_", "") {
        Ok(found) => found,
        Err(problem) => return TestCase::unlisted(root, dir, problem),
    };
    // A test_data_set_N that is not a directory, or two with one number (1 and 01), would
    // otherwise vanish or share a name: the case errors, naming it.
    for (position, (number, entry)) in data_set_dirs.iter().enumerate() {
        if !entry.is_dir() {
            return TestCase::unlisted(
                root,
                dir,
                ListingProblem::NotADirectory {
                    path: entry.path.clone(),
                },
            );
        }
        if let Some((previous, first)) = position.checked_sub(1).map(|p| &data_set_dirs[p])
            && previous == number
        {
            let name = |p: &Path| p.file_name().map(lossless_name).unwrap_or_default();
            let problem = ListingProblem::DuplicateNumber {
                dir: dir.to_owned(),
                first: name(&first.path),
                second: name(&entry.path),
                number: *number,
            };
            return TestCase::unlisted(root, dir, problem);
        }
    }
    let mut data_sets: Vec<DataSet> = data_set_dirs
        .into_iter()
        .map(|(index, entry)| list_data_set(index, entry.path.clone()))
        .collect();
    let described = entries.contains(CASE_INFO_FILE);
    let listed = data_root.listed_case(dir);
    if let Some(listed) = listed
        && let Err(tampered) = verify_listed(listed, dir, described, &mut data_sets)
    {
        return TestCase::unlisted(root, dir, ListingProblem::Tampered(Arc::new(tampered)));
    }
    // Upstream data is the spec's, whatever a sidecar says: the manifest decides, not a file.
    let info = match listed {
        Some(listed) if listed.upstream => None,
        _ if described => match read_json::<CaseInfo>(&dir.join(CASE_INFO_FILE), MAX_CASE_INFO_BYTES) {
            Ok(info) => Some(info),
            Err(e) => return TestCase::unlisted(root, dir, ListingProblem::CaseInfo(Arc::new(e))),
        },
        _ => None,
    };
    // The bundled corpus itself, vouched for by the digests this build carries, is what the
    // others are recognised by; any other case may be a copy of one of its data sets.
    if !listed.is_some_and(|l| data_root.anchors(l)) {
        bundled_copy::recognise(dir, model_bytes, listed, info.as_ref(), &mut data_sets);
    }
    TestCase {
        id: case_id(root, dir),
        dir: dir.to_owned(),
        data_sets,
        problem: None,
        basis: info
            .as_ref()
            .map_or_else(BasisNote::upstream, |info| info.basis.clone()),
        info: info.map(Arc::new),
        twin: None,
    }
}

/// A listed case's files against its manifest: every listed file as listed, a case.json
/// only if listed, and each data set's files listed (a data set added to a listed case is
/// that data set's problem).
fn verify_listed(listed: &ListedCase, dir: &Path, described: bool, data_sets: &mut [DataSet]) -> Result<(), Tampered> {
    listed.verify(dir)?;
    let unlisted = |path: PathBuf| Tampered::Unlisted {
        path,
        manifest: listed.manifest.clone(),
    };
    if described && !listed.lists(CASE_INFO_FILE) {
        return Err(unlisted(dir.join(CASE_INFO_FILE)));
    }
    for data_set in data_sets.iter_mut().filter(|d| d.problem.is_none()) {
        let files = data_set
            .inputs
            .iter()
            .chain(&data_set.outputs)
            .chain(&data_set.expected_error);
        let stray = files.into_iter().find(|path| {
            // Manifests separate with `/`, whatever the system.
            let relative = path.strip_prefix(dir).ok().and_then(slash_separated);
            !relative.is_some_and(|r| listed.lists(&r))
        });
        if let Some(path) = stray {
            data_set.problem = Some(ListingProblem::Tampered(Arc::new(unlisted(path.clone()))));
        }
    }
    Ok(())
}

fn list_data_set(index: usize, dir: PathBuf) -> DataSet {
    let mut data_set = DataSet {
        index,
        inputs: Vec::new(),
        outputs: Vec::new(),
        expected_error: None,
        problem: None,
        bundled: None,
        dir,
    };
    let listed = Entries::read(&data_set.dir).and_then(|entries| {
        // Present in any form: one that is not a regular file is refused when read, by name.
        data_set.expected_error = entries
            .contains(EXPECTED_ERROR_FILE)
            .then(|| data_set.dir.join(EXPECTED_ERROR_FILE));
        Ok((entries.numbered_files("input_")?, entries.numbered_files("output_")?))
    });
    match listed {
        Ok((_, outputs)) if data_set.expected_error.is_some() && !outputs.is_empty() => {
            data_set.problem = Some(ListingProblem::BothExpectations {
                dir: data_set.dir.clone(),
            });
        }
        Ok((inputs, outputs)) => {
            data_set.inputs = inputs;
            data_set.outputs = outputs;
        }
        Err(problem) => data_set.problem = Some(problem),
    }
    data_set
}

/// One entry of a directory listing.
struct Entry {
    path: PathBuf,
    /// From the listing itself where the file system gives it (no call per entry).
    file_type: Option<std::fs::FileType>,
}

impl Entry {
    /// A directory, or a link to one (inside a case, a data set may be a link).
    fn is_dir(&self) -> bool {
        match self.file_type {
            Some(t) if t.is_dir() => true,
            Some(t) if !t.is_symlink() => false,
            _ => self.path.is_dir(),
        }
    }
}

/// A directory's entries, read once.
struct Entries {
    dir: PathBuf,
    entries: Vec<(std::ffi::OsString, Entry)>,
}

impl Entries {
    fn read(dir: &Path) -> Result<Entries, ListingProblem> {
        let unreadable = |source| ListingProblem::unreadable(dir, source);
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let listed = Entry {
                path: entry.path(),
                file_type: entry.file_type().ok(),
            };
            entries.push((entry.file_name(), listed));
        }
        Ok(Entries {
            dir: dir.to_owned(),
            entries,
        })
    }

    fn contains(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, _)| n == name)
    }

    /// The entries named `{prefix}{N}{suffix}`, in numeric order of N.
    fn numbered(&self, prefix: &str, suffix: &str) -> Result<Vec<(usize, &Entry)>, ListingProblem> {
        let mut found = Vec::new();
        for (name, entry) in &self.entries {
            let Some(digits) = name
                .to_str()
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|n| n.strip_suffix(suffix))
            else {
                continue;
            };
            // Named like one, but with no number that fits (`x`, `+1`, twenty digits): an error
            // naming it, not a file silently left out.
            match digits.parse::<usize>() {
                Ok(number) if digits.bytes().all(|b| b.is_ascii_digit()) => found.push((number, entry)),
                _ => {
                    return Err(ListingProblem::BadNumber {
                        path: entry.path.clone(),
                    });
                }
            }
        }
        found.sort_by(|a, b| (a.0, &a.1.path).cmp(&(b.0, &b.1.path)));
        Ok(found)
    }

    /// The `{prefix}K.pb` files, in order of K, which must run 0, 1, 2, … without a gap: a
    /// missing file would shift every later tensor onto the wrong input or output.
    fn numbered_files(&self, prefix: &'static str) -> Result<Vec<PathBuf>, ListingProblem> {
        let found = self.numbered(prefix, ".pb")?;
        let name = |path: &Path| path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        for (position, (number, entry)) in found.iter().enumerate() {
            if *number < position {
                let (_, previous) = &found[position - 1];
                return Err(ListingProblem::DuplicateNumber {
                    dir: self.dir.clone(),
                    first: name(&previous.path),
                    second: name(&entry.path),
                    number: *number,
                });
            }
            if *number > position {
                return Err(ListingProblem::MissingNumber {
                    dir: self.dir.clone(),
                    prefix,
                    position,
                    found: name(&entry.path),
                });
            }
        }
        Ok(found.into_iter().map(|(_, entry)| entry.path.clone()).collect())
    }
}
