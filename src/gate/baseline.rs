//! Baselines: the known failures of a backend, with reasons, so that a run fails only on
//! regressions. An expected failure that passes is reported (and fails the run under
//! `--strict`), so a baseline cannot go stale unnoticed.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::ConfigName;
pub(crate) use super::entry::{Entries, Expectation};
use crate::data::json_file::{JsonFileError, read_json};
use crate::data::side_file::MAX_BASELINE_BYTES;
use crate::data::{DataRoot, corpus_name, corpus_versions};
use crate::judge::check::{Outcome, Status};
pub(crate) use crate::judge::gate_result::GateResult;
use crate::judge::verdict::{Failure, Verdict};
use crate::platform::lock_dir;
use crate::text::first_line;

/// The newest baseline file format this version reads and writes: 2 added `format`,
/// `written_by` and the corpus versions; 3 entries for named configurations (`configs`, a
/// list of entries per data set) and intermittent crashes. A file without `format` is format
/// 1 and still reads; a file that needs nothing of 3 is written as 2, so that the previous
/// release still reads it.
pub(crate) const BASELINE_FORMAT: u32 = 3;

/// The format a baseline is written as when none of its entries needs format 3.
const PLAIN_FORMAT: u32 = 2;

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

/// The data set names a baseline's entries are checked against for staleness: every name
/// under the roots (before any filter), or none at all when custom case-directory patterns
/// leave cases undiscovered on purpose, so that no entry can be called stale. The CLI and
/// the harness both judge staleness by it.
#[derive(Clone, Debug)]
pub(crate) enum Discovered {
    /// Every data set name under the roots.
    All(HashSet<String>),
    /// Custom patterns: the names are not all known.
    Partial,
}

impl Discovered {
    /// The names of `cases`' data sets, or `Partial` under custom patterns.
    pub(crate) fn new(cases: &[crate::case::TestCase], custom_patterns: bool) -> Discovered {
        if custom_patterns {
            return Discovered::Partial;
        }
        let names = cases
            .iter()
            .flat_map(|case| case.job_indices().map(move |i| case.data_set_name(i)))
            .collect();
        Discovered::All(names)
    }

    /// Whether an entry for `name` can stand: the data set exists, or it cannot be known.
    pub(crate) fn contains(&self, name: &str) -> bool {
        match self {
            Discovered::All(names) => names.contains(name),
            Discovered::Partial => true,
        }
    }
}

/// A different verdict than the baseline's on a data set whose expected result or basis
/// changed in the corpus since the baseline was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusChange {
    /// The data set.
    pub name: String,
    /// The status the baseline implies: its entry's, or `passed` for none.
    pub was: String,
    /// The status now.
    pub now: Status,
    /// The changelog's line: `corpus version 3: new, onnx 1.23.2 (basis spec)`.
    pub why: String,
}

impl std::fmt::Display for CorpusChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: was {}, now {} ({})",
            self.name,
            self.was,
            self.now.name(),
            self.why
        )
    }
}

/// How a run compares with a baseline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateSummary {
    /// Failed or errored, as the baseline expects.
    pub expected_failures: Vec<String>,
    /// Failed or errored, and not in the baseline.
    pub regressions: Vec<String>,
    /// In the baseline, but passed.
    pub unexpected_passes: Vec<String>,
    /// In the baseline as failed but errored now, or the other way round:
    /// `name: expected errored, now failed`.
    pub changed_status: Vec<String>,
    /// In the baseline, but no such data set was discovered (renamed or removed).
    pub stale: Vec<String>,
    /// A different verdict than the baseline's on a data set whose expected result or basis
    /// changed in the corpus since the baseline was written.
    pub corpus_changes: Vec<CorpusChange>,
    /// Data sets that agree with the baseline: passed and not listed, skipped, unsupported.
    pub agreeing: usize,
    /// Failed or errored on a basis the run does not gate on: not judged.
    pub not_gating: usize,
    /// The run was judged with `--strict`: an outdated entry fails it.
    #[serde(default)]
    pub strict: bool,
    /// The run was judged with `--strict-corpus`: a change with the corpus fails it.
    #[serde(default)]
    pub strict_corpus: bool,
    /// The known failures in force whose data set ran, without a `tracking` link.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untracked: Vec<String>,
    /// The run was judged with `--require-tracking`: an untracked known failure fails it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_tracking: bool,
}

impl GateSummary {
    /// True when the run should fail: a regression, or under `strict` any difference from
    /// the baseline (an unexpected pass, a changed status, an entry for no data set); a
    /// verdict that changed with the corpus only under `strict_corpus`.
    pub fn fails(&self, strict: bool, strict_corpus: bool) -> bool {
        let outdated = !self.unexpected_passes.is_empty() || !self.changed_status.is_empty() || !self.stale.is_empty();
        !self.regressions.is_empty()
            || (strict && outdated)
            || (strict_corpus && !self.corpus_changes.is_empty())
            || (self.require_tracking && !self.untracked.is_empty())
    }

    /// Whether one data set's gate result fails the run, under this run's strict flags.
    pub fn fails_data_set(&self, gate: &GateResult) -> bool {
        gate.fails(self.strict, self.strict_corpus)
    }

    /// The data sets judged: every count above, which add up to the run's data sets.
    pub fn total(&self) -> usize {
        self.expected_failures.len()
            + self.regressions.len()
            + self.unexpected_passes.len()
            + self.changed_status.len()
            + self.corpus_changes.len()
            + self.agreeing
            + self.not_gating
    }

