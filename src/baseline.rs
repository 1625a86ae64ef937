//! Baselines: the known failures of a backend, with reasons, so that a run fails only on
//! regressions. An expected failure that passes is reported (and fails the run under
//! `--strict`), so a baseline cannot go stale unnoticed.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::{Outcome, Status};
use crate::json_file::{JsonFileError, read_json};
use crate::report::first_line;

/// A baseline file: data set name (`onnx-1.22.0/node/test_wrap_pad/0`) → expectation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// The backend the baseline was recorded for (informative).
    #[serde(default)]
    pub backend: String,
    /// The known failures, by data set name.
    pub expected: BTreeMap<String, Expectation>,
}

/// A baseline file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file cannot be read, or is not a baseline: not JSON, or not of its shape.
    #[error(transparent)]
    Read(#[from] JsonFileError),
    /// The file cannot be written.
    #[error("writing {}: {source}", path.display())]
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
pub enum Discovered {
    /// Every data set name under the roots.
    All(HashSet<String>),
    /// Custom patterns: the names are not all known.
    Partial,
}

impl Discovered {
    /// The names of `cases`' data sets, or `Partial` under custom patterns.
    pub fn new(cases: &[crate::case::TestCase], custom_patterns: bool) -> Discovered {
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
    pub fn contains(&self, name: &str) -> bool {
        match self {
            Discovered::All(names) => names.contains(name),
            Discovered::Partial => true,
        }
    }
}

/// How a run compares with a baseline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
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
}

impl Verdict {
    /// True when the run should fail: a regression, or under `strict` any difference from
    /// the baseline (an unexpected pass, a changed status, an entry for no data set).
    pub fn fails(&self, strict: bool) -> bool {
        let outdated = !self.unexpected_passes.is_empty() || !self.changed_status.is_empty() || !self.stale.is_empty();
        !self.regressions.is_empty() || (strict && outdated)
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
        text
    }
}

impl Baseline {
    /// Reads a baseline file.
    pub fn read(path: &Path) -> Result<Baseline, BaselineError> {
        Ok(read_json(path)?)
    }

    /// Reads a baseline file if there is one: `None` when nothing is at `path`; a file that
    /// is there but unreadable or malformed is an error, so that it is never overwritten as
    /// if it were absent.
    pub fn read_if_exists(path: &Path) -> Result<Option<Baseline>, BaselineError> {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            _ => Baseline::read(path).map(Some),
        }
    }

    /// Writes the baseline as pretty JSON, entries sorted by name, whole or not at all.
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        let text = serde_json::to_string_pretty(self).expect("a baseline serializes");
        crate::atomic_file::write_atomically(path, (text + "\n").as_bytes()).map_err(|source| BaselineError::Write {
            path: path.to_owned(),
            source,
        })
    }

    /// The baseline of a run: every failed or errored data set, keeping the reasons of
    /// `previous` where it has the same entry.
    pub fn record(backend: &str, outcomes: &[Outcome], previous: Option<&Baseline>) -> Baseline {
        let expected = outcomes
            .iter()
            .filter(|o| matches!(o.status, Status::Failed | Status::Errored))
            .map(|o| {
                let name = o.name();
                let reason = previous
                    .and_then(|b| b.expected.get(&name))
                    .map(|e| e.reason.clone())
                    .unwrap_or_else(|| first_line(&o.message, 200));
                (
                    name,
                    Expectation {
                        status: o.status,
                        reason,
                    },
                )
            })
            .collect();
        Baseline {
            backend: backend.to_owned(),
            expected,
        }
    }

    /// How one data set's status compares with its entry, if any.
    pub fn finding(&self, name: &str, status: Status) -> Finding<'_> {
        match (status, self.expected.get(name)) {
            (Status::Failed | Status::Errored, Some(known)) if known.status != status => Finding::ChangedStatus(known),
            (Status::Failed | Status::Errored, Some(_)) => Finding::ExpectedFailure,
            (Status::Failed | Status::Errored, None) => Finding::Regression,
            (Status::Passed, Some(known)) => Finding::UnexpectedPass(known),
            (Status::Passed | Status::Skipped, _) => Finding::Agrees,
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
    pub fn judge(&self, outcomes: &[Outcome], discovered: impl Fn(&str) -> bool) -> Verdict {
        let mut verdict = Verdict::default();
        for outcome in outcomes {
            let name = outcome.name();
            match self.finding(&name, outcome.status) {
                Finding::ChangedStatus(known) => verdict.changed_status.push(format!(
                    "{name}: expected {}, now {}",
                    known.status.name(),
                    outcome.status.name()
                )),
                Finding::ExpectedFailure => verdict.expected_failures.push(name),
                Finding::Regression => verdict.regressions.push(name),
                Finding::UnexpectedPass(_) => verdict.unexpected_passes.push(name),
                Finding::Agrees => {}
            }
        }
        verdict.stale = self.stale(discovered);
        verdict
    }
}

/// How one data set's outcome compares with a baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Finding<'a> {
    /// Passed (or skipped) and not listed: nothing to say.
    Agrees,
    /// Failed or errored, as listed.
    ExpectedFailure,
    /// Failed or errored, not listed.
    Regression,
    /// Listed, but passed.
    UnexpectedPass(&'a Expectation),
    /// Listed with the other of failed and errored.
    ChangedStatus(&'a Expectation),
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn outcome(id: &str, status: Status, message: &str) -> Outcome {
        Outcome {
            id: id.to_owned(),
            data_set: 0,
            op: Some("Pad".into()),
            domain: Some("ai.onnx".into()),
            version: Some(19),
            mode: None,
            dtype: None,
            status,
            message: message.to_owned(),
            bit_exact: None,
            max_abs_error: None,
            max_rel_error: None,
            mismatches: 0,
            duration: Duration::ZERO,
        }
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
        let baseline = Baseline::record("x", &run[..3], None);
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
        assert!(verdict.fails(false));
        let fixed = Baseline::record("x", &run, None).judge(&run, everything);
        assert!(!fixed.fails(true), "{fixed:?}");
        let only_unexpected_pass = with_c.judge(&run[..3], everything);
        assert!(!only_unexpected_pass.fails(false) && only_unexpected_pass.fails(true));
    }

    #[test]
    fn a_changed_status_or_an_entry_for_no_data_set_is_outdated() {
        let run = [
            outcome("a", Status::Failed, "wrong values"),
            outcome("b", Status::Errored, "x"),
        ];
        let mut baseline = Baseline::record("x", &run, None);
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
        assert!(!verdict.fails(false) && verdict.fails(true));
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
        assert!(!filtered.fails(true), "{filtered:?}");
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
        let recorded = Baseline::record("x", &run, Some(&previous));
        assert_eq!(recorded.expected["a/0"].reason, "edited by hand");
        assert_eq!(recorded.expected["b/0"].reason, "boom");
        assert_eq!(recorded.expected["b/0"].status, Status::Errored);
        let text = serde_json::to_string(&recorded).unwrap();
        assert_eq!(serde_json::from_str::<Baseline>(&text).unwrap(), recorded);
    }
}
