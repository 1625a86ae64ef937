//! What a runtime's stored releases say over time: per failure group, the stretches of
//! releases where it failed, passed or was unsupported, and the releases where that changed;
//! and each release's counts, conformance and coverage ([`ShareCounts`]). docs/history.md and
//! the history page both read this.

use std::collections::{BTreeMap, BTreeSet};

use super::stored::Release;
use crate::cli::group_line::GroupLine;
use crate::cli::shares::ShareCounts;
use crate::judge::check::Status;

/// A stored group as it reads ([`GroupLine::label`]): `wrong-values: wrap padding, other
/// values (failed, spec basis)`. Stored groups are read before use, so every one parses;
/// were one not to, it is shown as stored.
pub(crate) fn group_label(group: &str) -> String {
    GroupLine::parse(group).map_or_else(|_| group.to_owned(), |line| line.label())
}

/// What a failure group's data sets did in one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// This many of them failed this way.
    Failing(usize),
    /// None failed this way; most of those run passed.
    Passing,
    /// None failed this way; most of those run were outside what the release supports.
    Unsupported,
    /// None failed this way; most of those run failed another way.
    OtherFailure,
    /// The release ran none of them (a corpus that did not hold them yet).
    NotRun,
    /// The worker failed its self-check against the release: nothing is known.
    WorkerFailed,
}

impl State {
    fn same_kind(self, other: State) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }

    /// `failing`, `passing`, …: a stretch's word.
    pub(crate) fn word(self) -> &'static str {
        match self {
            State::Failing(_) => "failing",
            State::Passing => "passing",
            State::Unsupported => "unsupported",
            State::OtherFailure => "failing another way",
            State::NotRun => "not run",
            State::WorkerFailed => "worker failed",
        }
    }
}

/// Consecutive releases in one state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stretch {
    pub state: State,
    pub first: String,
    pub last: String,
    /// For a failing stretch, the most data sets failing in one of its releases.
    pub most: usize,
    /// For a stretch failing another way or passing, the group most of those that fail fail
    /// in, and how many fail, in its first release.
    pub other: Option<(String, usize)>,
}

impl Stretch {
    /// `1.18.0–1.20.1`, or `1.18.0` for one release.
    fn span(&self) -> String {
        if self.first == self.last {
            self.first.clone()
        } else {
            format!("{}–{}", self.first, self.last)
        }
    }
}

/// How a group went from the stretch `before` to the next one that says something, `after`.
fn change(before: &Stretch, after: &Stretch) -> String {
    let at = &after.first;
    match (before.state, after.state, &after.other) {
        (State::Passing, State::Failing(_), _) => format!("regressed in {at}"),
        (State::Unsupported, State::Passing, _) => format!("passing from {at}"),
        // Fixed for most; those that went on failing another way are counted.
        (_, State::Passing, Some((group, n))) => {
            format!("fixed in {at} ({n} fail another way: {})", group_label(group))
        }
        (_, State::Passing, None) => format!("fixed in {at}"),
        (State::Unsupported, State::Failing(_), _) => format!("unsupported until {}", before.last),
        (_, State::Unsupported, _) => format!("unsupported from {at}"),
        (_, State::OtherFailure, Some((group, _))) => {
            format!("fails another way from {at} ({})", group_label(group))
        }
        (State::OtherFailure, State::Failing(_), _) => format!("fails this way from {at}"),
        (_, after_state, _) => format!("{} from {at}", after_state.word()),
    }
}

/// One failure group across a runtime's releases.
#[derive(Clone, Debug)]
pub(crate) struct GroupHistory {
    /// The group ([`GroupLine`](crate::cli::group_line::GroupLine)).
    pub group: String,
    /// Whether it gates (on a basis the runs gate on) in any release.
    pub gates: bool,
    /// The stretches, oldest first.
    pub stretches: Vec<Stretch>,
    /// Its data set with the shortest name in the newest release that failed this way.
    pub example: String,
    /// What its smallest data set said in the newest release that failed this way and
    /// stored it.
    pub message: Option<String>,
}

