//! Weighing a run against a baseline: each data set's gate result ([`Baseline::gate`]) and the
//! run's summary of them ([`GateSummary::of`]). An expected failure that passes is reported (and fails
//! the run under `--strict`), so a baseline cannot go stale unnoticed.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::baseline::Baseline;
use crate::gate::gate_result::GateResult;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::{Failure, Verdict};

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
    /// Refused as they must be, not listed, but their valid twins did not pass: never
    /// regressions; they fail the run only under `require_verified`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_verified: Vec<String>,
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
    /// The run was judged with `--require-verified`: a refusal not verified fails it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_verified: bool,
}

impl GateSummary {
    /// The sum of a run's gate results, each decided once per data set ([`Baseline::gate`], as
    /// the data set finished) and carried in `gated` beside its outcome, with the baseline's
    /// `stale` entries; the strict flags and untracked entries are the run's to add.
    pub(crate) fn of<'a>(
        gated: impl IntoIterator<Item = (&'a Outcome, &'a GateResult)>,
        stale: Vec<String>,
    ) -> GateSummary {
        let mut verdict = GateSummary::default();
        for (outcome, gate) in gated {
            let name = outcome.name();
            match gate {
                GateResult::NotGating => verdict.not_gating += 1,
                GateResult::ChangedStatus { was, .. } => verdict.changed_status.push(format!(
                    "{name}: expected {}, now {}",
                    was.name(),
                    outcome.status().name()
                )),
                GateResult::KnownFailure { .. } => verdict.expected_failures.push(name),
                GateResult::NewFailure => verdict.regressions.push(name),
                GateResult::NotVerified => verdict.not_verified.push(name),
                GateResult::Fixed { .. } => verdict.unexpected_passes.push(name),
                GateResult::ChangedWithCorpus { was, why } => verdict.corpus_changes.push(CorpusChange {
                    name,
                    was: was.map_or("passed", Status::name).to_owned(),
                    now: outcome.status(),
                    why: why.clone(),
                }),
                GateResult::Agrees => verdict.agreeing += 1,
            }
        }
        verdict.stale = stale;
        verdict
    }

    /// True when the run should fail: a regression, or under `strict` any difference from
    /// the baseline (an unexpected pass, a changed status, an entry for no data set); a
    /// verdict that changed with the corpus only under `strict_corpus`; an untracked known
    /// failure or a refusal not verified only when the run was judged to require them.
    pub fn fails(&self, strict: bool, strict_corpus: bool) -> bool {
        let outdated = !self.unexpected_passes.is_empty() || !self.changed_status.is_empty() || !self.stale.is_empty();
        !self.regressions.is_empty()
            || (strict && outdated)
            || (strict_corpus && !self.corpus_changes.is_empty())
            || (self.require_tracking && !self.untracked.is_empty())
            || (self.require_verified && !self.not_verified.is_empty())
    }

    /// Whether one data set's gate result fails the run, under this run's strict flags.
    pub fn fails_data_set(&self, gate: &GateResult) -> bool {
        gate.fails(self.strict, self.strict_corpus, self.require_verified)
    }

    /// The data sets judged: every count above, which add up to the run's data sets.
    pub fn total(&self) -> usize {
        self.expected_failures.len()
            + self.regressions.len()
            + self.unexpected_passes.len()
            + self.changed_status.len()
            + self.corpus_changes.len()
            + self.not_verified.len()
            + self.agreeing
            + self.not_gating
    }

    /// `baseline: 3 expected failures, 0 regressions, 1 unexpected passes`, then the names
    /// ([`GateSummary::attention`]).
    pub fn describe(&self) -> String {
        let mut text = self.headline();
        for line in self.attention() {
            text.push_str("\n  ");
            text.push_str(&line);
        }
        text
    }

    /// `baseline: 3 expected failures, 0 regressions, 1 unexpected passes`, and the other
    /// counts that are not zero.
    pub(crate) fn headline(&self) -> String {
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
            (self.not_verified.len(), "refusals not verified"),
        ] {
            if count > 0 {
                text.push_str(&format!(", {count} {what}"));
            }
        }
        text
    }

    /// One line per data set that needs attention, saying what: `regression: NAME`,
    /// `unexpected pass (remove it from the baseline): NAME`, ….
    pub(crate) fn attention(&self) -> Vec<String> {
        let mut lines = Vec::new();
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
            lines.extend(names.iter().map(|name| format!("{label}: {name}")));
        }
        if self.require_tracking {
            lines.extend(
                (self.untracked.iter())
                    .map(|name| format!("known failure without a tracking link (--require-tracking): {name}")),
            );
        }
        lines.extend(
            (self.corpus_changes.iter())
                .map(|change| format!("changed with the corpus, not the backend (rewrite the baseline): {change}")),
        );
        let unverified = match self.require_verified {
            true => "refusal not verified, its twin did not pass (--require-verified)",
            false => "refusal not verified, its twin did not pass",
        };
        lines.extend(self.not_verified.iter().map(|name| format!("{unverified}: {name}")));
        lines
    }
}

