//! What upgrading a baseline to a new corpus moved: each entry in force that the new baseline
//! adds, drops or lists with another status than the old one, with its cause — the corpus's
//! changelog, the judging rules, or the backend — decided from typed facts: the data sets the
//! corpus changed since the old baseline's version ([`Baseline::against`]), the data sets that
//! exist now, and each outcome's verdict.

use std::collections::{BTreeMap, BTreeSet};

use super::baseline::Baseline;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::{UnsupportedBy, Verdict};

/// One entry that moved between the old baseline and the new.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Move {
    /// The data set: `extended/test_ext_pad18_constant_float_r2/0`.
    pub name: String,
    /// What happened to its entry.
    pub change: Change,
    /// Why.
    pub cause: MoveCause,
}

/// What happened to an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// A failure the old baseline did not list: `now` failed or errored.
    Added {
        /// Its status in the run.
        now: Status,
    },
    /// Listed with `was`; it did not fail so in the run (`now`: passed, unsupported, refused
    /// unverified, …), or the data set is gone (`now` none).
    Dropped {
        /// The status the old baseline listed.
        was: Status,
        /// Its status in the run, when it ran.
        now: Option<Status>,
    },
    /// Listed with `was`, failing with the other of failed and errored now.
    StatusChanged {
        /// The status the old baseline listed.
        was: Status,
        /// The status the new one lists.
        now: Status,
    },
}

/// Why an entry moved, the first that applies in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MoveCause {
    /// The data set's content or basis changed since the corpus version the old baseline
    /// records (the corpus's changelog names it), or it is no longer in the corpus.
    Corpus(CorpusChange),
    /// The same data is judged by another rule: the run now calls it a refusal not verified,
    /// or the profile rules it unsupported (a value outside the storage it declares).
    JudgingRule(JudgingRule),
    /// Same data, same rule, another result: the backend's doing.
    Backend,
}

/// The judging rule that decides a data set whatever the backend answered on it; no baseline
/// entry lists what it decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JudgingRule {
    /// A refusal counts only when the data set's valid twin passes in the same run.
    TwinVerifiesRefusal,
    /// The profile rules it out: a value outside the storage it declares, say.
    OutsideProfile,
}

/// How the corpus changed a data set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CorpusChange {
    /// The changelog's line for it: `corpus version 5: its model declares the output …`.
    Changelog(String),
    /// No data set of its name is in the corpus now.
    Gone,
}

impl MoveCause {
    /// `corpus changed`, `judging rule changed`, `backend changed`: the heading it is listed
    /// under.
    pub(crate) fn heading(&self) -> &'static str {
        match self {
            MoveCause::Corpus(_) => "corpus changed",
            MoveCause::JudgingRule(_) => "judging rule changed",
            MoveCause::Backend => "backend changed",
        }
    }
}

/// The entries in force that moved from `old` (read against the run's corpora, so that it
/// knows what the corpus changed since its version, and weighed for the run's configuration)
/// to `new` (recorded from the run's `outcomes` in the same configuration); `exists` says
/// whether a data set of that name is in the corpus now. Sorted by name.
pub(crate) fn moves(old: &Baseline, new: &Baseline, outcomes: &[Outcome], exists: impl Fn(&str) -> bool) -> Vec<Move> {
    let ran: BTreeMap<String, &Outcome> = outcomes.iter().map(|o| (o.name(), o)).collect();
    let was: BTreeMap<&String, Status> = old.entries_in_force().map(|(n, e)| (n, e.status)).collect();
    let is: BTreeMap<&String, Status> = new.entries_in_force().map(|(n, e)| (n, e.status)).collect();
    let names: BTreeSet<&String> = was.keys().chain(is.keys()).copied().collect();
    let mut moved = Vec::new();
    for name in names {
        let outcome = ran.get(name.as_str()).copied();
        let change = match (was.get(name), is.get(name)) {
            (Some(&was), Some(&now)) if was != now => Change::StatusChanged { was, now },
            (Some(&was), None) => Change::Dropped {
                was,
                now: outcome.map(Outcome::status),
            },
            (None, Some(&now)) => Change::Added { now },
            _ => continue,
        };
        let cause = match (old.changed_with_corpus.get(name), outcome) {
            (Some(why), _) => MoveCause::Corpus(CorpusChange::Changelog(why.clone())),
            (None, None) if !exists(name) => MoveCause::Corpus(CorpusChange::Gone),
            (None, Some(outcome)) => match judged_by(outcome) {
                Some(rule) => MoveCause::JudgingRule(rule),
                None => MoveCause::Backend,
            },
            (None, None) => MoveCause::Backend,
        };
        moved.push(Move {
            name: name.clone(),
            change,
            cause,
        });
    }
    moved
}