    /// `baseline: 3 expected failures, 0 regressions, 1 unexpected passes`, then the names.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "baseline: {} expected failures, {} regressions, {} unexpected passes",
            self.expected_failures.len(),
            self.regressions.len(),
            self.unexpected_passes.len()
        );
        for (count, what) in [
            (self.changed_status.len(), "changed status"),
            (self.stale.len(), "stale entries"),
            (self.corpus_changes.len(), "changed with the corpus"),
        ] {
            if count > 0 {
                text.push_str(&format!(", {count} {what}"));
            }
        }
        let lists = [
            ("regression", &self.regressions),
            ("unexpected pass (remove it from the baseline)", &self.unexpected_passes),
            ("changed status (update the baseline)", &self.changed_status),
            (
                "stale entry, no such data set (remove it from the baseline)",
                &self.stale,
            ),
        ];
        for (label, names) in lists {
            for name in names {
                text.push_str(&format!("\n  {label}: {name}"));
            }
        }
        if self.require_tracking {
            for name in &self.untracked {
                text.push_str(&format!(
                    "\n  known failure without a tracking link (--require-tracking): {name}"
                ));
            }
        }
        for change in &self.corpus_changes {
            text.push_str(&format!(
                "\n  changed with the corpus, not the backend (rewrite the baseline): {change}"
            ));
        }
        text
    }
}

impl Baseline {
    /// Reads a baseline file of the format this version writes or an older one.
    ///
    /// ```
    /// use pad_conformance::testing::{Baseline, GateResult};
    /// use pad_conformance::testing::Status;
    ///
    /// let baseline = Baseline::read("examples/toy_backend.baseline.json".as_ref())?;
    /// // A listed failure is known; the same data set passing is fixed, and an unlisted failure new.
    /// let listed = "node/test_wrap_pad/0";
    /// assert!(matches!(baseline.finding(listed, Status::Errored), GateResult::KnownFailure { .. }));
    /// assert!(matches!(baseline.finding(listed, Status::Passed), GateResult::Fixed { .. }));
    /// assert!(matches!(baseline.finding("node/test_constant_pad/0", Status::Failed), GateResult::NewFailure));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    fn insert(&mut self, name: impl Into<String>, entry: Expectation) {
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
    /// [`GateResult::ChangedWithCorpus`]). A corpus it records no version for excuses nothing and
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

    /// Records a baseline into `path` as [`Baseline::record`] makes it from the baseline
    /// there now (or `fallback` when there is none): read, recorded and replaced under a lock
    /// on the directory, so that two recordings into one file at once each merge into what the
    /// other wrote and no entry is lost. (On Unix the lock is on the directory, which outlives
    /// the rename that replaces the file, and leaves no lock file behind; on Windows, where a
    /// directory takes no lock, on `.pad-conformance.lock` in it: [`lock_dir`].) The unnamed
    /// configuration is not recorded into a file whose entries name configurations.
    pub fn record_into(
        path: &Path,
        fallback: Option<&Baseline>,
        config: Option<&ConfigName>,
        record: impl FnOnce(Option<&Baseline>) -> Recording,
    ) -> Result<Recording, BaselineError> {
        let write_error = |source| BaselineError::Write {
            path: path.to_owned(),
            source,
        };
        let lock = lock_dir(&dir_of(path)).map_err(write_error)?;
        let current = Baseline::read_if_exists(path)?;
        let previous = current.as_ref().or(fallback);
        if let Some(previous) = previous {
            previous.check_recordable_in(path, config)?;
        }
        let recorded = record(previous);
        recorded.baseline.write(path)?;
        // Unlocked when `lock` closes.
        drop(lock);
        Ok(recorded)
    }

    /// Refuses to record the unnamed configuration (`config` none) into this baseline, read
    /// from `path`, when its entries name configurations: its entries would apply everywhere.
    fn check_recordable_in(&self, path: &Path, config: Option<&ConfigName>) -> Result<(), BaselineError> {
        let named = self.named_configs();
        if config.is_some() || named.is_empty() {
            return Ok(());
        }
        Err(BaselineError::UnnamedRecording {
            path: path.to_owned(),
            configs: named.iter().map(ConfigName::as_str).collect::<Vec<_>>().join(", "),
        })
    }

    /// Every configuration an entry names.
    fn named_configs(&self) -> BTreeSet<ConfigName> {
        let lists = self.expected.values().flat_map(|Entries(list)| list);
        lists.filter_map(|e| e.configs.as_ref()).flatten().cloned().collect()
    }

