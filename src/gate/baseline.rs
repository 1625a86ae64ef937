//! Baselines: the known failures of a backend, with reasons, so that a run fails only on
//! regressions. This is the file: its format, read and checked, and written whole. Recording
//! a run into one is [`recording`](super::recording)'s; weighing a run against one,
//! [`judging`](super::judging)'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::ConfigName;
pub(crate) use super::entry::{Entries, Expectation};
use crate::data::json_file::{JsonFileError, read_json};
use crate::data::side_file::MAX_BASELINE_BYTES;
use crate::data::{DataRoot, corpus_name};
use crate::judge::check::Status;

/// The newest baseline file format this version reads and writes: 2 added `format`,
/// `written_by` and the corpus versions; 3 entries for named configurations (`configs`, a
/// list of entries per data set) and intermittent crashes. A file without `format` is format
/// 1 and still reads; a file that needs nothing of 3 is written as 2, so that the previous
/// release still reads it.
pub(crate) const BASELINE_FORMAT: u32 = 3;

/// The format a baseline is written as when none of its entries needs format 3.
pub(super) const PLAIN_FORMAT: u32 = 2;

/// A baseline file: data set name (`onnx-1.22.0/node/test_wrap_pad/0`) → expectation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// The file format (this version writes its newest); absent in format 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<u32>,
    /// The tool that wrote it: `pad-conformance 0.1.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
    /// The backend the baseline was recorded for (informative).
    #[serde(default)]
    pub backend: String,
    /// The version of the corpus (onnx-testdata/VERSION) the baseline was written against,
    /// when every root lay in one corpus. None recorded: "unknown", and no verdict change is
    /// excused as the corpus's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus_version: Option<u32>,
    /// The versions per corpus (by its directory's name), when the roots lay in several.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub corpus_versions: BTreeMap<String, u32>,
    /// The known failures, by data set name: every entry of the file, whichever
    /// configuration it applies to.
    pub expected: BTreeMap<String, Entries>,
    /// The configuration the run declares (none: the unnamed one): the entries in force are
    /// those for every configuration and those listing it.
    #[serde(skip)]
    pub config: Option<ConfigName>,
    /// The data sets whose expected result or basis changed in the corpus since the
    /// baseline's version (see [`Baseline::against`]), each with the changelog's reason: a
    /// different verdict on them is the corpus's doing, not the backend's.
    #[serde(skip)]
    pub changed_with_corpus: BTreeMap<String, String>,
    /// The corpora the run's roots lie in for which the baseline records no version.
    #[serde(skip)]
    pub unversioned: Vec<String>,
}

