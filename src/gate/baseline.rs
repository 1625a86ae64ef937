//! Baselines: the known failures of a backend, with reasons, so that a run fails only on
//! regressions. An expected failure that passes is reported (and fails the run under
//! `--strict`), so a baseline cannot go stale unnoticed.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::data::json_file::{JsonFileError, read_json};
use crate::data::side_file::MAX_BASELINE_BYTES;
use crate::data::{DataRoot, corpus_name, corpus_versions};
use crate::judge::check::{Outcome, Status};
pub(crate) use crate::judge::gate_result::GateResult;
use crate::judge::verdict::Verdict;
use crate::platform::lock_dir;
use crate::text::first_line;

/// The baseline file format this version writes: 2 added `format`, `written_by` and the
/// corpus versions; a file without `format` is format 1 and still reads.
pub(crate) const BASELINE_FORMAT: u32 = 2;

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
    /// The known failures, by data set name.
    pub expected: BTreeMap<String, Expectation>,
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

/// A known failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    /// `failed` or `errored`.
    pub status: Status,
    /// Why: kept across `--write-baseline` runs, so people can edit it.
    pub reason: String,
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
}

impl GateSummary {
    /// True when the run should fail: a regression, or under `strict` any difference from
    /// the baseline (an unexpected pass, a changed status, an entry for no data set); a
    /// verdict that changed with the corpus only under `strict_corpus`.
    pub fn fails(&self, strict: bool, strict_corpus: bool) -> bool {
        let outdated = !self.unexpected_passes.is_empty() || !self.changed_status.is_empty() || !self.stale.is_empty();
        !self.regressions.is_empty() || (strict && outdated) || (strict_corpus && !self.corpus_changes.is_empty())
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
            _ => Ok(baseline),
        }
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
    /// directory takes no lock, on `.pad-conformance.lock` in it: [`lock_dir`].)
    pub fn record_into(
        path: &Path,
        fallback: Option<&Baseline>,
        record: impl FnOnce(Option<&Baseline>) -> Baseline,
    ) -> Result<Baseline, BaselineError> {
        let write_error = |source| BaselineError::Write {
            path: path.to_owned(),
            source,
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let lock = lock_dir(dir).map_err(write_error)?;
        let current = Baseline::read_if_exists(path)?;
        let recorded = record(current.as_ref().or(fallback));
        recorded.write(path)?;
        // Unlocked when `lock` closes.
        drop(lock);
        Ok(recorded)
    }

    /// Checks, before a run, that a baseline can be recorded into `path`: what is there is a
    /// baseline or nothing, a regular file, and the directory takes a new file.
    pub fn check_recordable(path: &Path) -> Result<(), BaselineError> {
        // The type first: a FIFO or a link is refused without being read through.
        crate::data::atomic_file::check_writable(path).map_err(|source| BaselineError::Write {
            path: path.to_owned(),
            source,
        })?;
        Baseline::read_if_exists(path).map(drop)
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

    /// The baseline after a run over `roots`: every data set of `ran` that failed or
    /// errored on a gating basis, with the reason `previous` gives it, or else the first line
    /// of its message; and the entries of `previous` for data sets that did not run (a filter
    /// left them out) but `exists`, so recording a filtered run keeps them. Entries for no
    /// data set at all are dropped. It records the format, this tool's version and the
    /// version of each corpus the roots lie in.
    pub fn record<'a>(
        backend: &str,
        roots: &[DataRoot],
        ran: impl IntoIterator<Item = Ran<'a>>,
        previous: Option<&Baseline>,
        exists: impl Fn(&str) -> bool,
    ) -> Baseline {
        let mut run_names = HashSet::new();
        let mut expected = BTreeMap::new();
        for Ran {
            name,
            status,
            message,
            gates,
        } in ran
        {
            run_names.insert(name);
            // A failure on a basis the run does not gate on needs no entry.
            if !gates || !matches!(status, Status::Failed | Status::Errored) {
                continue;
            }
            let reason = previous
                .and_then(|b| b.expected.get(name))
                .map(|e| e.reason.clone())
                .unwrap_or_else(|| first_line(message, 200));
            expected.insert(name.to_owned(), Expectation { status, reason });
        }
        for (name, entry) in previous.map(|b| &b.expected).into_iter().flatten() {
            if !run_names.contains(name.as_str()) && exists(name) {
                expected.insert(name.clone(), entry.clone());
            }
        }
        let mut versions = corpus_versions(roots);
        let corpus_version = match versions.len() {
            1 => versions.pop_first().map(|(_, v)| v),
            _ => None,
        };
        Baseline {
            format: Some(BASELINE_FORMAT),
            written_by: Some(format!("pad-conformance {}", env!("CARGO_PKG_VERSION"))),
            backend: backend.to_owned(),
            corpus_version,
            corpus_versions: versions,
            expected,
            ..Baseline::default()
        }
    }

    /// How one data set's outcome compares with the baseline: a failure on a basis the run
    /// does not gate on is not judged; a difference on a data set that changed with the corpus
    /// since the baseline was written is the corpus's.
    pub fn gate(&self, outcome: &Outcome) -> GateResult {
        if outcome.is_non_gating_failure() {
            return GateResult::NotGating;
        }
        // A data set that cannot be loaded (a file whose checksum differs from the manifest's,
        // say) is broken, not changed: the corpus's changelog never excuses it.
        let unloadable = matches!(outcome.verdict, Some(Verdict::NotLoadable { .. }));
        self.finding_excused(&outcome.name(), outcome.status, !unloadable)
    }

    /// How a data set named `name` with `status` compares with its entry, if any (see
    /// [`Baseline::gate`], which also weighs the basis).
    pub fn finding(&self, name: &str, status: Status) -> GateResult {
        self.finding_excused(name, status, true)
    }

    /// [`Baseline::finding`], a change of the corpus excusing a difference only when
    /// `corpus_excuses`.
    fn finding_excused(&self, name: &str, status: Status, corpus_excuses: bool) -> GateResult {
        let finding = match (status, self.expected.get(name)) {
            (Status::Failed | Status::Errored, Some(known)) if known.status != status => GateResult::ChangedStatus {
                was: known.status,
                reason: known.reason.clone(),
            },
            (Status::Failed | Status::Errored, Some(known)) => GateResult::KnownFailure {
                reason: known.reason.clone(),
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

    /// The entries naming no data set: `exists` tells whether a name exists under the roots
    /// at all (before any filter).
    pub fn stale(&self, exists: impl Fn(&str) -> bool) -> Vec<String> {
        self.expected.keys().filter(|name| !exists(name)).cloned().collect()
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
    /// Whether its basis is one the run gates on.
    pub gates: bool,
}

impl<'a> Ran<'a> {
    /// `outcome`, named `name` (its [`Outcome::name`]).
    pub fn of(outcome: &'a Outcome, name: &'a str) -> Ran<'a> {
        Ran {
            name,
            status: outcome.status,
            message: &outcome.message,
            gates: outcome.gates,
        }
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
                Baseline::record_into(&path, None, |previous| {
                    let run = [outcome(id, Status::Failed, "wrong")];
                    let names: Vec<String> = run.iter().map(Outcome::name).collect();
                    let ran = run.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
                    Baseline::record("x", &[], ran, previous, |_| true)
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
        Baseline::record("x", &[], ran, previous, |_| true)
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
        with_c.expected.insert(
            "c/0".into(),
            Expectation {
                status: Status::Failed,
                reason: "was broken".into(),
            },
        );
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
        baseline.expected.get_mut("a/0").unwrap().status = Status::Errored;
        baseline.expected.insert(
            "gone/0".into(),
            Expectation {
                status: Status::Failed,
                reason: "renamed since".into(),
            },
        );
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
        baseline.expected.insert(
            "now_refused/0".into(),
            Expectation {
                status: Status::Failed,
                reason: "was expected to pad".into(),
            },
        );
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
        previous.expected.insert(
            "a/0".into(),
            Expectation {
                status: Status::Failed,
                reason: "edited by hand".into(),
            },
        );
        let recorded = record(&run, Some(&previous));
        assert_eq!(recorded.expected["a/0"].reason, "edited by hand");
        assert_eq!(recorded.expected["b/0"].reason, "boom");
        assert_eq!(recorded.expected["b/0"].status, Status::Errored);
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
            previous.expected.insert(
                name.into(),
                Expectation {
                    status: Status::Failed,
                    reason: format!("{name} by hand"),
                },
            );
        }
        // a/0 ran and passed: dropped. elsewhere/0 did not run and exists: kept. gone/0
        // names no data set: dropped. b/0 is new.
        let ran = [
            Ran {
                name: "a/0",
                status: Status::Passed,
                message: "",
                gates: true,
            },
            Ran {
                name: "b/0",
                status: Status::Errored,
                message: "boom\nmore",
                gates: true,
            },
        ];
        let recorded = Baseline::record("x", &[], ran, Some(&previous), |name| name != "gone/0");
        let entries: Vec<(&str, &str)> = recorded
            .expected
            .iter()
            .map(|(name, e)| (name.as_str(), e.reason.as_str()))
            .collect();
        assert_eq!(entries, [("b/0", "boom"), ("elsewhere/0", "elsewhere/0 by hand")]);
    }
}