impl GroupHistory {
    /// The changes of state, oldest first: `regressed in 1.20.0`, `fixed in 1.23.0`,
    /// `unsupported until 1.17.0`; a release that says nothing (its worker failed, or it did
    /// not run the group's data sets) is named and skipped over, so that the change is
    /// judged between the releases that say something. For a group that never changed:
    /// `failing in every release`.
    pub(crate) fn changes(&self) -> Vec<String> {
        let mut changes = Vec::new();
        let mut known: Option<&Stretch> = None;
        for after in &self.stretches {
            if matches!(after.state, State::WorkerFailed | State::NotRun) {
                changes.push(format!("{} in {}", after.state.word(), after.span()));
                continue;
            }
            match known {
                Some(before) if !before.state.same_kind(after.state) => changes.push(change(before, after)),
                Some(_) => {}
                None if !changes.is_empty() => changes.push(format!("{} from {}", after.state.word(), after.first)),
                None => {}
            }
            known = Some(after);
        }
        if changes.is_empty() {
            changes.push(format!("{} in every release", self.stretches[0].state.word()));
        }
        changes
    }

    /// Its stretches as one line: `1.15.0–1.17.3 unsupported → 1.18.0 failing (4) → 1.19.0–1.32.0 passing`.
    pub(crate) fn path(&self) -> String {
        let stretches: Vec<String> = self
            .stretches
            .iter()
            .map(|s| match s.state {
                State::Failing(_) => format!("{} failing ({})", s.span(), s.most),
                other => format!("{} {}", s.span(), other.word()),
            })
            .collect();
        stretches.join(" → ")
    }

    /// The first release it failed in.
    fn first_failing(&self) -> Option<&str> {
        self.stretches
            .iter()
            .find(|s| matches!(s.state, State::Failing(_)))
            .map(|s| s.first.as_str())
    }
}

/// One release's totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TrendPoint {
    pub version: String,
    pub date: String,
    pub worker_passed: bool,
    /// The corpora it ran, as `onnx-testdata 4`.
    pub corpora: String,
    pub passed: usize,
    /// Failed or errored.
    pub failing: usize,
    /// Refusals whose valid twin did not pass: supported, not passed.
    pub not_verified: usize,
    pub unsupported: usize,
    pub skipped: usize,
    /// Every data set it ran (each content once).
    pub run: usize,
}

impl TrendPoint {
    /// Passed, applicable (run but not skipped) and supported (applicable but not
    /// unsupported); nothing applicable when its worker failed.
    pub(crate) fn counts(&self) -> ShareCounts {
        let applicable = self.run - self.skipped;
        ShareCounts {
            passed: self.passed,
            applicable,
            supported: applicable - self.unsupported,
        }
    }

    /// Why there is no share, when there is none: `worker failed`, `nothing applicable`.
    pub(crate) fn no_share(&self) -> Option<&'static str> {
        match (self.worker_passed, self.counts().applicable) {
            (false, _) => Some("worker failed"),
            (true, 0) => Some("nothing applicable"),
            _ => None,
        }
    }
}

/// Every release's totals, in release order.
pub(crate) fn trend(releases: &[Release]) -> Vec<TrendPoint> {
    releases
        .iter()
        .map(|release| {
            let count = |wanted: &[Status]| {
                release
                    .not_passed
                    .values()
                    .filter(|n| wanted.contains(&n.status))
                    .count()
            };
            TrendPoint {
                version: release.version.clone(),
                date: release.date.clone(),
                worker_passed: release.worker.passed,
                corpora: corpora_text(release),
                passed: release.data_sets.len() - release.not_passed.len() - release.unsupported.len(),
                failing: count(&[Status::Failed, Status::Errored]),
                not_verified: count(&[Status::NotVerified]),
                unsupported: release.unsupported.len(),
                skipped: count(&[Status::Skipped]),
                run: release.data_sets.len(),
            }
        })
        .collect()
}