    /// Checks, before a run, that a baseline can be recorded into `path`: what is there is a
    /// baseline or nothing, a regular file, and the directory takes a new file.
    /// A missing parent directory is created (a configuration's baseline often has a
    /// directory of its own). The unnamed configuration (`config` none) is refused here, not
    /// after the run, when the file's entries name configurations.
    pub fn check_recordable(path: &Path, config: Option<&ConfigName>) -> Result<(), BaselineError> {
        std::fs::create_dir_all(dir_of(path)).map_err(|source| BaselineError::Write {
            path: path.to_owned(),
            source,
        })?;
        // The type first: a FIFO or a link is refused without being read through.
        crate::data::atomic_file::check_writable(path).map_err(|source| BaselineError::Write {
            path: path.to_owned(),
            source,
        })?;
        match Baseline::read_if_exists(path)? {
            Some(baseline) => baseline.check_recordable_in(path, config),
            None => Ok(()),
        }
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

    /// The baseline after a run over `roots` in `previous`'s configuration (none: a new
    /// baseline for the unnamed one): every data set of `ran` that failed or errored on a
    /// gating basis gets an entry in force, with the reason and link `previous` gives it, or
    /// else the first line of its message; an entry in force that still holds (the same
    /// status, or a crash it allows) is kept as it is. The entries of other configurations are
    /// untouched, and so are entries for data sets that did not run (a filter left them out)
    /// but `exists`; entries in force for no data set are dropped. An entry for every
    /// configuration that this one no longer matches stays for the other configurations the
    /// file names. It records the format (2 unless an entry needs 3), this tool's version and
    /// the version of each corpus the roots lie in.
    pub fn record<'a>(
        backend: &str,
        roots: &[DataRoot],
        ran: impl IntoIterator<Item = Ran<'a>>,
        previous: Option<&Baseline>,
        config: Option<&ConfigName>,
        exists: impl Fn(&str) -> bool,
    ) -> Recording {
        let mut counts = RecordCounts::default();
        let mut entries = previous.map(|b| b.expected.clone()).unwrap_or_default();
        let mut others = previous.map(Baseline::named_configs).unwrap_or_default();
        if let Some(config) = config {
            others.remove(config);
        }
        let mut run_names = HashSet::new();
        for ran in ran {
            run_names.insert(ran.name);
            let Entries(list) = entries.entry(ran.name.to_owned()).or_default();
            let in_force = list.iter().position(|e| e.applies_to(config));
            let failing = ran.gates && matches!(ran.status, Status::Failed | Status::Errored);
            let holds = in_force.is_some_and(|i| {
                let e = &list[i];
                (failing && e.status == ran.status)
                    // A crash it allows, or (listing `passed`) nothing that fails the run: what
                    // the gate judges agreeing with it.
                    || (e.intermittent_crash && (ran.crashed || (e.status == Status::Passed && !failing)))
            });
            if holds {
                continue;
            }
            let old = in_force.map(|i| narrow(list, i, config, &others));
            if !failing {
                counts.dropped += usize::from(old.is_some());
                continue;
            }
            let entry = Expectation {
                status: ran.status,
                configs: config.map(|c| vec![c.clone()]),
                intermittent_crash: false,
                ..old.unwrap_or_else(|| Expectation::new(ran.status, first_line(ran.message, 200)))
            };
            add(list, entry);
        }
        for (name, Entries(list)) in &mut entries {
            if !run_names.contains(name.as_str())
                && !exists(name)
                && let Some(i) = list.iter().position(|e| e.applies_to(config))
            {
                narrow(list, i, config, &others);
                counts.stale += 1;
            }
        }
        entries.retain(|_, Entries(list)| !list.is_empty());
        let mut versions = corpus_versions(roots);
        let corpus_version = match versions.len() {
            1 => versions.pop_first().map(|(_, v)| v),
            _ => None,
        };
        let needs_3 = entries
            .values()
            .any(|Entries(list)| list.len() > 1 || list.iter().any(Expectation::needs_format_3));
        let baseline = Baseline {
            format: Some(if needs_3 { BASELINE_FORMAT } else { PLAIN_FORMAT }),
            written_by: Some(format!("pad-conformance {}", env!("CARGO_PKG_VERSION"))),
            backend: backend.to_owned(),
            corpus_version,
            corpus_versions: versions,
            expected: entries,
            config: config.cloned(),
            ..Baseline::default()
        };
        for (_, entry) in baseline.entries_in_force() {
            match entry.status {
                _ if entry.intermittent_crash => counts.intermittent += 1,
                Status::Errored => counts.errored += 1,
                _ => counts.failed += 1,
            }
        }
        counts.other_configs = baseline.expected.values().flat_map(|Entries(l)| l).count() - counts.in_force();
        Recording { baseline, counts }
    }

    /// How one data set's outcome compares with the baseline: a failure that does not gate
    /// (a wrong answer on a basis the run does not gate on) is not judged; a difference on a data set that changed with the corpus
    /// since the baseline was written is the corpus's.
    pub fn gate(&self, outcome: &Outcome) -> GateResult {
        if outcome.is_non_gating_failure() {
            return GateResult::NotGating;
        }
        // A data set that cannot be loaded (a file whose checksum differs from the manifest's,
        // say) is broken, not changed: the corpus's changelog never excuses it.
        let unloadable = matches!(outcome.verdict, Some(Verdict::NotLoadable { .. }));
        self.finding_excused(&outcome.name(), outcome.status, crashed(outcome), !unloadable)
    }

    /// How a data set named `name` with `status` compares with its entry, if any (see
    /// [`Baseline::gate`], which also weighs the basis).
    pub fn finding(&self, name: &str, status: Status) -> GateResult {
        self.finding_excused(name, status, false, true)
    }

    /// [`Baseline::finding`] of a data set that `crashed` (or not), a change of the corpus
    /// excusing a difference only when `corpus_excuses`.
    fn finding_excused(&self, name: &str, status: Status, crashed: bool, corpus_excuses: bool) -> GateResult {
        let known = self.in_force(name);
        // A crash or timeout the entry allows is known, whatever the status it lists otherwise.
        if let Some(known) = known.filter(|k| k.intermittent_crash && crashed) {
            return GateResult::KnownFailure {
                reason: known.reason.clone(),
                tracking: known.tracking.as_ref().map(ToString::to_string),
            };
        }
        // Anything else is judged as without `intermittent_crash`: an entry that lists
        // `passed` lists nothing but the crash, so a wrong answer is a new failure, never a
        // changed status that only --strict would fail.
        let known = known.filter(|k| !(k.intermittent_crash && k.status == Status::Passed));
        let finding = match (status, known) {
            (Status::Failed | Status::Errored, Some(known)) if known.status != status => GateResult::ChangedStatus {
                was: known.status,
                reason: known.reason.clone(),
            },
            (Status::Failed | Status::Errored, Some(known)) => GateResult::KnownFailure {
                reason: known.reason.clone(),
                tracking: known.tracking.as_ref().map(ToString::to_string),
            },
            (Status::Failed | Status::Errored, None) => GateResult::NewFailure,
            // Listed, but the profile now declares it unsupported: the entry is outdated.
            (Status::Passed | Status::Unsupported, Some(known)) => GateResult::Fixed {
                was: known.status,
                reason: known.reason.clone(),
            },
            (Status::Unsupported, None) => GateResult::Agrees,
            (Status::Passed | Status::Skipped, _) => GateResult::Agrees,
        };
        let Some(why) = self.changed_with_corpus.get(name).filter(|_| corpus_excuses) else {
            return finding;
        };
        match finding {
            GateResult::ChangedStatus { was, .. } | GateResult::Fixed { was, .. } => GateResult::ChangedWithCorpus {
                was: Some(was),
                why: why.clone(),
            },
            GateResult::NewFailure => GateResult::ChangedWithCorpus {
                was: None,
                why: why.clone(),
            },
            other => other,
        }
    }