/// A baseline file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file cannot be read, or is not a baseline: not JSON, or not of its shape.
    #[error(transparent)]
    Read(#[from] JsonFileError),
    /// A gate names a baseline file that does not exist yet.
    #[error(
        "baseline {} does not exist; record one with:\n  {command}\nthen review the reasons it lists",
        crate::text::shown_path(path)
    )]
    Missing {
        /// The baseline file.
        path: PathBuf,
        /// The command that records it, for the gate at hand.
        command: String,
    },
    /// A baseline of a newer format than this version reads.
    #[error(
        "{}: baseline format {format} is newer than this pad-conformance reads ({BASELINE_FORMAT}); upgrade it",
        crate::text::shown_path(path)
    )]
    Format {
        /// The baseline file.
        path: PathBuf,
        /// The format it states.
        format: u32,
    },
    /// A corpus version that is not one of the corpus's: 0, or newer than it.
    #[error(
        "{}: corpus_version {recorded} for {corpus} is not a version of that corpus (1 to {current})",
        crate::text::shown_path(path)
    )]
    CorpusVersion {
        /// The baseline file.
        path: PathBuf,
        /// The corpus's name.
        corpus: String,
        /// What the baseline records.
        recorded: u32,
        /// The corpus's current version.
        current: u32,
    },
    /// A JSON file at a path a baseline is to be written to that is not a baseline: it is
    /// left as it is, never overwritten.
    #[error("{}: not a baseline ({}); refusing to overwrite it", crate::text::shown_path(path), match unknown_key {
        Some(key) => format!("it has a key {:?} that no baseline has", crate::data::side_file::excerpt(key, 60)),
        None => "it has no \"expected\" object".to_owned(),
    })]
    NotABaseline {
        /// The file.
        path: PathBuf,
        /// The first key no baseline has; none when the `expected` object is missing.
        unknown_key: Option<String>,
    },
    /// An entry that is not one: `problem` says which of its fields and values.
    #[error("{}: expected.{name:?}: {problem}", crate::text::shown_path(path))]
    Entry {
        /// The baseline file.
        path: PathBuf,
        /// The data set the entry is for.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The unnamed configuration is to be recorded into a baseline whose entries name
    /// configurations: its entries would apply in every one of them.
    #[error(
        "{}: its entries name configurations ({configs}); record it with a configuration (--config NAME, Harness::config)",
        crate::text::shown_path(path)
    )]
    UnnamedRecording {
        /// The baseline file.
        path: PathBuf,
        /// The configurations its entries name.
        configs: String,
    },
    /// The file cannot be written.
    #[error("writing {}: {source}", crate::text::shown_path(path))]
    Write {
        /// The baseline file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl Baseline {
    /// Reads a baseline file of the format this version writes or an older one.
    pub fn read(path: &Path) -> Result<Baseline, BaselineError> {
        let baseline: Baseline = read_json(path, MAX_BASELINE_BYTES)?;
        match baseline.format {
            Some(format) if format > BASELINE_FORMAT => Err(BaselineError::Format {
                path: path.to_owned(),
                format,
            }),
            _ => {
                baseline.check_entries(path)?;
                Ok(baseline)
            }
        }
    }

    /// Refuses entries an older reader would misread in a file that claims its format (what
    /// needs format 3 in a file of 1 or 2), keys format 3 does not know, and two entries of
    /// one data set that apply in one configuration: no precedence decides between them.
    fn check_entries(&self, path: &Path) -> Result<(), BaselineError> {
        let format = self.format.unwrap_or(1);
        for (name, Entries(list)) in &self.expected {
            let problem = |problem: String| BaselineError::Entry {
                path: path.to_owned(),
                name: name.clone(),
                problem,
            };
            if list.is_empty() {
                return Err(problem("an empty list: give an entry, or remove the name".into()));
            }
            if format < 3 && list.len() > 1 {
                return Err(problem(format!(
                    "a list of entries needs \"format\": 3 (the file says {format})"
                )));
            }
            for entry in list {
                if format < 3 && entry.needs_format_3() {
                    let field = match () {
                        _ if entry.configs.is_some() => "configs",
                        _ if entry.intermittent_crash => "intermittent_crash",
                        _ => "status \"passed\"",
                    };
                    return Err(problem(format!("{field} needs \"format\": 3 (the file says {format})")));
                }
                if format >= 3
                    && let Some(key) = entry.unknown.keys().next()
                {
                    return Err(problem(format!(
                        "unknown key {:?} (format 3 knows status, reason, configs, tracking, intermittent_crash)",
                        crate::data::side_file::excerpt(key, 60)
                    )));
                }
                if entry.configs.as_ref().is_some_and(Vec::is_empty) {
                    return Err(problem(
                        "configs lists no configuration (leave it out for every configuration)".into(),
                    ));
                }
                if entry.status == Status::Passed && !entry.intermittent_crash {
                    return Err(problem(
                        "status \"passed\" is for an entry with \"intermittent_crash\": true".into(),
                    ));
                }
                // Its twin's failure is the entry to list: a run never records one.
                if entry.status == Status::NotVerified {
                    return Err(problem(
                        "status \"not_verified\" is never listed: list the failure of the data set's twin".into(),
                    ));
                }
            }
            for (i, a) in list.iter().enumerate() {
                for b in &list[i + 1..] {
                    let shared = match (&a.configs, &b.configs) {
                        (Some(x), Some(y)) => x.iter().find(|c| y.contains(c)).map(|c| format!("configuration {c}")),
                        _ => Some("every configuration".to_owned()),
                    };
                    if let Some(shared) = shared {
                        return Err(problem(format!("two entries apply in {shared}")));
                    }
                }
            }
        }
        Ok(())
    }

    /// This baseline, its entries weighed for the run's configuration (none: the unnamed one).
    pub fn for_config(self, config: Option<ConfigName>) -> Baseline {
        Baseline { config, ..self }
    }

    /// The entry in force for `name` in this baseline's configuration, if any.
    pub fn in_force(&self, name: &str) -> Option<&Expectation> {
        let Entries(list) = self.expected.get(name)?;
        list.iter().find(|e| e.applies_to(self.config.as_ref()))
    }

    /// Adds `entry` for `name`, beside those there.
    #[cfg(test)]
    pub(super) fn insert(&mut self, name: impl Into<String>, entry: Expectation) {
        self.expected.entry(name.into()).or_default().0.push(entry);
    }

    /// The entries in force in this baseline's configuration, by data set name.
    pub fn entries_in_force(&self) -> impl Iterator<Item = (&String, &Expectation)> {
        let config = self.config.as_ref();
        self.expected.iter().flat_map(move |(name, Entries(list))| {
            list.iter()
                .filter(move |e| e.applies_to(config))
                .map(move |e| (name, e))
        })
    }

    /// The known failures in force without a `tracking` link, among the data sets `ran` names.
    pub fn untracked(&self, ran: impl Fn(&str) -> bool) -> Vec<String> {
        self.entries_in_force()
            .filter(|(name, e)| e.tracking.is_none() && ran(name))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The version recorded for the corpus named `corpus`, if any.
    pub fn version_of(&self, corpus: &str) -> Option<u32> {
        if self.corpus_versions.is_empty() {
            self.corpus_version
        } else {
            self.corpus_versions.get(corpus).copied()
        }
    }

    /// This baseline (read from `path`), judged against the corpora of a run over `roots`:
    /// the data sets that changed since the version it records are marked (see
    /// [`GateResult::ChangedWithCorpus`](crate::gate::gate_result::GateResult::ChangedWithCorpus)).
    /// A corpus it records no version for excuses nothing and
    /// is listed in [`unversioned`](Baseline::unversioned); a recorded version that is not
    /// one of the corpus's (0, or newer) is an error naming the file.
    pub fn against(mut self, path: &Path, roots: &[DataRoot]) -> Result<Baseline, BaselineError> {
        for root in roots {
            let Some(corpus) = root.corpus.as_deref() else {
                continue;
            };
            let name = corpus_name(corpus);
            match self.version_of(&name) {
                None => {
                    if !self.unversioned.contains(&name) {
                        self.unversioned.push(name);
                    }
                }
                Some(recorded) if recorded == 0 || recorded > corpus.version => {
                    return Err(BaselineError::CorpusVersion {
                        path: path.to_owned(),
                        corpus: name,
                        recorded,
                        current: corpus.version,
                    });
                }
                Some(recorded) => self
                    .changed_with_corpus
                    .extend(corpus.changed_since(recorded, &root.path)),
            }
        }
        Ok(self)
    }

    /// The warning for a baseline that records no version of the run's corpus, if it
    /// records none: `how` is the command that re-records it.
    pub fn unversioned_warning(&self, path: &Path, how: &str) -> Option<String> {
        (!self.unversioned.is_empty()).then(|| {
            format!(
                "warning: baseline {} records no version of the corpus {}, so no changed verdict is excused as the corpus's; re-record it with {how}",
                path.display(),
                self.unversioned.join(", ")
            )
        })
    }

    /// Reads the baseline a recording is to replace, if there is one: `None` when nothing is
    /// at `path`; a file that is there but unreadable, malformed or not a baseline (a key no
    /// baseline has, or no `expected` object: a report, a profile, someone's JSON) is an
    /// error, so that it is never overwritten as if it were absent.
    pub fn read_if_exists(path: &Path) -> Result<Option<Baseline>, BaselineError> {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => {}
        }
        let value: serde_json::Value = read_json(path, MAX_BASELINE_BYTES)?;
        let not_a_baseline = |unknown_key| BaselineError::NotABaseline {
            path: path.to_owned(),
            unknown_key,
        };
        let Some(object) = value
            .as_object()
            .filter(|o| o.get("expected").is_some_and(|e| e.is_object()))
        else {
            return Err(not_a_baseline(None));
        };
        // The keys a baseline of any format up to this one may have.
        const KEYS: [&str; 6] = [
            "format",
            "written_by",
            "backend",
            "corpus_version",
            "corpus_versions",
            "expected",
        ];
        if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(not_a_baseline(Some(key.clone())));
        }
        Baseline::read(path).map(Some)
    }

    /// Writes the baseline as pretty JSON, entries sorted by name, whole or not at all.
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        let text = serde_json::to_string_pretty(self).expect("a baseline serializes");
        crate::data::atomic_file::write_atomically(path, (text + "\n").as_bytes()).map_err(|source| {
            BaselineError::Write {
                path: path.to_owned(),
                source,
            }
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn config(name: &str) -> Option<ConfigName> {
        Some(ConfigName::new(name).unwrap())
    }

    pub(crate) fn written(text: &str) -> Result<Baseline, BaselineError> {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("known.json");
        std::fs::write(&path, text).unwrap();
        Baseline::read(&path)
    }

    /// A format-3 file: one data set failing in debug and errored in release, one failing
    /// everywhere, one that crashes at random in release only.
    pub(crate) const THREE: &str = r#"{"format": 3, "backend": "x", "expected": {
        "a/0": [{"status": "failed", "reason": "overflow wraps", "configs": ["release"]},
                {"status": "errored", "reason": "overflow panics", "configs": ["debug"], "tracking": "https://bugs.example/7"}],
        "b/0": {"status": "failed", "reason": "no wrap"},
        "c/0": {"status": "passed", "reason": "heap corruption", "configs": ["release"], "intermittent_crash": true}
    }}"#;

    #[test]
    fn a_listed_failure_is_known_the_same_data_set_passing_fixed_and_an_unlisted_failure_new() {
        use crate::gate::gate_result::GateResult;
        let baseline = Baseline::read("examples/toy_backend.baseline.json".as_ref()).unwrap();
        let listed = "node/test_wrap_pad/0";
        assert!(matches!(
            baseline.finding(listed, Status::Errored),
            GateResult::KnownFailure { .. }
        ));
        assert!(matches!(
            baseline.finding(listed, Status::Passed),
            GateResult::Fixed { .. }
        ));
        assert!(matches!(
            baseline.finding("node/test_constant_pad/0", Status::Failed),
            GateResult::NewFailure
        ));
    }

    #[test]
    fn entries_an_older_reader_would_misread_or_that_overlap_are_refused_naming_them() {
        let cases = [
            (
                r#"{"format": 2, "expected": {"a/0": {"status": "failed", "reason": "r", "configs": ["debug"]}}}"#,
                r#"expected."a/0": configs needs "format": 3 (the file says 2)"#,
            ),
            (
                r#"{"expected": {"a/0": [{"status": "failed", "reason": "r"}, {"status": "errored", "reason": "s"}]}}"#,
                r#"expected."a/0": a list of entries needs "format": 3 (the file says 1)"#,
            ),
            (
                r#"{"format": 3, "expected": {"a/0": {"status": "failed", "reason": "r", "config": ["debug"]}}}"#,
                r#"expected."a/0": unknown key "config""#,
            ),
            (
                r#"{"format": 3, "expected": {"a/0": [{"status": "failed", "reason": "r", "configs": ["x", "debug"]}, {"status": "errored", "reason": "s", "configs": ["debug"]}]}}"#,
                r#"expected."a/0": two entries apply in configuration debug"#,
            ),
            (
                r#"{"format": 3, "expected": {"a/0": [{"status": "failed", "reason": "r"}, {"status": "errored", "reason": "s", "configs": ["debug"]}]}}"#,
                r#"expected."a/0": two entries apply in every configuration"#,
            ),
            (
                r#"{"format": 3, "expected": {"a/0": {"status": "failed", "reason": "r", "configs": []}}}"#,
                r#"expected."a/0": configs lists no configuration"#,
            ),
            (
                r#"{"format": 3, "expected": {"a/0": {"status": "passed", "reason": "r"}}}"#,
                r#"expected."a/0": status "passed" is for an entry with "intermittent_crash": true"#,
            ),
            (
                r#"{"format": 2, "expected": {"a/0": {"status": "not_verified", "reason": "r"}}}"#,
                r#"expected."a/0": status "not_verified" is never listed: list the failure of the data set's twin"#,
            ),
            (
                r#"{"format": 3, "expected": {"a/0": {"status": "failed", "reason": "r", "tracking": "see bug 7"}}}"#,
                r#"tracking "see bug 7" is not an http(s) link"#,
            ),
            (
                r#"{"format": 4, "expected": {}}"#,
                "baseline format 4 is newer than this pad-conformance reads (3)",
            ),
        ];
        for (text, expected) in cases {
            let error = written(text).unwrap_err().to_string();
            assert!(
                error.contains("known.json") && error.contains(expected),
                "{error}\n  wanted: {expected}"
            );
        }
        // A format-2 file with a key of its own still reads, and keeps it when rewritten.
        let two =
            written(r#"{"format": 2, "expected": {"a/0": {"status": "failed", "reason": "r", "note": 1}}}"#).unwrap();
        assert!(serde_json::to_string(&two).unwrap().contains(r#""note":1"#));
    }
}
