//! One release's stored result (docs/cli.md#runtimes-across-releases): what `history record`
//! makes of a run's JSON report and every other `history` verb reads. A runtime's releases are
//! stored together in history/RUNTIME.json ([`runtime_file`](super::runtime_file), format 2);
//! a release file of format 1, history/RUNTIME/VERSION.json, is still read. Data sets are keyed
//! by content digest, so a result outlives renames and a new corpus version re-runs only what
//! it changed; passes are implied: a data set in `data_sets`, and neither in `unsupported` nor
//! in `not_passed`, passed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::group_line::GroupLine;
use crate::data::digest::selection_digest;
use crate::data::json_file::read_json;
use crate::judge::check::Status;
use crate::text::shown_path;

/// The format this version writes (a runtime's file) and the newest it reads.
pub(crate) const HISTORY_FORMAT: u32 = 2;

/// The format of a file holding one release, history/RUNTIME/VERSION.json: read, no longer
/// written.
pub(crate) const RELEASE_FILE_FORMAT: u32 = 1;

/// The largest stored file read (a release of a 1,268-data-set corpus is ~100 KiB in format 1;
/// a runtime's 36 releases ~200 KiB in format 2).
pub(crate) const MAX_STORED_BYTES: u64 = 64 << 20;

/// One release of one runtime, run over one corpus: as a file of format 1 holds it, and as
/// every reader sees a release of either format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Release {
    /// The format of the file it was read from: [`RELEASE_FILE_FORMAT`] or [`HISTORY_FORMAT`].
    pub format: u32,
    /// The runtime, as its worker names it (`onnxruntime`).
    pub runtime: String,
    /// The release, as the runtime states its version (`1.16.3`).
    pub version: String,
    /// The corpus version of each corpus the run read.
    pub corpora: BTreeMap<String, u32>,
    /// The bases whose failures gate, as the run stated them (`spec,reference`).
    pub gating: String,
    /// The comparison rule the run applied (`exact`).
    pub tolerance: String,
    /// The day the release was run (UTC, `YYYY-MM-DD`): what dates docs/history.md.
    pub date: String,
    /// What the release ran in: the interpreter and each package with its wheel's hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    /// Whether the worker itself worked with this release (its self-check passed); when it
    /// did not, nothing below says anything about the runtime.
    pub worker: WorkerCheck,
    /// The sha256 of the `data_sets` digests: equal for two releases run on the same data.
    pub selection: String,
    /// The content digest of every data set the release ran, sorted.
    pub data_sets: Vec<String>,
    /// The data sets outside what the release supports (its profile and format limits),
    /// sorted: most of an old release's, so kept as bare digests.
    #[serde(default)]
    pub unsupported: Vec<String>,
    /// The data sets that failed, errored or were skipped, by content digest (a digest given
    /// twice is refused by `read_json`, as a key named twice in any JSON file).
    pub not_passed: BTreeMap<String, NotPassed>,
    /// What labels each failure group of `not_passed`: the first line of its smallest data
    /// set's message as said ([`shown_message`](crate::cli::failure_groups::shown_message)).
    /// Absent from files written before it was stored.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub messages: BTreeMap<String, String>,
}

/// The interpreter and packages of a release's environment (a pip install report, condensed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Environment {
    /// The interpreter's version (`3.11.2`), or the Node version for a JavaScript runtime.
    pub interpreter: String,
    /// Every package installed, with its version and the sha256 of its archive.
    pub packages: Vec<Package>,
}

/// One installed package.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Package {
    pub name: String,
    pub version: String,
    /// The sha256 (hex) of the archive installed, when the installer stated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// npm's Subresource Integrity string of the archive (`sha512-…`), for a package npm
    /// installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
}

/// The worker's self-check against this release: the oldest upstream case, which any release
/// that reads ONNX at all must pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorkerCheck {
    /// The data set checked.
    pub data_set: String,
    /// Whether it passed.
    pub passed: bool,
    /// What went wrong, when it did not pass.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// A data set that did not pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NotPassed {
    /// Its name in the run (`onnx-1.22.0/node/test_wrap_pad/0`).
    pub name: String,
    /// Failed, errored or skipped.
    pub status: Status,
    /// Whether the failure gates (its basis is one the run gates on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gates: bool,
    /// Its failure group ([`GroupLine`]); none for a data set skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// Why a stored result cannot be used, naming the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoredError {
    #[error(transparent)]
    File(#[from] crate::data::json_file::JsonFileError),
    /// `field` names the release too when the file holds several (`1.16.0: selection`).
    #[error("{}: {field}: {problem}", shown_path(path))]
    Invalid {
        path: PathBuf,
        field: String,
        problem: String,
    },
}

impl StoredError {
    pub(crate) fn invalid(path: &Path, field: impl Into<String>, problem: impl Into<String>) -> StoredError {
        StoredError::Invalid {
            path: path.to_owned(),
            field: field.into(),
            problem: problem.into(),
        }
    }
}