    /// The entries in force naming no data set: `exists` tells whether a name exists under
    /// the roots at all (before any filter). An entry of another configuration is inert, never stale.
    pub fn stale(&self, exists: impl Fn(&str) -> bool) -> Vec<String> {
        self.entries_in_force()
            .filter(|(name, _)| !exists(name))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Compares a run with this baseline. `discovered` tells whether a data set name exists
    /// under the roots at all: an entry the filter left out is not judged, so a baseline
    /// survives filters and added cases, but an entry for no data set is stale.
    pub fn judge(&self, outcomes: &[Outcome], discovered: impl Fn(&str) -> bool) -> GateSummary {
        let mut verdict = GateSummary::default();
        for outcome in outcomes {
            let name = outcome.name();
            match self.gate(outcome) {
                GateResult::NotGating => verdict.not_gating += 1,
                GateResult::ChangedStatus { was, .. } => verdict.changed_status.push(format!(
                    "{name}: expected {}, now {}",
                    was.name(),
                    outcome.status.name()
                )),
                GateResult::KnownFailure { .. } => verdict.expected_failures.push(name),
                GateResult::NewFailure => verdict.regressions.push(name),
                GateResult::Fixed { .. } => verdict.unexpected_passes.push(name),
                GateResult::ChangedWithCorpus { was, why } => verdict.corpus_changes.push(CorpusChange {
                    name,
                    was: was.map_or("passed", Status::name).to_owned(),
                    now: outcome.status,
                    why,
                }),
                GateResult::Agrees => verdict.agreeing += 1,
            }
        }
        verdict.stale = self.stale(discovered);
        verdict
    }
}

/// One data set of a run, as [`Baseline::record`] reads it.
#[derive(Clone, Copy, Debug)]
pub struct Ran<'a> {
    /// `onnx-1.22.0/node/test_wrap_pad/0`.
    pub name: &'a str,
    /// What happened.
    pub status: Status,
    /// Why, when it did not pass.
    pub message: &'a str,
    /// Whether a failure of it fails the run ([`Outcome::gates`]): its basis is one the run
    /// gates on, or the backend did not survive it.
    pub gates: bool,
    /// Whether it crashed or timed out (an entry may allow that as intermittent).
    pub crashed: bool,
}

impl<'a> Ran<'a> {
    /// `outcome`, named `name` (its [`Outcome::name`]).
    pub fn of(outcome: &'a Outcome, name: &'a str) -> Ran<'a> {
        Ran {
            name,
            status: outcome.status,
            message: &outcome.message,
            gates: outcome.gates,
            crashed: crashed(outcome),
        }
    }
}

/// Whether the data set's process crashed or timed out: the typed verdict says so.
fn crashed(outcome: &Outcome) -> bool {
    matches!(
        outcome.verdict,
        Some(Verdict::Failed {
            failure: Failure::Crash { .. } | Failure::Timeout,
            ..
        })
    )
}

/// The directory a file at `path` lies in (`.` for a bare name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Takes `config` out of entry `i` of `list` (none: the unnamed configuration, whose entries
/// apply everywhere), returning it as it was: an entry for every configuration stays for the
/// `others` the file names; an entry left with no configuration goes.
fn narrow(
    list: &mut Vec<Expectation>,
    i: usize,
    config: Option<&ConfigName>,
    others: &BTreeSet<ConfigName>,
) -> Expectation {
    let old = list[i].clone();
    let remaining: Vec<ConfigName> = match (&old.configs, config) {
        (Some(configs), Some(config)) => configs.iter().filter(|c| *c != config).cloned().collect(),
        (None, Some(_)) => others.iter().cloned().collect(),
        (_, None) => Vec::new(),
    };
    if remaining.is_empty() {
        list.remove(i);
    } else {
        list[i].configs = Some(remaining);
    }
    old
}

/// Adds `entry` to `list`, into an entry for other configurations that says the same (its
/// `configs` grows), else as an entry of its own.
fn add(list: &mut Vec<Expectation>, entry: Expectation) {
    let same = |e: &Expectation| {
        Expectation {
            configs: None,
            ..e.clone()
        } == Expectation {
            configs: None,
            ..entry.clone()
        }
    };
    match (&entry.configs, list.iter_mut().find(|e| e.configs.is_some() && same(e))) {
        (Some(new), Some(existing)) => {
            let configs = existing.configs.get_or_insert_default();
            configs.extend(new.iter().cloned());
            configs.sort();
            configs.dedup();
        }
        _ => list.push(entry),
    }
}

/// A recorded baseline, and what the recording did.
#[derive(Clone, Debug)]
pub struct Recording {
    /// What was written.
    pub baseline: Baseline,
    /// Its entries, per kind, and those the recording dropped.
    pub counts: RecordCounts,
}

