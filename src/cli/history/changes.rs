//! What changed in each release of a runtime: every data set's result weighed against the
//! release before it that says something (its worker worked), summed by kind of change and
//! failure group — regressions and new failures first, then moves, fixes and what changed in
//! support — each with an example data set to follow with `history case`. A data set one of
//! the two releases did not run (a corpus version that did not hold it yet, or no longer)
//! is new or dropped, never a regression or a fix.

use std::collections::BTreeMap;

use super::stored::{NotPassed, Release};
use super::timeline::group_label;
use crate::judge::check::Status;

/// A kind of change, in the order a maintainer reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// Passed (or not verified) before, fails now.
    Regressed,
    /// Not run before (not in that release's corpus), fails now.
    NewFailing,
    /// Unsupported before, supported and failing now.
    NewlySupportedFailing,
    /// Failed one way before, another way now.
    Moved,
    /// Failed before, passes now.
    Fixed,
    /// Unsupported before, supported and passing now.
    NewlySupportedPassing,
    /// Supported before, unsupported now.
    NoLongerSupported,
    /// Not run before, passes now.
    NewPassing,
    /// Not run before; now unsupported, skipped or a refusal not verified.
    NewOther,
    /// Run before, not now (not in this release's corpus).
    Dropped,
    /// Any other change of status (a refusal no longer verified, a data set now skipped).
    Other,
}

impl Kind {
    /// Whether the change is a failure this release brought: what a reader looks at first.
    pub(crate) fn is_new_failure(self) -> bool {
        matches!(self, Kind::Regressed | Kind::NewFailing | Kind::NewlySupportedFailing)
    }

    /// Whether the change names a failure group: one the data sets fail in now, or left.
    pub(crate) fn names_a_group(self) -> bool {
        self.is_new_failure() || matches!(self, Kind::Moved | Kind::Fixed)
    }
}

/// Data sets that changed alike between two releases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub kind: Kind,
    /// The failure group they left (fixed, moved), or for [`Kind::Other`] the status.
    pub from: Option<String>,
    /// The failure group they fail in now, or for [`Kind::Other`] and [`Kind::NewOther`] the
    /// status.
    pub to: Option<String>,
    /// How many.
    pub data_sets: usize,
    /// The one with the shortest name, when a name is stored (it is for every data set that
    /// did not pass in one of the two releases).
    pub example: Option<String>,
    /// Whether the failure they are in (or left, for a fix) gates.
    pub gates: bool,
    /// What that group's smallest data set says, in the release it fails in (the one it
    /// left, for a fix), when the release stored it.
    pub message: Option<String>,
}

impl Change {
    /// `regressed: 3 × wrong-values: … (failed, spec basis)`: what changed, without the
    /// example.
    pub(crate) fn text(&self, since: &str) -> String {
        let group = |g: &Option<String>| g.as_deref().map_or_else(String::new, group_label);
        let n = self.data_sets;
        match self.kind {
            Kind::Regressed => format!("regressed: {n} × {}", group(&self.to)),
            Kind::NewFailing => format!("new data sets (not run by {since}), failing: {n} × {}", group(&self.to)),
            Kind::NewlySupportedFailing => format!("newly supported, failing: {n} × {}", group(&self.to)),
            Kind::Moved => format!(
                "failing another way: {n} from {} to {}",
                group(&self.from),
                group(&self.to)
            ),
            Kind::Fixed => format!("fixed: {n} × {}", group(&self.from)),
            Kind::NewlySupportedPassing => format!("newly supported, passing: {n}"),
            Kind::NoLongerSupported => format!("no longer supported: {n}"),
            Kind::NewPassing => format!("new data sets (not run by {since}), passing: {n}"),
            Kind::NewOther => format!(
                "new data sets (not run by {since}), {}: {n}",
                self.to.as_deref().unwrap_or_default()
            ),
            Kind::Dropped => format!("no longer run (not in its corpus): {n}"),
            Kind::Other => format!(
                "{} → {}: {n}",
                self.from.as_deref().unwrap_or_default(),
                self.to.as_deref().unwrap_or_default()
            ),
        }
    }
}

/// What changed in one release.
#[derive(Clone, Debug)]
pub(crate) struct ReleaseChanges {
    pub version: String,
    pub date: String,
    /// The release it is weighed against: the newest before it whose worker worked; `None`
    /// for the first such release, or when its own worker failed.
    pub since: Option<String>,
    /// Whether its worker failed its self-check: it says nothing.
    pub worker_failed: bool,
    /// Its corpus versions and judging (gating, tolerance), when they differ from `since`'s:
    /// `corpus onnx-testdata 4 → 5`.
    pub basis_changed: Vec<String>,
    /// New failures first, then by kind, most data sets first.
    pub changes: Vec<Change>,
}