impl Baseline {
    /// How one data set's outcome compares with the baseline: a failure that does not gate
    /// (a wrong answer on a basis the run does not gate on) is not judged; a difference on a data set that changed with the corpus
    /// since the baseline was written is the corpus's.
    pub fn gate(&self, outcome: &Outcome) -> GateResult {
        if outcome.is_non_gating_failure() {
            return GateResult::NotGating;
        }
        // A data set that cannot be loaded (a file whose checksum differs from the manifest's,
        // say) is broken, not changed: the corpus's changelog never excuses it.
        let unloadable = matches!(outcome.verdict(), Some(Verdict::NotLoadable { .. }));
        self.finding_excused(&outcome.name(), outcome.status(), crashed(outcome), !unloadable)
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
            // Listed, but the profile now declares it unsupported, or it is refused as it must
            // be (with its twin not passing): the entry is outdated.
            (Status::Passed | Status::Unsupported | Status::NotVerified, Some(known)) => GateResult::Fixed {
                was: known.status,
                reason: known.reason.clone(),
            },
            (Status::Unsupported, None) => GateResult::Agrees,
            // Its twin's failure is what a baseline lists; the refusal is counted apart.
            (Status::NotVerified, None) => GateResult::NotVerified,
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
}

/// Whether the data set's process crashed or timed out: the typed verdict says so.
pub(super) fn crashed(outcome: &Outcome) -> bool {
    matches!(
        outcome.verdict(),
        Some(Verdict::Failed {
            failure: Failure::Crash { .. } | Failure::Timeout,
            ..
        })
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::baseline::tests::{THREE, config, written};
    use crate::gate::entry::Expectation;
    use crate::gate::recording::tests::{outcome, record};

    impl Baseline {
        /// Each outcome gated, then summed with the entries for no data set: what a run does.
        fn judge(&self, outcomes: &[Outcome], exists: impl Fn(&str) -> bool) -> GateSummary {
            let gates: Vec<GateResult> = outcomes.iter().map(|o| self.gate(o)).collect();
            GateSummary::of(outcomes.iter().zip(&gates), self.stale(exists))
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
        let rule = outcome("r", Status::Failed, "refuses reflect past the edge").with_gates(false);
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
        let broken = Outcome::example_judged(
            "now_failing",
            Verdict::NotLoadable {
                detail: "output_0.pb: its sha256 differs from MANIFEST.tsv's".into(),
            },
        );
        assert_eq!(baseline.gate(&broken), GateResult::NewFailure);
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
        next[n - 1] = outcome(&format!("c{}", n - 1), Status::Passed, "");
        let verdict = recorded.judge(&next, |_| true);
        assert_eq!(verdict.expected_failures.len(), n - 1);
        assert_eq!(verdict.unexpected_passes, [format!("c{}/0", n - 1)]);
    }

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
        let crash = Outcome::example_judged(
            "c",
            Verdict::Failed {
                failure: Failure::Crash {
                    code: None,
                    signal: Some(11),
                },
                detail: "SIGSEGV".into(),
                must_refuse: false,
            },
        );
        assert!(matches!(release.gate(&crash), GateResult::KnownFailure { .. }));
        let timeout = Outcome::example_judged("c", failed(Failure::Timeout));
        assert!(matches!(release.gate(&timeout), GateResult::KnownFailure { .. }));
        assert_eq!(release.gate(&Outcome::example("c", Status::Passed)), GateResult::Agrees);
        // A wrong answer is judged as without the entry's flag: the entry lists nothing but
        // the crash, so it is a new failure, which fails the run without --strict.
        let wrong = Outcome::example_judged(
            "c",
            Verdict::Mismatch {
                shape: false,
                report: "1 of 4 elements differ".into(),
                deviation: None,
            },
        );
        assert_eq!(release.gate(&wrong), GateResult::NewFailure);
        let summary = release.judge(std::slice::from_ref(&wrong), |_| true);
        assert_eq!(summary.regressions, ["c/0"]);
        assert!(summary.fails(false, false));
        // A panic, a refusal of a valid input: no crash either.
        let panicked = Outcome::example_judged("c", failed(Failure::Panic));
        assert_eq!(release.gate(&panicked), GateResult::NewFailure);
        // In debug the entry is inert: the crash is a regression.
        let debug = written(THREE).unwrap().for_config(config("debug"));
        assert_eq!(debug.gate(&crash), GateResult::NewFailure);
    }

    /// A refusal not verified is its own gate result: never a regression, never listed (an
    /// entry of its data set is outdated), failing the run only when the run requires it.
    #[test]
    fn a_refusal_not_verified_is_counted_apart_and_fails_only_when_required() {
        use crate::judge::verdict::TwinEnd;
        let unverified = |id: &str| {
            Outcome::example_judged(
                id,
                Verdict::RefusalNotVerified {
                    refusal: "unknown operator".into(),
                    rule: None,
                    expected: Vec::new(),
                    twin: TwinEnd {
                        name: format!("{id}_twin/0"),
                        status: Some(Status::Errored),
                        cause: None,
                    },
                },
            )
        };
        let mut baseline = Baseline::default();
        baseline.insert("listed/0", Expectation::new(Status::Failed, "accepted it"));
        let run = [unverified("new"), unverified("listed")];
        assert_eq!(baseline.gate(&run[0]), GateResult::NotVerified);
        assert!(matches!(
            baseline.gate(&run[1]),
            GateResult::Fixed {
                was: Status::Failed,
                ..
            }
        ));
        let summary = baseline.judge(&run[..1], |_| true);
        assert_eq!(summary.not_verified, ["new/0"]);
        assert!(summary.regressions.is_empty() && summary.total() == 1);
        assert!(!summary.fails(true, true), "{summary:?}");
        assert!(
            summary
                .describe()
                .ends_with(", 1 refusals not verified\n  refusal not verified, its twin did not pass: new/0"),
            "{}",
            summary.describe()
        );
        let required = GateSummary {
            require_verified: true,
            ..summary
        };
        assert!(required.fails(false, false));
        assert!(required.fails_data_set(&GateResult::NotVerified));
        // Nothing is recorded of it: its twin's failure is the entry.
        assert!(record(&run[..1], None).expected.is_empty());
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
        let crash = Outcome::example_judged(
            "w",
            failed(Failure::Crash {
                code: None,
                signal: Some(6),
            }),
        );
        assert!(matches!(baseline.gate(&crash), GateResult::KnownFailure { .. }));
        assert!(matches!(
            baseline.gate(&Outcome::example("w", Status::Failed)),
            GateResult::KnownFailure { .. }
        ));
        // Errored without a crash (a reported failure): the status it lists is not this one.
        let reported = Outcome::example_judged("w", failed(Failure::Reported));
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
}
