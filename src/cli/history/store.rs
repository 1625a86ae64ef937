//! The history directory (history/): each runtime's releases in DIR/RUNTIME.json (format 2,
//! [`runtime_file`](super::runtime_file)), and release files of format 1 still read from
//! DIR/RUNTIME/VERSION.json. Writing a runtime's file moves its release files into it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::runtime_file::{read_runtime_file, runtime_file_text};
use super::stored::{Release, StoredError, is_name, release_order};
use crate::data::atomic_file::write_atomically;
use crate::text::shown_path;

/// One runtime's stored releases, in release order, and the files they came from.
pub(crate) struct RuntimeStore {
    pub releases: Vec<Release>,
    /// DIR/RUNTIME.json, whether or not it exists yet.
    pub file: PathBuf,
    /// The release files of format 1 read.
    pub release_files: Vec<PathBuf>,
}

impl RuntimeStore {
    /// The releases of `runtime` under `dir`, from both layouts: one release stored in both is
    /// an error naming the two files.
    pub(crate) fn read(dir: &Path, runtime: &str) -> Result<RuntimeStore, StoredError> {
        let file = dir.join(format!("{runtime}.json"));
        let mut releases = match file.is_file() {
            true => read_runtime_file(&file)?,
            false => Vec::new(),
        };
        let mut release_files = Vec::new();
        let legacy = dir.join(runtime);
        if legacy.is_dir() {
            let mut files = entries(&legacy)?;
            files.retain(|p| p.extension().is_some_and(|e| e == "json"));
            for path in files {
                let release = Release::read_release_file(&path)?;
                if releases.iter().any(|r| r.version == release.version) {
                    return Err(StoredError::invalid(
                        &path,
                        "version",
                        format!(
                            "{} is stored in {} too: remove one (`history compact` moves release files into it)",
                            release.version,
                            shown_path(&file)
                        ),
                    ));
                }
                releases.push(release);
                release_files.push(path);
            }
        }
        releases.sort_by_cached_key(|r| (release_order(&r.version), r.version.clone()));
        Ok(RuntimeStore {
            releases,
            file,
            release_files,
        })
    }

    /// Writes every release into the runtime's file (whole or not at all), then removes the
    /// release files read, and their directory once empty.
    pub(crate) fn write(&self) -> Result<(), StoredError> {
        let text = runtime_file_text(self.runtime(), &self.releases)
            .map_err(|e| StoredError::invalid(&self.file, "releases", e.to_string()))?;
        write_atomically(&self.file, text.as_bytes())
            .map_err(|e| StoredError::invalid(&self.file, "file", e.to_string()))?;
        for path in &self.release_files {
            std::fs::remove_file(path).map_err(|e| StoredError::invalid(path, "file", e.to_string()))?;
        }
        if let Some(dir) = self.release_files.first().and_then(|p| p.parent()) {
            // Left in place when something else lies in it.
            let _ = std::fs::remove_dir(dir);
        }
        Ok(())
    }

    /// The runtime, as the file is named.
    fn runtime(&self) -> &str {
        self.file.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
    }
}

/// Every runtime stored under `dir`: the names of its RUNTIME.json files and RUNTIME/
/// directories, sorted.
pub(crate) fn runtimes(dir: &Path) -> Result<Vec<String>, StoredError> {
    let mut names: Vec<String> = entries(dir)?
        .into_iter()
        .filter_map(|path| {
            let name = match path.is_dir() {
                true => path.file_name(),
                false if path.extension().is_some_and(|e| e == "json") => path.file_stem(),
                false => None,
            }?;
            name.to_str().filter(|n| is_name(n)).map(str::to_owned)
        })
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// Every stored release under `dir` (history/), by runtime, then in release order. A file
/// that cannot be read is an error naming it.
pub(crate) fn read_all(dir: &Path) -> Result<BTreeMap<String, Vec<Release>>, StoredError> {
    let mut all = BTreeMap::new();
    for runtime in runtimes(dir)? {
        let store = RuntimeStore::read(dir, &runtime)?;
        if !store.releases.is_empty() {
            all.insert(runtime, store.releases);
        }
    }
    Ok(all)
}

/// The paths in `dir`, sorted.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, StoredError> {
    let io = |source: std::io::Error| StoredError::invalid(dir, "directory", source.to_string());
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    paths.sort();
    Ok(paths)
}