impl Release {
    /// The digest of a set of data-set digests, as `selection` holds it.
    pub(crate) fn selection_of(data_sets: &[String]) -> String {
        selection_digest(data_sets)
    }

    /// Reads and checks a release file of format 1, history/RUNTIME/VERSION.json: its format,
    /// the names it claims (the file's own name is `VERSION.json` under a directory named for
    /// the runtime, so two files cannot claim one release), and that it agrees with itself.
    pub(crate) fn read_release_file(path: &Path) -> Result<Release, StoredError> {
        let release: Release = read_json(path, MAX_STORED_BYTES)?;
        if release.format != RELEASE_FILE_FORMAT {
            return Err(StoredError::invalid(
                path,
                "format",
                format!(
                    "{}: a file of one release is of format {RELEASE_FILE_FORMAT}; format {HISTORY_FORMAT} is a runtime's file, RUNTIME.json",
                    release.format
                ),
            ));
        }
        let mut release = release;
        release.check(path, "")?;
        release.regroup();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if stem != release.version {
            return Err(StoredError::invalid(
                path,
                "version",
                format!("{:?}, but the file is named {stem:?}", release.version),
            ));
        }
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if dir != release.runtime {
            return Err(StoredError::invalid(
                path,
                "runtime",
                format!("{:?}, but the file lies under {dir:?}", release.runtime),
            ));
        }
        Ok(release)
    }

    /// Whether this release agrees with itself: what reading either format checks, and
    /// `history record` before it writes anything. Errors name `path` and, before the field,
    /// `within` (`1.16.0: ` in a runtime's file).
    pub(crate) fn check(&self, path: &Path, within: &str) -> Result<(), StoredError> {
        let release = self;
        let invalid = |field: &str, problem: String| StoredError::invalid(path, format!("{within}{field}"), problem);
        if !is_name(&release.runtime) {
            return Err(invalid(
                "runtime",
                format!("{:?}: not letters, digits, '.', '_', '+', '-'", release.runtime),
            ));
        }
        if !is_name(&release.version) {
            return Err(invalid(
                "version",
                format!("{:?}: not letters, digits, '.', '_', '+', '-'", release.version),
            ));
        }
        if release.format == 0 || release.format > HISTORY_FORMAT {
            return Err(invalid(
                "format",
                format!(
                    "{}: this pad-conformance reads formats 1 to {HISTORY_FORMAT}",
                    release.format
                ),
            ));
        }
        if !is_date(&release.date) {
            return Err(invalid("date", format!("{:?} is not YYYY-MM-DD", release.date)));
        }
        if release.data_sets.windows(2).any(|w| w[0] >= w[1]) {
            return Err(invalid("data_sets", "not sorted, or a digest listed twice".into()));
        }
        let listed: BTreeSet<&String> = release.data_sets.iter().collect();
        if let Some(bad) = release.data_sets.iter().find(|d| !is_digest(d)) {
            return Err(invalid("data_sets", format!("{bad:?} is not a 16-digit hex digest")));
        }
        if release.selection != Release::selection_of(&release.data_sets) {
            return Err(invalid("selection", "does not match data_sets".into()));
        }
        if let Some(digest) = release.not_passed.keys().find(|d| !listed.contains(d)) {
            return Err(invalid("not_passed", format!("{digest} is not one of data_sets")));
        }
        if let Some((digest, n)) = release
            .not_passed
            .iter()
            .find(|(_, n)| matches!(n.status, Status::Passed | Status::Unsupported))
        {
            return Err(invalid(
                "not_passed",
                format!(
                    "{digest} is listed as {}: only failed, errored and skipped belong here",
                    n.status.name()
                ),
            ));
        }
        if release.unsupported.windows(2).any(|w| w[0] >= w[1]) {
            return Err(invalid("unsupported", "not sorted, or a digest listed twice".into()));
        }
        if let Some(digest) = release
            .unsupported
            .iter()
            .find(|d| !listed.contains(d) || release.not_passed.contains_key(*d))
        {
            return Err(invalid(
                "unsupported",
                format!("{digest} is not one of data_sets, or is in not_passed too"),
            ));
        }
        if !release.worker.passed && !release.data_sets.is_empty() {
            return Err(invalid(
                "data_sets",
                "results of a release whose worker failed its self-check".into(),
            ));
        }
        if let Some((digest, n)) = release
            .not_passed
            .iter()
            .find(|(_, n)| n.group.is_some() != matches!(n.status, Status::Failed | Status::Errored))
        {
            return Err(invalid(
                "not_passed",
                format!(
                    "{digest}: a {} data set {} a group",
                    n.status.name(),
                    if n.group.is_some() { "with" } else { "without" }
                ),
            ));
        }
        let groups: BTreeSet<&String> = release.not_passed.values().filter_map(|n| n.group.as_ref()).collect();
        if let Some(group) = release.messages.keys().find(|g| !groups.contains(g)) {
            return Err(invalid("messages", format!("{group:?} is no group of not_passed")));
        }
        for (digest, n) in &release.not_passed {
            let Some(group) = &n.group else { continue };
            let line = GroupLine::parse(group)
                .map_err(|problem| invalid("not_passed", format!("{digest}: group {problem}")))?;
            if line.status != n.status {
                return Err(invalid(
                    "not_passed",
                    format!("{digest}: a {} data set in group {group:?}", n.status.name()),
                ));
            }
        }
        Ok(())
    }