/// The judging rule that gave `outcome` its verdict whatever the backend answered, if one
/// did: a refusal its twin does not verify, or unsupported by the profile.
fn judged_by(outcome: &Outcome) -> Option<JudgingRule> {
    match outcome.verdict()? {
        Verdict::RefusalNotVerified { .. } => Some(JudgingRule::TwinVerifiesRefusal),
        Verdict::Unsupported {
            by: UnsupportedBy::Profile,
            ..
        } => Some(JudgingRule::OutsideProfile),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::entry::Expectation;

    fn baseline(entries: &[(&str, Status)]) -> Baseline {
        let mut b = Baseline::default();
        for &(name, status) in entries {
            b.expected
                .entry(name.to_owned())
                .or_default()
                .0
                .push(Expectation::new(status, "r"));
        }
        b
    }

    #[test]
    fn a_verdict_a_judging_rule_gives_whatever_the_backend_answered_is_that_rules_doing() {
        let old = baseline(&[("narrowed/0", Status::Failed), ("refused/0", Status::Failed)]);
        let outcomes = [
            Outcome::example_judged(
                "narrowed",
                Verdict::Unsupported {
                    by: UnsupportedBy::Profile,
                    detail: "int64 kept as int32".into(),
                },
            ),
            Outcome::example_judged(
                "refused",
                Verdict::RefusalNotVerified {
                    refusal: "no".into(),
                    rule: None,
                    expected: vec![],
                    twin: crate::judge::verdict::TwinEnd {
                        name: "refused_twin/0".into(),
                        status: Some(Status::Errored),
                        cause: None,
                    },
                },
            ),
        ];
        let causes: Vec<MoveCause> = moves(&old, &Baseline::default(), &outcomes, |_| true)
            .into_iter()
            .map(|m| m.cause)
            .collect();
        assert_eq!(
            causes,
            [
                MoveCause::JudgingRule(JudgingRule::OutsideProfile),
                MoveCause::JudgingRule(JudgingRule::TwinVerifiesRefusal)
            ]
        );
        // Unsupported by the backend's own answer is the backend's doing.
        let own = [Outcome::example_judged(
            "narrowed",
            Verdict::Unsupported {
                by: UnsupportedBy::Backend,
                detail: "no int64".into(),
            },
        )];
        let moved = moves(&old, &Baseline::default(), &own, |_| true);
        assert_eq!(moved[0].cause, MoveCause::Backend);
    }

    #[test]
    fn each_moved_entry_gets_the_first_cause_that_applies_and_entries_that_hold_do_not_move() {
        let mut old = baseline(&[
            ("changed/0", Status::Failed),
            ("gone/0", Status::Failed),
            ("fixed/0", Status::Failed),
            ("kept/0", Status::Errored),
            ("swapped/0", Status::Failed),
        ]);
        old.changed_with_corpus
            .insert("changed/0".into(), "corpus version 5: new shape".into());
        let new = baseline(&[
            ("kept/0", Status::Errored),
            ("swapped/0", Status::Errored),
            ("new/0", Status::Failed),
        ]);
        let outcomes = [
            Outcome::example("changed", Status::Passed),
            Outcome::example("fixed", Status::Passed),
            Outcome::example("kept", Status::Errored),
            Outcome::example("swapped", Status::Errored),
            Outcome::example("new", Status::Failed),
        ];
        let moved = moves(&old, &new, &outcomes, |name| name != "gone/0");
        let got: Vec<(&str, Change, MoveCause)> = moved
            .iter()
            .map(|m| (m.name.as_str(), m.change, m.cause.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "changed/0",
                    Change::Dropped {
                        was: Status::Failed,
                        now: Some(Status::Passed)
                    },
                    MoveCause::Corpus(CorpusChange::Changelog("corpus version 5: new shape".into()))
                ),
                (
                    "fixed/0",
                    Change::Dropped {
                        was: Status::Failed,
                        now: Some(Status::Passed)
                    },
                    MoveCause::Backend
                ),
                (
                    "gone/0",
                    Change::Dropped {
                        was: Status::Failed,
                        now: None
                    },
                    MoveCause::Corpus(CorpusChange::Gone)
                ),
                ("new/0", Change::Added { now: Status::Failed }, MoveCause::Backend),
                (
                    "swapped/0",
                    Change::StatusChanged {
                        was: Status::Failed,
                        now: Status::Errored
                    },
                    MoveCause::Backend
                ),
            ]
        );
    }
}