/// The entries of a recording, per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordCounts {
    /// In force, failing with status `failed`.
    pub failed: usize,
    /// In force, errored.
    pub errored: usize,
    /// In force, allowing an intermittent crash.
    pub intermittent: usize,
    /// Dropped: the data set passes now.
    pub dropped: usize,
    /// Dropped: no such data set.
    pub stale: usize,
    /// Kept untouched: entries of other configurations only.
    pub other_configs: usize,
}

impl RecordCounts {
    /// The entries in force.
    pub fn in_force(&self) -> usize {
        self.failed + self.errored + self.intermittent
    }
}

impl Recording {
    /// `wrote baseline known.json (configuration debug): 3 known failures (2 failed, 1
    /// errored, 0 intermittent crashes); dropped 1 that pass now and 0 for no data set; kept 4
    /// entries of other configurations`: what the command line and the harness print.
    pub fn describe(&self, path: &Path) -> String {
        let c = &self.counts;
        let config = match &self.baseline.config {
            Some(config) => format!(" (configuration {config})"),
            None => String::new(),
        };
        let mut text = format!(
            "wrote baseline {}{config}: {} known failures ({} failed, {} errored, {} intermittent crashes); dropped {} that pass now and {} for no data set",
            crate::text::shown_path(path),
            c.in_force(),
            c.failed,
            c.errored,
            c.intermittent,
            c.dropped,
            c.stale
        );
        if c.other_configs > 0 {
            text.push_str(&format!("; kept {} entries of other configurations", c.other_configs));
        }
        text
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn outcome(id: &str, status: Status, message: &str) -> Outcome {
        Outcome {
            message: message.to_owned(),
            ..Outcome::example(id, status)
        }
    }

    #[test]
    fn two_recordings_into_one_file_at_once_lose_no_entry() {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("known.json");
        // Each recording ran one data set; the other exists and was not run by it.
        let recording = |id: &'static str| {
            let path = path.clone();
            move || {
                Baseline::record_into(&path, None, None, |previous| {
                    let run = [outcome(id, Status::Failed, "wrong")];
                    let names: Vec<String> = run.iter().map(Outcome::name).collect();
                    let ran = run.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
                    Baseline::record("x", &[], ran, previous, None, |_| true)
                })
                .unwrap()
            }
        };
        // The first holds the directory's lock while the second starts: the second can
        // read only once the first has written, whatever the threads' timing.
        let lock = crate::platform::lock_dir(dir.path()).unwrap();
        let second = std::thread::spawn(recording("b"));
        std::thread::sleep(std::time::Duration::from_millis(100));
        record(&[outcome("a", Status::Failed, "wrong")], None)
            .write(&path)
            .unwrap();
        drop(lock);
        second.join().unwrap();
        let both = Baseline::read(&path).unwrap();
        assert_eq!(both.expected.keys().collect::<Vec<_>>(), ["a/0", "b/0"]);
        recording("c")();
        assert_eq!(Baseline::read(&path).unwrap().expected.len(), 3);
    }

    /// Records `run` as a whole run (every name exists).
    fn record(run: &[Outcome], previous: Option<&Baseline>) -> Baseline {
        let names: Vec<String> = run.iter().map(Outcome::name).collect();
        let ran = run.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
        Baseline::record("x", &[], ran, previous, None, |_| true).baseline
    }

    #[test]
    fn judge_separates_expected_failures_regressions_and_unexpected_passes() {
        let run = [
            outcome("a", Status::Failed, "wrong values"),
            outcome("b", Status::Errored, "no kernel"),
            outcome("c", Status::Passed, ""),
            outcome("d", Status::Failed, "new bug"),
            outcome("e", Status::Skipped, "no Pad node"),
        ];
        let baseline = record(&run[..3], None);
        assert_eq!(baseline.expected.len(), 2);
        let mut with_c = baseline.clone();
        with_c.insert("c/0", Expectation::new(Status::Failed, "was broken"));
        let everything = |_: &str| true;
        let verdict = with_c.judge(&run, everything);
        assert_eq!(verdict.expected_failures, ["a/0", "b/0"]);
        assert_eq!(verdict.regressions, ["d/0"]);
        assert_eq!(verdict.unexpected_passes, ["c/0"]);
        assert!(verdict.fails(false, false));
        let fixed = record(&run, None).judge(&run, everything);
        assert!(!fixed.fails(true, false), "{fixed:?}");
        let only_unexpected_pass = with_c.judge(&run[..3], everything);
        assert!(!only_unexpected_pass.fails(false, false) && only_unexpected_pass.fails(true, false));
    }

    #[test]
    fn a_changed_status_or_an_entry_for_no_data_set_is_outdated() {
        let run = [
            outcome("a", Status::Failed, "wrong values"),
            outcome("b", Status::Errored, "x"),
        ];
        let mut baseline = record(&run, None);
        baseline.expected.get_mut("a/0").unwrap().0[0].status = Status::Errored;
        baseline.insert("gone/0", Expectation::new(Status::Failed, "renamed since"));
        let verdict = baseline.judge(&run, |name| name != "gone/0");
        assert_eq!(verdict.expected_failures, ["b/0"]);
        assert_eq!(verdict.changed_status, ["a/0: expected errored, now failed"]);
        assert_eq!(verdict.stale, ["gone/0"]);
        assert!(verdict.regressions.is_empty());
        assert!(!verdict.fails(false, false) && verdict.fails(true, false));
        let text = verdict.describe();
        assert!(
            text.starts_with(
                "baseline: 1 expected failures, 0 regressions, 0 unexpected passes, 1 changed status, 1 stale entries"
            ),
            "{text}"
        );
        assert!(
            text.contains("\n  stale entry, no such data set (remove it from the baseline): gone/0"),
            "{text}"
        );
        // A data set the filter left out is not judged, and not stale either.
        let filtered = baseline.judge(&run[1..], |_| true);
        assert!(!filtered.fails(true, false), "{filtered:?}");
    }