impl ReleaseChanges {
    /// `10 new failures, 2 fixed, 7 failing another way, 137 newly supported`: how many data
    /// sets changed each way, the kinds that changed none left out.
    pub(crate) fn summary(&self) -> String {
        let count = |wanted: fn(Kind) -> bool| -> usize {
            self.changes
                .iter()
                .filter(|c| wanted(c.kind))
                .map(|c| c.data_sets)
                .sum()
        };
        let parts = [
            (count(Kind::is_new_failure), "new failure", "new failures"),
            (count(|k| k == Kind::Fixed), "fixed", "fixed"),
            (
                count(|k| k == Kind::Moved),
                "failing another way",
                "failing another way",
            ),
            (
                count(|k| matches!(k, Kind::NewlySupportedPassing)),
                "newly supported, passing",
                "newly supported, passing",
            ),
            (
                count(|k| k == Kind::NoLongerSupported),
                "no longer supported",
                "no longer supported",
            ),
            (
                count(|k| matches!(k, Kind::NewPassing | Kind::NewOther | Kind::Dropped | Kind::Other)),
                "other change",
                "other changes",
            ),
        ];
        let said: Vec<String> = parts
            .iter()
            .filter(|(n, _, _)| *n > 0)
            .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
            .collect();
        match said.is_empty() {
            true => "no data set changed".to_owned(),
            false => said.join(", "),
        }
    }
}

/// One data set's result in one release.
#[derive(Clone, Copy)]
enum Seen<'a> {
    NotRun,
    Passed,
    Unsupported,
    Failing(&'a NotPassed),
    /// Skipped or not verified: neither passed nor failing.
    Neither(&'a NotPassed),
}

fn seen<'a>(release: &'a Release, digest: &str) -> Seen<'a> {
    match (release.status_of(digest), release.not_passed.get(digest)) {
        (None, _) => Seen::NotRun,
        (Some(Status::Passed), _) => Seen::Passed,
        (Some(Status::Unsupported), _) => Seen::Unsupported,
        (Some(Status::Failed | Status::Errored), Some(entry)) => Seen::Failing(entry),
        (Some(_), Some(entry)) => Seen::Neither(entry),
        (Some(_), None) => Seen::NotRun,
    }
}

/// Every release's changes (in release order), each against the newest release before it
/// whose worker worked.
pub(crate) fn release_changes(releases: &[Release]) -> Vec<ReleaseChanges> {
    let mut all = Vec::with_capacity(releases.len());
    let mut last_known: Option<&Release> = None;
    for release in releases {
        let worker_failed = !release.worker.passed;
        let before = last_known.filter(|_| !worker_failed);
        all.push(ReleaseChanges {
            version: release.version.clone(),
            date: release.date.clone(),
            since: before.map(|b| b.version.clone()),
            worker_failed,
            basis_changed: before.map_or_else(Vec::new, |b| basis_changes(b, release)),
            changes: before.map_or_else(Vec::new, |b| changes_between(b, release)),
        });
        if !worker_failed {
            last_known = Some(release);
        }
    }
    all
}

/// What the two releases were run on and judged by, where it differs.
fn basis_changes(before: &Release, after: &Release) -> Vec<String> {
    let mut changed = Vec::new();
    let names: std::collections::BTreeSet<&String> = before.corpora.keys().chain(after.corpora.keys()).collect();
    for name in names {
        match (before.corpora.get(name), after.corpora.get(name)) {
            (Some(a), Some(b)) if a != b => changed.push(format!("corpus {name} {a} → {b}")),
            (None, Some(b)) => changed.push(format!("corpus {name} {b} added")),
            (Some(a), None) => changed.push(format!("corpus {name} {a} not read")),
            _ => {}
        }
    }
    if before.gating != after.gating {
        changed.push(format!("gating {} → {}", before.gating, after.gating));
    }
    if before.tolerance != after.tolerance {
        changed.push(format!("tolerance {} → {}", before.tolerance, after.tolerance));
    }
    changed
}