/// `onnx-testdata 4`: the corpora a release ran, with their versions.
pub(crate) fn corpora_text(release: &Release) -> String {
    match release.corpora.is_empty() {
        true => "no versioned corpus".to_owned(),
        false => release
            .corpora
            .iter()
            .map(|(name, v)| format!("{name} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Where the ground under the releases' figures moved, by the index of the release it moved
/// at: its corpus (so its data sets, and every share's denominator) or its judging (gating,
/// tolerance) differ from the release before it. `corpus onnx-testdata 5`, `gating spec`.
pub(crate) fn basis_marks(releases: &[Release]) -> Vec<(usize, String)> {
    releases
        .windows(2)
        .enumerate()
        .filter_map(|(i, pair)| {
            let (before, after) = (&pair[0], &pair[1]);
            let mut moved = Vec::new();
            if before.corpora != after.corpora {
                moved.push(format!("corpus {}", corpora_text(after)));
            }
            if before.gating != after.gating {
                moved.push(format!("gating {}", after.gating));
            }
            if before.tolerance != after.tolerance {
                moved.push(format!("tolerance {}", after.tolerance));
            }
            (!moved.is_empty()).then(|| (i + 1, moved.join(", ")))
        })
        .collect()
}

/// Every failure group of `releases` (in release order) with its stretches: gating groups
/// first, then by the release they first failed in, then by name.
pub(crate) fn group_histories(releases: &[Release]) -> Vec<GroupHistory> {
    // The data sets (by digest) each group ever held.
    let mut members: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut gates: BTreeSet<&str> = BTreeSet::new();
    for release in releases {
        for (digest, entry) in &release.not_passed {
            if let Some(group) = &entry.group {
                members.entry(group).or_default().insert(digest);
                if entry.gates {
                    gates.insert(group);
                }
            }
        }
    }
    let mut histories: Vec<GroupHistory> = members
        .into_iter()
        .map(|(group, digests)| {
            let mut stretches: Vec<Stretch> = Vec::new();
            let mut example = String::new();
            let mut message = None;
            for release in releases {
                let state = state_in(release, group, &digests);
                if let State::Failing(_) = state
                    && let Some(name) = release
                        .not_passed
                        .values()
                        .filter(|n| n.group.as_deref() == Some(group))
                        .map(|n| &n.name)
                        .min_by_key(|n| (n.len(), n.as_str()))
                {
                    example = name.clone();
                    message = release.messages.get(group).cloned().or(message);
                }
                let most = match state {
                    State::Failing(n) => n,
                    _ => 0,
                };
                match stretches.last_mut() {
                    Some(last) if last.state.same_kind(state) => {
                        last.last = release.version.clone();
                        last.most = last.most.max(most);
                    }
                    _ => stretches.push(Stretch {
                        state,
                        first: release.version.clone(),
                        last: release.version.clone(),
                        most,
                        other: matches!(state, State::OtherFailure | State::Passing)
                            .then(|| other_group(release, group, &digests))
                            .flatten(),
                    }),
                }
            }
            GroupHistory {
                group: group.to_owned(),
                gates: gates.contains(group),
                stretches,
                example,
                message,
            }
        })
        .collect();
    let position = |version: Option<&str>| version.and_then(|v| releases.iter().position(|r| r.version == v));
    histories.sort_by_cached_key(|h| (!h.gates, position(h.first_failing()), h.group.clone()));
    histories
}

/// The group most of `digests` fail in, in `release`, other than `group` (ties: the first by
/// name), and how many of them fail another way.
fn other_group(release: &Release, group: &str, digests: &BTreeSet<&str>) -> Option<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for digest in digests {
        if let Some(other) = release.not_passed.get(*digest).and_then(|n| n.group.as_deref())
            && other != group
        {
            *counts.entry(other).or_default() += 1;
        }
    }
    let most = counts.values().copied().max()?;
    let total = counts.values().sum();
    counts
        .into_iter()
        .find(|(_, n)| *n == most)
        .map(|(g, _)| (g.to_owned(), total))
}

/// What the data sets of `group` (`digests`, every one it ever held) did in `release`.
fn state_in(release: &Release, group: &str, digests: &BTreeSet<&str>) -> State {
    if !release.worker.passed {
        return State::WorkerFailed;
    }
    let failing = digests
        .iter()
        .filter(|d| {
            release
                .not_passed
                .get(**d)
                .is_some_and(|n| n.group.as_deref() == Some(group))
        })
        .count();
    if failing > 0 {
        return State::Failing(failing);
    }
    let statuses: Vec<Status> = digests.iter().filter_map(|d| release.status_of(d)).collect();
    let count = |s: Status| statuses.iter().filter(|&&t| t == s).count();
    // What most of them did: one data set failing another way does not hide forty fixed.
    let (passed, other) = (count(Status::Passed), count(Status::Failed) + count(Status::Errored));
    let unsupported = count(Status::Unsupported) + count(Status::Skipped);
    if statuses.is_empty() {
        State::NotRun
    } else if other > passed && other >= unsupported {
        State::OtherFailure
    } else if unsupported > passed {
        State::Unsupported
    } else {
        State::Passing
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cli::history::stored::{HISTORY_FORMAT, NotPassed, WorkerCheck};

    /// A release of `version` that ran data sets `a`…`e` (digests `000000000000000a`…), of
    /// which `not_passed` lists (digest letter, status, group).
    pub(crate) fn release(version: &str, not_passed: &[(char, Status, Option<&str>)]) -> Release {
        let digest = |c: char| format!("{:0>16}", c);
        let data_sets: Vec<String> = "abcde".chars().map(digest).collect();
        Release {
            format: HISTORY_FORMAT,
            runtime: "rt".into(),
            version: version.into(),
            corpora: BTreeMap::from([("onnx-testdata".into(), 4)]),
            gating: "spec,reference".into(),
            tolerance: "exact".into(),
            date: "2026-11-28".into(),
            environment: None,
            worker: WorkerCheck {
                data_set: "onnx-1.2.1/node/test_constant_pad/0".into(),
                passed: true,
                detail: String::new(),
            },
            selection: Release::selection_of(&data_sets),
            data_sets,
            messages: BTreeMap::new(),
            unsupported: not_passed
                .iter()
                .filter(|(_, status, _)| *status == Status::Unsupported)
                .map(|(c, _, _)| digest(*c))
                .collect(),
            not_passed: not_passed
                .iter()
                .filter(|(_, status, _)| *status != Status::Unsupported)
                .map(|(c, status, group)| {
                    (
                        digest(*c),
                        NotPassed {
                            name: format!("case_{c}/0"),
                            status: *status,
                            gates: group.is_some(),
                            group: group.map(str::to_owned),
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn a_data_set_a_new_corpus_brought_is_not_run_before_it_and_the_corpus_change_is_marked() {
        let bug = Some("spec failed: wrong-values: edge padding, values");
        let old = release("1.0", &[]);
        // Corpus 5 changed data set e into f, which fails; 1.0 ran corpus 4, without f.
        let mut new = release("1.1", &[('f', Status::Failed, bug)]);
        new.corpora.insert("onnx-testdata".into(), 5);
        new.data_sets = "abcdf".chars().map(|c| format!("{c:0>16}")).collect();
        new.selection = Release::selection_of(&new.data_sets);
        let releases = [old, new];
        let h = &group_histories(&releases)[0];
        assert_eq!(h.changes(), ["not run in 1.0", "failing from 1.1"], "not a regression");
        assert_eq!(basis_marks(&releases), [(1, "corpus onnx-testdata 5".to_owned())]);
        let points = trend(&releases);
        assert_eq!((points[0].counts().applicable, points[0].counts().passed), (5, 5));
        assert_eq!((points[1].counts().applicable, points[1].counts().passed), (5, 4));
    }

    #[test]
    fn a_group_unsupported_then_failing_then_fixed_says_so_in_order() {
        let bug = Some("spec failed: wrong-values: reflect padding, values");
        let releases = [
            release(
                "1.9.0",
                &[('a', Status::Unsupported, None), ('b', Status::Unsupported, None)],
            ),
            release("1.10.0", &[('a', Status::Failed, bug), ('b', Status::Failed, bug)]),
            release("1.11.0", &[('a', Status::Failed, bug)]),
            release("1.12.0", &[]),
        ];
        let histories = group_histories(&releases);
        assert_eq!(histories.len(), 1);
        let h = &histories[0];
        assert_eq!(
            h.stretches
                .iter()
                .map(|s| (s.state.word(), s.first.as_str(), s.last.as_str(), s.most))
                .collect::<Vec<_>>(),
            [
                ("unsupported", "1.9.0", "1.9.0", 0),
                ("failing", "1.10.0", "1.11.0", 2),
                ("passing", "1.12.0", "1.12.0", 0)
            ]
        );
        assert_eq!(h.changes(), ["unsupported until 1.9.0", "fixed in 1.12.0"]);
        assert_eq!(h.example, "case_a/0");
    }

    #[test]
    fn a_regression_and_a_change_of_cause_are_told_apart() {
        let old = "spec errored: refused-valid — code NOT_IMPLEMENTED";
        let new = "spec failed: wrong-values: constant padding, sign of zero";
        let releases = [
            release("2.0", &[]),
            release("2.1", &[('c', Status::Errored, Some(old))]),
            release("2.2", &[('c', Status::Failed, Some(new))]),
        ];
        let histories = group_histories(&releases);
        let by_group: BTreeMap<&str, Vec<String>> = histories.iter().map(|h| (h.group.as_str(), h.changes())).collect();
        assert_eq!(
            by_group[old],
            [
                "regressed in 2.1".to_owned(),
                "fails another way from 2.2 (wrong-values: constant padding, sign of zero (failed, spec basis))"
                    .to_owned()
            ]
        );
        assert_eq!(
            by_group[new],
            [
                "fails another way from 2.1 (refused-valid — code NOT_IMPLEMENTED (errored, spec basis))".to_owned(),
                "fails this way from 2.2".to_owned()
            ]
        );
    }

    #[test]
    fn a_worker_failure_is_no_verdict_and_the_trend_leaves_it_out() {
        let bug = Some("spec failed: wrong-values: edge padding, values");
        let mut broken = release("3.1", &[]);
        broken.worker.passed = false;
        broken.data_sets.clear();
        broken.selection = Release::selection_of(&[]);
        let releases = [
            release("3.0", &[('d', Status::Failed, bug)]),
            broken,
            release("3.2", &[('d', Status::Failed, bug)]),
        ];
        let h = &group_histories(&releases)[0];
        assert_eq!(h.changes(), ["worker failed in 3.1"]);
        let points = trend(&releases);
        assert_eq!(points[0].counts().conformance(), Some(0.8));
        assert_eq!(
            (points[1].counts().conformance(), points[1].no_share()),
            (None, Some("worker failed"))
        );
        assert_eq!((points[2].passed, points[2].failing), (4, 1));
    }

    #[test]
    fn a_group_mostly_fixed_is_fixed_with_those_failing_another_way_counted() {
        let bug = "spec errored: crash: reported a failure — code RuntimeException";
        let other = "spec errored: refuses-valid — code Fail";
        let releases = [
            release(
                "1.0",
                &[
                    ('a', Status::Errored, Some(bug)),
                    ('b', Status::Errored, Some(bug)),
                    ('c', Status::Errored, Some(bug)),
                ],
            ),
            release("1.1", &[('c', Status::Errored, Some(other))]),
        ];
        let histories = group_histories(&releases);
        let h = histories.iter().find(|h| h.group == bug).unwrap();
        assert_eq!(
            h.changes(),
            ["fixed in 1.1 (1 fail another way: refuses-valid — code Fail (errored, spec basis))"]
        );
    }

    #[test]
    fn a_change_across_a_release_whose_worker_failed_is_judged_between_those_that_say_something() {
        let bug = Some("spec failed: wrong-values: edge padding, values");
        let mut broken = release("2.1", &[]);
        broken.worker.passed = false;
        broken.data_sets.clear();
        broken.selection = Release::selection_of(&[]);
        let releases = [
            release("2.0", &[]),
            broken,
            release("2.2", &[('a', Status::Failed, bug)]),
        ];
        let h = &group_histories(&releases)[0];
        assert_eq!(h.changes(), ["worker failed in 2.1", "regressed in 2.2"]);
    }
}