    #[test]
    fn failures_on_a_basis_the_run_does_not_gate_on_are_neither_recorded_nor_judged() {
        let mut rule = outcome("r", Status::Failed, "refuses reflect past the edge");
        rule.gates = false;
        let run = [outcome("a", Status::Failed, "wrong values"), rule];
        let baseline = record(&run, None);
        assert_eq!(baseline.expected.keys().collect::<Vec<_>>(), ["a/0"]);
        let verdict = Baseline::default().judge(&run, |_| true);
        assert_eq!(verdict.regressions, ["a/0"]);
    }

    #[test]
    fn a_different_verdict_on_a_data_set_the_corpus_changed_is_the_corpus_s() {
        let run = [
            outcome("now_refused", Status::Passed, ""),
            outcome("now_failing", Status::Failed, "x"),
            outcome("regressed", Status::Failed, "y"),
        ];
        let mut baseline = Baseline::default();
        baseline.insert("now_refused/0", Expectation::new(Status::Failed, "was expected to pad"));
        baseline.changed_with_corpus = ["now_refused/0", "now_failing/0"]
            .map(|name| (name.to_owned(), format!("why {name}")))
            .into();
        let verdict = baseline.judge(&run, |_| true);
        let changes: Vec<String> = verdict.corpus_changes.iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "now_refused/0: was failed, now passed (why now_refused/0)",
                "now_failing/0: was passed, now failed (why now_failing/0)"
            ]
        );
        assert_eq!(verdict.total(), run.len());
        assert_eq!(verdict.regressions, ["regressed/0"]);
        assert!(verdict.unexpected_passes.is_empty());
        assert!(verdict.describe().contains("2 changed with the corpus"));
        let without_regression = baseline.judge(&run[..2], |_| true);
        assert!(!without_regression.fails(true, false));
        assert!(without_regression.fails(true, true));
        // A changed data set that cannot even be loaded (its file no longer has the manifest's
        // checksum) is broken, not changed: a regression, whatever the changelog says.
        let broken = Outcome {
            verdict: Some(Verdict::NotLoadable {
                detail: "output_0.pb: its sha256 differs from MANIFEST.tsv's".into(),
            }),
            ..outcome("now_failing", Status::Errored, "its sha256 differs")
        };
        assert_eq!(baseline.gate(&broken), GateResult::NewFailure);
    }

    #[test]
    fn recording_keeps_existing_reasons() {
        let run = [
            outcome("a", Status::Failed, "first line\nsecond line"),
            outcome("b", Status::Errored, "boom"),
        ];
        let mut previous = Baseline::default();
        previous.insert("a/0", Expectation::new(Status::Failed, "edited by hand"));
        let recorded = record(&run, Some(&previous));
        assert_eq!(recorded.in_force("a/0").unwrap().reason, "edited by hand");
        assert_eq!(recorded.in_force("b/0").unwrap().reason, "boom");
        assert_eq!(recorded.in_force("b/0").unwrap().status, Status::Errored);
        let text = serde_json::to_string(&recorded).unwrap();
        assert_eq!(serde_json::from_str::<Baseline>(&text).unwrap(), recorded);
    }

    /// Recording 10,000 failures over a baseline of 5,000 entries, then judging a run of them:
    /// every entry is found in a map, none by a scan (which would take seconds). The full size
    /// is the ignored test below.
    #[test]
    fn large_baselines_are_merged_and_judged_by_name() {
        baselines_are_merged_and_judged_by_name(10_000);
    }

    /// The check above at 100,000 failures, which a scan would take minutes over (half a
    /// second of `cargo test` time: .ci/run runs it).
    #[test]
    #[ignore = "slow: run by .ci/run"]
    fn baselines_of_a_hundred_thousand_entries_are_merged_and_judged_by_name() {
        baselines_are_merged_and_judged_by_name(100_000);
    }

    /// `n` failures recorded over a baseline of the first half, then judged.
    fn baselines_are_merged_and_judged_by_name(n: usize) {
        let run: Vec<Outcome> = (0..n).map(|i| outcome(&format!("c{i}"), Status::Failed, "x")).collect();
        let previous = record(&run[..n / 2], None);
        let recorded = record(&run, Some(&previous));
        assert_eq!(recorded.expected.len(), n);
        let mut next = run;
        next[n - 1].status = Status::Passed;
        let verdict = recorded.judge(&next, |_| true);
        assert_eq!(verdict.expected_failures.len(), n - 1);
        assert_eq!(verdict.unexpected_passes, [format!("c{}/0", n - 1)]);
    }

    #[test]
    fn recording_a_filtered_run_keeps_the_entries_of_data_sets_not_run() {
        let mut previous = Baseline::default();
        for name in ["a/0", "elsewhere/0", "gone/0"] {
            previous.insert(name, Expectation::new(Status::Failed, format!("{name} by hand")));
        }
        // a/0 ran and passed: dropped. elsewhere/0 did not run and exists: kept. gone/0
        // names no data set: dropped. b/0 is new.
        let ran = [
            Ran {
                name: "a/0",
                status: Status::Passed,
                message: "",
                gates: true,
                crashed: false,
            },
            Ran {
                name: "b/0",
                status: Status::Errored,
                message: "boom\nmore",
                gates: true,
                crashed: false,
            },
        ];
        let recorded = Baseline::record("x", &[], ran, Some(&previous), None, |name| name != "gone/0").baseline;
        let entries: Vec<(&str, &str)> = recorded
            .entries_in_force()
            .map(|(name, e)| (name.as_str(), e.reason.as_str()))
            .collect();
        assert_eq!(entries, [("b/0", "boom"), ("elsewhere/0", "elsewhere/0 by hand")]);
    }
}