    /// Each group as this version groups (a crash by its kind, not its signal), once
    /// [`check`](Release::check) has read every group: what readers of either format see.
    pub(crate) fn regroup(&mut self) {
        let regrouped = |group: &str| GroupLine::parse(group).map_or_else(|_| group.to_owned(), |l| l.to_string());
        for entry in self.not_passed.values_mut() {
            if let Some(group) = &entry.group {
                entry.group = Some(regrouped(group));
            }
        }
        // Two groups read as one keep the first's message.
        let messages = std::mem::take(&mut self.messages);
        for (group, message) in messages {
            self.messages.entry(regrouped(&group)).or_insert(message);
        }
    }

    /// The status of the data set of `digest`: `None` when this release did not run it.
    pub(crate) fn status_of(&self, digest: &str) -> Option<Status> {
        let holds = |list: &[String]| list.binary_search_by(|d| d.as_str().cmp(digest)).is_ok();
        match self.not_passed.get(digest) {
            Some(entry) => Some(entry.status),
            None if holds(&self.unsupported) => Some(Status::Unsupported),
            None => holds(&self.data_sets).then_some(Status::Passed),
        }
    }
}

/// A day of the calendar as `YYYY-MM-DD`.
pub(crate) fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
        && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

/// A runtime's or version's name, usable as a file name: what `history record` writes.
pub(crate) fn is_name(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('.')
        && text.len() <= 100
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c))
}

pub(crate) fn is_digest(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// A version's sort key: its release numbers (1.9.0 < 1.10.0, 2023.3.0 < 2024.0.0); then its
/// kind — a development or pre-release (1.20.0.dev3, 1.20.0rc1, 1.20.0-rc.1) before the
/// release, a post-release or local build (1.20.0.post1, 1.20.0+cpu) after it; then the rest,
/// its runs of digits as numbers.
pub(crate) fn release_order(version: &str) -> (Vec<u64>, u8, Vec<(u64, String)>) {
    let split = version
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(version.len());
    let (numbers, rest) = version.split_at(split);
    let numbers = numbers
        .split('.')
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().unwrap_or(u64::MAX))
        .collect();
    let suffix = rest.trim_start_matches(['.', '-', '_']).to_ascii_lowercase();
    let kind = match suffix.as_str() {
        "" => 2,
        s if s.starts_with("post") || rest.starts_with('+') => 3,
        s if s.starts_with("dev") => 0,
        _ => 1,
    };
    (numbers, kind, runs(&suffix))
}

/// Runs of digits as numbers and of other characters as text: rc2 < rc10.
fn runs(text: &str) -> Vec<(u64, String)> {
    let mut key = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        let digit = c.is_ascii_digit();
        let mut run = String::new();
        while let Some(&c) = chars.peek().filter(|c| c.is_ascii_digit() == digit) {
            run.push(c);
            chars.next();
        }
        key.push(match digit {
            true => (run.parse().unwrap_or(u64::MAX), String::new()),
            false => (0, run),
        });
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_by_their_numbers() {
        let mut versions = vec!["1.10.0", "1.9.1", "1.9.0", "2023.3.0", "1.15.0", "2024.0.0"];
        versions.sort_by_key(|v| release_order(v));
        assert_eq!(versions, ["1.9.0", "1.9.1", "1.10.0", "1.15.0", "2023.3.0", "2024.0.0"]);
    }

    #[test]
    fn a_pre_release_comes_before_its_release_and_a_post_release_after() {
        let mut versions = vec![
            "1.20.0.post1",
            "1.20.0",
            "1.20.0rc10",
            "1.20.0+cpu",
            "1.20.0rc2",
            "1.20.0-dev.5",
            "1.19.1",
            "1.20.1a1",
        ];
        versions.sort_by_key(|v| release_order(v));
        assert_eq!(
            versions,
            [
                "1.19.1",
                "1.20.0-dev.5",
                "1.20.0rc2",
                "1.20.0rc10",
                "1.20.0",
                "1.20.0+cpu",
                "1.20.0.post1",
                "1.20.1a1"
            ]
        );
    }

    #[test]
    fn dates_and_digests_are_checked_by_shape() {
        assert!(is_date("2026-11-28"));
        assert!(!is_date("2026-1-28"));
        assert!(!is_date("2026/11/28"));
        assert!(!is_date("2026-02-30"));
        assert!(!is_date(" 2026-1-01"));
        assert!(!is_date("+2026-1-01"));
        assert!(is_digest("0123456789abcdef"));
        assert!(!is_digest("0123456789ABCDEF"));
        assert!(!is_digest("0123456789abcde"));
    }
}