/// Every data set either release ran, weighed and summed.
fn changes_between(before: &Release, after: &Release) -> Vec<Change> {
    type Key = (Kind, Option<String>, Option<String>);
    let mut sums: BTreeMap<Key, (usize, Option<&str>, bool)> = BTreeMap::new();
    let digests = before
        .data_sets
        .iter()
        .chain(after.data_sets.iter().filter(|d| before.status_of(d).is_none()));
    for digest in digests {
        let (was, is) = (seen(before, digest), seen(after, digest));
        let group = |entry: &NotPassed| entry.group.clone();
        let status = |entry: &NotPassed| Some(entry.status.name().to_owned());
        // The change, and the entry that names the data set and says whether it gates.
        let (key, named): (Key, Option<&NotPassed>) = match (was, is) {
            (Seen::NotRun, Seen::NotRun) => continue,
            (Seen::Passed, Seen::Passed) | (Seen::Unsupported, Seen::Unsupported) => continue,
            (Seen::Failing(a), Seen::Failing(b)) if a.group == b.group => continue,
            (Seen::Neither(a), Seen::Neither(b)) if a.status == b.status => continue,
            (Seen::NotRun, Seen::Failing(b)) => ((Kind::NewFailing, None, group(b)), Some(b)),
            (Seen::NotRun, Seen::Passed) => ((Kind::NewPassing, None, None), None),
            (Seen::NotRun, Seen::Unsupported) => ((Kind::NewOther, None, Some("unsupported".into())), None),
            (Seen::NotRun, Seen::Neither(b)) => ((Kind::NewOther, None, status(b)), Some(b)),
            (Seen::Failing(a), Seen::NotRun) | (Seen::Neither(a), Seen::NotRun) => {
                ((Kind::Dropped, None, None), Some(a))
            }
            (_, Seen::NotRun) => ((Kind::Dropped, None, None), None),
            (Seen::Passed | Seen::Neither(_), Seen::Failing(b)) => ((Kind::Regressed, None, group(b)), Some(b)),
            (Seen::Unsupported, Seen::Failing(b)) => ((Kind::NewlySupportedFailing, None, group(b)), Some(b)),
            (Seen::Failing(a), Seen::Failing(b)) => ((Kind::Moved, group(a), group(b)), Some(b)),
            (Seen::Failing(a), Seen::Passed) => ((Kind::Fixed, group(a), None), Some(a)),
            (Seen::Unsupported, Seen::Passed) => ((Kind::NewlySupportedPassing, None, None), None),
            (Seen::Passed | Seen::Failing(_), Seen::Unsupported) => ((Kind::NoLongerSupported, None, None), None),
            (Seen::Failing(a), Seen::Neither(b)) => ((Kind::Other, status(a), status(b)), Some(b)),
            (Seen::Neither(a), Seen::Passed) => ((Kind::Other, status(a), Some("passed".into())), Some(a)),
            (Seen::Neither(a), Seen::Unsupported) => ((Kind::Other, status(a), Some("unsupported".into())), Some(a)),
            (Seen::Neither(a), Seen::Neither(b)) => ((Kind::Other, status(a), status(b)), Some(b)),
            (Seen::Passed, Seen::Neither(b)) => ((Kind::Other, Some("passed".into()), status(b)), Some(b)),
            (Seen::Unsupported, Seen::Neither(b)) => ((Kind::Other, Some("unsupported".into()), status(b)), Some(b)),
        };
        let sum = sums.entry(key).or_insert((0, None, false));
        sum.0 += 1;
        if let Some(entry) = named {
            sum.2 |= entry.gates;
            let name = entry.name.as_str();
            if sum.1.is_none_or(|kept| (name.len(), name) < (kept.len(), kept)) {
                sum.1 = Some(name);
            }
        }
    }
    let mut changes: Vec<Change> = sums
        .into_iter()
        .map(|((kind, from, to), (data_sets, example, gates))| {
            let message = match kind {
                Kind::Fixed => from.as_ref().and_then(|g| before.messages.get(g)),
                _ if kind.names_a_group() => to.as_ref().and_then(|g| after.messages.get(g)),
                _ => None,
            };
            Change {
                kind,
                message: message.cloned(),
                from,
                to,
                data_sets,
                example: example.map(str::to_owned),
                gates,
            }
        })
        .collect();
    // Gating failures before the others of their kind, then the largest.
    changes.sort_by(|a, b| {
        (a.kind, !a.gates, std::cmp::Reverse(a.data_sets), &a.from, &a.to).cmp(&(
            b.kind,
            !b.gates,
            std::cmp::Reverse(b.data_sets),
            &b.from,
            &b.to,
        ))
    });
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::history::timeline::tests::release;

    #[test]
    fn a_release_is_weighed_against_the_one_before_it_kind_by_kind() {
        let wrap = Some("spec failed: wrong-values: wrap padding, other values");
        let refuses = Some("spec errored: refuses-valid — code Fail");
        let releases = [
            release(
                "1.0",
                &[
                    ('a', Status::Failed, wrap),
                    ('b', Status::Failed, wrap),
                    ('c', Status::Unsupported, None),
                ],
            ),
            release(
                "1.1",
                &[
                    ('b', Status::Errored, refuses),
                    ('d', Status::Errored, refuses),
                    ('e', Status::Failed, wrap),
                ],
            ),
        ];
        let mut releases = releases;
        releases[1].messages.insert(
            "spec errored: refuses-valid — code Fail".to_owned(),
            "backend rt 1.1 refused a valid input (kind refused): Fail: no kernel for Pad(19) int8".to_owned(),
        );
        let changes = release_changes(&releases);
        assert_eq!(changes[0].since, None);
        assert!(changes[0].changes.is_empty());
        let newest = &changes[1];
        assert_eq!(newest.since.as_deref(), Some("1.0"));
        let lines: Vec<(String, Option<&str>)> = newest
            .changes
            .iter()
            .map(|c| (c.text("1.0"), c.example.as_deref()))
            .collect();
        let wrap = "wrong-values: wrap padding, other values (failed, spec basis)";
        let refuses = "refuses-valid — code Fail (errored, spec basis)";
        assert_eq!(
            newest.summary(),
            "2 new failures, 1 fixed, 1 failing another way, 1 newly supported, passing"
        );
        assert_eq!(
            lines,
            [
                (format!("regressed: 1 × {refuses}"), Some("case_d/0")),
                (format!("regressed: 1 × {wrap}"), Some("case_e/0")),
                (
                    format!("failing another way: 1 from {wrap} to {refuses}"),
                    Some("case_b/0")
                ),
                (format!("fixed: 1 × {wrap}"), Some("case_a/0")),
                ("newly supported, passing: 1".to_owned(), None),
            ]
        );
        let messages: Vec<Option<&str>> = newest.changes.iter().map(|c| c.message.as_deref()).collect();
        let said = "backend rt 1.1 refused a valid input (kind refused): Fail: no kernel for Pad(19) int8";
        // The regression into refuses-valid and the move into it carry its message; wrap stored none.
        assert_eq!(messages, [Some(said), None, Some(said), None, None]);
    }

    #[test]
    fn data_sets_a_corpus_change_added_are_new_not_regressions_and_the_change_is_named() {
        let wrap = Some("spec failed: wrong-values: wrap padding, other values");
        let old = release("1.0", &[('a', Status::Failed, wrap)]);
        // Corpus 5 changed data set e (a new digest, f) and added g; 1.1 ran corpus 5.
        let mut new = release("1.1", &[('a', Status::Failed, wrap), ('f', Status::Failed, wrap)]);
        let digest = |c: char| format!("{:0>16}", c);
        new.corpora.insert("onnx-testdata".into(), 5);
        new.data_sets = "abcdfg".chars().map(digest).collect();
        new.selection = Release::selection_of(&new.data_sets);
        let changes = release_changes(&[old, new]);
        let newest = &changes[1];
        assert_eq!(newest.basis_changed, ["corpus onnx-testdata 4 → 5"]);
        let lines: Vec<String> = newest.changes.iter().map(|c| c.text("1.0")).collect();
        assert_eq!(
            lines,
            [
                "new data sets (not run by 1.0), failing: 1 × wrong-values: wrap padding, other values (failed, spec basis)",
                "new data sets (not run by 1.0), passing: 1",
                "no longer run (not in its corpus): 1",
            ]
        );
        assert!(
            newest
                .changes
                .iter()
                .all(|c| !matches!(c.kind, Kind::Regressed | Kind::Fixed))
        );
    }

    #[test]
    fn a_release_whose_worker_failed_is_skipped_over() {
        let wrap = Some("spec failed: wrong-values: wrap padding, other values");
        let mut broken = release("2.1", &[]);
        broken.worker.passed = false;
        broken.data_sets.clear();
        broken.selection = Release::selection_of(&[]);
        let changes = release_changes(&[
            release("2.0", &[]),
            broken,
            release("2.2", &[('a', Status::Failed, wrap)]),
        ]);
        assert!(changes[1].worker_failed && changes[1].since.is_none());
        assert_eq!(changes[2].since.as_deref(), Some("2.0"));
        assert_eq!(changes[2].changes[0].kind, Kind::Regressed);
    }
}