#[cfg(test)]
mod config_tests {
    use super::*;

    fn config(name: &str) -> Option<ConfigName> {
        Some(ConfigName::new(name).unwrap())
    }

    fn written(text: &str) -> Result<Baseline, BaselineError> {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("known.json");
        std::fs::write(&path, text).unwrap();
        Baseline::read(&path)
    }

    /// A format-3 file: one data set failing in debug and errored in release, one failing
    /// everywhere, one that crashes at random in release only.
    const THREE: &str = r#"{"format": 3, "backend": "x", "expected": {
        "a/0": [{"status": "failed", "reason": "overflow wraps", "configs": ["release"]},
                {"status": "errored", "reason": "overflow panics", "configs": ["debug"], "tracking": "https://bugs.example/7"}],
        "b/0": {"status": "failed", "reason": "no wrap"},
        "c/0": {"status": "passed", "reason": "heap corruption", "configs": ["release"], "intermittent_crash": true}
    }}"#;

    #[test]
    fn entries_apply_in_the_configurations_they_list_and_are_inert_elsewhere() {
        let baseline = written(THREE).unwrap();
        let debug = baseline.clone().for_config(config("debug"));
        let release = baseline.clone().for_config(config("release"));
        let unnamed = baseline.for_config(None);
        assert_eq!(debug.in_force("a/0").unwrap().reason, "overflow panics");
        assert_eq!(release.in_force("a/0").unwrap().reason, "overflow wraps");
        assert!(unnamed.in_force("a/0").is_none());
        assert_eq!(unnamed.in_force("b/0").unwrap().reason, "no wrap");
        assert!(matches!(
            debug.finding("a/0", Status::Errored),
            GateResult::KnownFailure { tracking: Some(link), .. } if link == "https://bugs.example/7"
        ));
        assert!(matches!(
            release.finding("a/0", Status::Errored),
            GateResult::ChangedStatus { .. }
        ));
        assert_eq!(unnamed.finding("a/0", Status::Failed), GateResult::NewFailure);
        // An entry of another configuration is inert, not stale; one in force for no data set is.
        assert_eq!(debug.stale(|name| name != "c/0"), Vec::<String>::new());
        assert_eq!(release.stale(|name| name != "c/0"), ["c/0"]);
        assert_eq!(debug.untracked(|_| true), ["b/0"]);
    }

    #[test]
    fn an_intermittent_crash_is_known_and_every_other_outcome_judged_as_usual() {
        let release = written(THREE).unwrap().for_config(config("release"));
        let crash = Outcome {
            verdict: Some(Verdict::Failed {
                failure: Failure::Crash {
                    code: None,
                    signal: Some(11),
                },
                detail: "SIGSEGV".into(),
                must_refuse: false,
            }),
            ..Outcome::example("c", Status::Errored)
        };
        assert!(matches!(release.gate(&crash), GateResult::KnownFailure { .. }));
        let timeout = Outcome {
            verdict: Some(failed(Failure::Timeout)),
            ..Outcome::example("c", Status::Errored)
        };
        assert!(matches!(release.gate(&timeout), GateResult::KnownFailure { .. }));
        assert_eq!(release.gate(&Outcome::example("c", Status::Passed)), GateResult::Agrees);
        // A wrong answer is judged as without the entry's flag: the entry lists nothing but
        // the crash, so it is a new failure, which fails the run without --strict.
        let wrong = Outcome {
            verdict: Some(Verdict::Mismatch {
                shape: false,
                report: "1 of 4 elements differ".into(),
                deviation: None,
            }),
            ..Outcome::example("c", Status::Failed)
        };
        assert_eq!(release.gate(&wrong), GateResult::NewFailure);
        let summary = release.judge(std::slice::from_ref(&wrong), |_| true);
        assert_eq!(summary.regressions, ["c/0"]);
        assert!(summary.fails(false, false));
        // A panic, a refusal of a valid input: no crash either.
        let panicked = Outcome {
            verdict: Some(failed(Failure::Panic)),
            ..Outcome::example("c", Status::Errored)
        };
        assert_eq!(release.gate(&panicked), GateResult::NewFailure);
        // In debug the entry is inert: the crash is a regression.
        let debug = written(THREE).unwrap().for_config(config("debug"));
        assert_eq!(debug.gate(&crash), GateResult::NewFailure);
    }

    fn failed(failure: Failure) -> Verdict {
        Verdict::Failed {
            failure,
            detail: "x".into(),
            must_refuse: false,
        }
    }

    #[test]
    fn an_intermittent_entry_listing_a_failure_excuses_the_crash_and_judges_the_rest_by_its_status() {
        let baseline = written(
            r#"{"format": 3, "expected": {"w/0": {"status": "failed", "reason": "wraps; crashes at random", "intermittent_crash": true}}}"#,
        )
        .unwrap();
        let crash = Outcome {
            verdict: Some(failed(Failure::Crash {
                code: None,
                signal: Some(6),
            })),
            ..Outcome::example("w", Status::Errored)
        };
        assert!(matches!(baseline.gate(&crash), GateResult::KnownFailure { .. }));
        assert!(matches!(
            baseline.gate(&Outcome::example("w", Status::Failed)),
            GateResult::KnownFailure { .. }
        ));
        // Errored without a crash (a reported failure): the status it lists is not this one.
        let reported = Outcome {
            verdict: Some(failed(Failure::Reported)),
            ..Outcome::example("w", Status::Errored)
        };
        assert!(matches!(
            baseline.gate(&reported),
            GateResult::ChangedStatus {
                was: Status::Failed,
                ..
            }
        ));
        assert!(matches!(
            baseline.gate(&Outcome::example("w", Status::Passed)),
            GateResult::Fixed {
                was: Status::Failed,
                ..
            }
        ));
    }

    #[test]
    fn recording_keeps_an_intermittent_entry_unless_something_else_than_a_crash_fails_the_run() {
        let previous = written(THREE).unwrap();
        let release = config("release");
        // A failure on a basis the run does not gate on is not the entry's business: kept.
        let quiet = Ran {
            gates: false,
            ..ran("c/0", Status::Failed)
        };
        let kept = Baseline::record("x", &[], [quiet], Some(&previous), release.as_ref(), |_| true);
        assert_eq!(kept.baseline.expected["c/0"], previous.expected["c/0"]);
        // A wrong answer that gates replaces it with a plain failure, the reason kept.
        let recorded = Baseline::record(
            "x",
            &[],
            [ran("c/0", Status::Failed)],
            Some(&previous),
            release.as_ref(),
            |_| true,
        );
        let c = &recorded.baseline.expected["c/0"].0;
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].status, c[0].intermittent_crash, c[0].reason.as_str()),
            (Status::Failed, false, "heap corruption")
        );
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

    fn ran(name: &'static str, status: Status) -> Ran<'static> {
        Ran {
            name,
            status,
            message: "new message",
            gates: true,
            crashed: false,
        }
    }

    #[test]
    fn recording_a_configuration_touches_only_its_own_entries_and_counts_them() {
        let previous = written(THREE).unwrap();
        // Release: a/0 now passes, b/0 still fails, c/0 crashes (allowed), d/0 is new.
        let run = [
            ran("a/0", Status::Passed),
            ran("b/0", Status::Failed),
            Ran {
                crashed: true,
                ..ran("c/0", Status::Errored)
            },
            ran("d/0", Status::Errored),
        ];
        let release = config("release");
        let recorded = Baseline::record("x", &[], run, Some(&previous), release.as_ref(), |_| true);
        let b = &recorded.baseline;
        assert_eq!(b.format, Some(3));
        // debug's entry of a/0 is untouched; release's is dropped.
        assert_eq!(b.expected["a/0"].0.len(), 1);
        assert_eq!(b.expected["a/0"].0[0].reason, "overflow panics");
        assert_eq!(b.expected["b/0"], previous.expected["b/0"]);
        assert_eq!(b.expected["c/0"], previous.expected["c/0"]);
        let d = &b.expected["d/0"].0[0];
        assert_eq!((d.status, d.reason.as_str()), (Status::Errored, "new message"));
        assert_eq!(d.configs, Some(vec![ConfigName::new("release").unwrap()]));
        let counts = RecordCounts {
            failed: 1,
            errored: 1,
            intermittent: 1,
            dropped: 1,
            stale: 0,
            other_configs: 1,
        };
        assert_eq!(recorded.counts, counts);
        assert_eq!(
            recorded.describe(Path::new("k.json")),
            "wrote baseline k.json (configuration release): 3 known failures (1 failed, 1 errored, 1 intermittent crashes); dropped 1 that pass now and 0 for no data set; kept 1 entries of other configurations"
        );
        // Debug now errs on d/0 the same way, with release's reason: one entry for both.
        let again = Baseline::record(
            "x",
            &[],
            [ran("d/0", Status::Errored)],
            Some(b),
            config("debug").as_ref(),
            |_| true,
        );
        let d = &again.baseline.expected["d/0"].0;
        assert_eq!(d.len(), 1);
        let names: Vec<&str> = d[0].configs.iter().flatten().map(ConfigName::as_str).collect();
        assert_eq!(names, ["debug", "release"]);
    }

    #[test]
    fn an_entry_for_every_configuration_that_one_contradicts_stays_for_the_others() {
        let previous = written(THREE).unwrap();
        // b/0 (every configuration) passes in debug: it stays for release, the other named.
        let recorded = Baseline::record(
            "x",
            &[],
            [ran("b/0", Status::Passed)],
            Some(&previous),
            config("debug").as_ref(),
            |_| true,
        );
        let b = &recorded.baseline.expected["b/0"].0;
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].configs, Some(vec![ConfigName::new("release").unwrap()]));
        assert_eq!(b[0].reason, "no wrap");
        assert_eq!(recorded.counts.dropped, 1);
    }

    #[test]
    fn a_file_that_needs_nothing_of_format_3_is_written_as_2_and_the_unnamed_configuration_does_not_record_into_one_that_does()
     {
        let plain = Baseline::record("x", &[], [ran("a/0", Status::Failed)], None, None, |_| true);
        assert_eq!(plain.baseline.format, Some(2));
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("new/dir/known.json");
        Baseline::check_recordable(&path, None).unwrap();
        std::fs::write(&path, THREE).unwrap();
        // Refused before a run, and, should the file change during it, when it is recorded.
        let before = Baseline::check_recordable(&path, None).unwrap_err();
        assert!(matches!(before, BaselineError::UnnamedRecording { .. }), "{before}");
        Baseline::check_recordable(&path, config("debug").as_ref()).unwrap();
        let error = Baseline::record_into(&path, None, None, |_| unreachable!("not recorded")).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("known.json: its entries name configurations (debug, release); record it with a configuration (--config NAME, Harness::config)"),
            "{error}"
        );
    }
}
