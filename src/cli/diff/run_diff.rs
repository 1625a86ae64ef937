//! `pad-conformance diff`: what changed between two runs of a backend (two JSON reports,
//! before and after), so a runtime's pull request can show its effect on conformance.
//! docs/report-format.md#diff-pad-conformance-diff defines each kind of change.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::judge::check::{Outcome, Status};
use crate::report::{RunReport, Summary};
use crate::text::{escape_cell, first_line};

/// How a data set changed between the runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Change {
    /// Now failed or errored on a gating basis; before it passed, or was skipped or
    /// unsupported. This is what makes `diff` exit 1.
    Regressed,
    /// Now failed or errored on a basis the run does not gate on (a project rule, an
    /// undefined corner); before it passed, or was skipped or unsupported: a breakage, named
    /// as one, that does not fail the diff.
    BrokeNotGating,
    /// Failed or errored before, passed now.
    Fixed,
    /// Any other change of status or of gating: failed ↔ errored, passed → unsupported, …
    ChangedStatus,
    /// Only in the new run.
    Added,
    /// Only in the old run.
    Removed,
}

impl Change {
    /// Every kind, in the order reports list them.
    pub(super) const ALL: [Change; 6] = [
        Change::Regressed,
        Change::BrokeNotGating,
        Change::Fixed,
        Change::ChangedStatus,
        Change::Added,
        Change::Removed,
    ];

    /// How reports title it.
    pub(super) fn title(self) -> &'static str {
        match self {
            Change::Regressed => "Regressed",
            Change::BrokeNotGating => "Broke (not gating)",
            Change::Fixed => "Fixed",
            Change::ChangedStatus => "Changed status",
            Change::Added => "Added",
            Change::Removed => "Removed",
        }
    }

    /// A lowercase name for ids and classes.
    pub(super) fn name(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::BrokeNotGating => "broke-not-gating",
            Change::Fixed => "fixed",
            Change::ChangedStatus => "changed",
            Change::Added => "added",
            Change::Removed => "removed",
        }
    }
}

/// One data set that changed.
#[derive(Clone, Debug)]
pub(super) struct Changed<'a> {
    /// The data set's name: `extended/test_ext_pad19_wrap/0`.
    pub name: String,
    /// How it changed.
    pub change: Change,
    /// Its outcome in the old run.
    pub old: Option<&'a Outcome>,
    /// Its outcome in the new run.
    pub new: Option<&'a Outcome>,
}

impl<'a> Changed<'a> {
    /// The newer of its outcomes: what describes it now.
    pub(super) fn latest(&self) -> &'a Outcome {
        self.new.or(self.old).expect("a change has at least one side")
    }
}

/// A data set's name without the prefix naming its root (`../other:node/x/0` → `node/x/0`),
/// which a run adds when two roots hold a case of the same path.
fn apart_from_root(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, case)| case)
}

/// The names only in `ours`, by their name apart from the root's prefix.
fn only_in<'n>(
    ours: &'n BTreeMap<String, &Outcome>,
    theirs: &BTreeMap<String, &Outcome>,
) -> BTreeMap<&'n str, Vec<&'n str>> {
    let mut by_case: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for name in ours.keys().filter(|name| !theirs.contains_key(*name)) {
        by_case.entry(apart_from_root(name)).or_default().push(name);
    }
    by_case
}

/// Two runs compared.
#[derive(Clone, Debug)]
pub(super) struct RunDiff<'a> {
    /// The old run.
    pub old: &'a RunReport,
    /// The new run.
    pub new: &'a RunReport,
    /// Every data set whose status or gating changed, or that is in one run only, by kind of
    /// change then name.
    pub changes: Vec<Changed<'a>>,
    /// Data sets in both runs with the same status and gating.
    pub unchanged: usize,
}

fn is_failure(status: Status) -> bool {
    matches!(status, Status::Failed | Status::Errored)
}

/// How `old` became `new`, or none when neither the status nor the gating changed.
pub(super) fn classify(old: &Outcome, new: &Outcome) -> Option<Change> {
    if old.status() == new.status() && old.gates() == new.gates() {
        None
    } else if new.is_gating_failure() && !is_failure(old.status()) {
        Some(Change::Regressed)
    } else if is_failure(new.status()) && !is_failure(old.status()) {
        Some(Change::BrokeNotGating)
    } else if is_failure(old.status()) && new.status() == Status::Passed {
        Some(Change::Fixed)
    } else {
        Some(Change::ChangedStatus)
    }
}

impl<'a> RunDiff<'a> {
    /// Compares two runs data set by data set: by name, or, for a data set whose root's
    /// prefix changed between the runs, by its name apart from that prefix. (A report that
    /// repeats a name is refused when read.)
    pub(super) fn new(old: &'a RunReport, new: &'a RunReport) -> RunDiff<'a> {
        let by_name = |report: &'a RunReport| -> BTreeMap<String, &'a Outcome> {
            report.outcomes.iter().map(|o| (o.name(), o)).collect()
        };
        let (before, after) = (by_name(old), by_name(new));
        let mut changes = Vec::new();
        let mut unchanged = 0;
        // A data set only in one run under a root's prefix (`../a:node/x/0`) is the same data
        // set as one only in the other run under another prefix, when its name apart from the
        // prefix is unique to one data set on each side: roots renamed between the runs.
        let (gone, came) = (only_in(&before, &after), only_in(&after, &before));
        let renamed: BTreeMap<&str, &str> = gone
            .iter()
            .filter_map(
                |(case, old)| match (old.as_slice(), came.get(case).map(Vec::as_slice)) {
                    ([old], Some([new])) => Some((*old, *new)),
                    _ => None,
                },
            )
            .collect();
        let moved: std::collections::BTreeSet<&str> = renamed.values().copied().collect();
        for (name, &o) in &before {
            let counterpart = renamed.get(name.as_str()).map_or(name.as_str(), |new| *new);
            match after.get(counterpart) {
                Some(&n) => match classify(o, n) {
                    Some(change) => changes.push(Changed {
                        name: name.clone(),
                        change,
                        old: Some(o),
                        new: Some(n),
                    }),
                    None => unchanged += 1,
                },
                None => changes.push(Changed {
                    name: name.clone(),
                    change: Change::Removed,
                    old: Some(o),
                    new: None,
                }),
            }
        }
        for (name, &n) in after
            .iter()
            .filter(|(name, _)| !before.contains_key(*name) && !moved.contains(name.as_str()))
        {
            changes.push(Changed {
                name: name.clone(),
                change: Change::Added,
                old: None,
                new: Some(n),
            });
        }
        changes.sort_by(|a, b| (a.change, &a.name).cmp(&(b.change, &b.name)));
        RunDiff {
            old,
            new,
            changes,
            unchanged,
        }
    }

    /// The changes of one kind.
    pub(super) fn of(&self, change: Change) -> impl Iterator<Item = &Changed<'a>> {
        self.changes.iter().filter(move |c| c.change == change)
    }

    /// Whether anything regressed: `diff` exits 1.
    pub(super) fn regressed(&self) -> bool {
        self.of(Change::Regressed).next().is_some()
    }

    /// `3 regressed, 0 broke (not gating), 10 fixed, 0 changed status, 0 added, 0 removed`.
    pub(super) fn line(&self) -> String {
        Change::ALL
            .iter()
            .map(|&c| format!("{} {}", self.of(c).count(), c.title().to_lowercase()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Writes the diff as Markdown, for a pull-request comment: both runs' totals, then one
    /// table per kind of change.
    pub(super) fn write_markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "### pad-conformance diff: `{}` → `{}`\n",
            escape_cell(&self.old.backend),
            escape_cell(&self.new.backend)
        )?;
        writeln!(out, "**{}** ({} unchanged)\n", self.line(), self.unchanged)?;
        writeln!(
            out,
            "| run | passed | failed | errored | skipped | unsupported | not gating |"
        )?;
        writeln!(out, "|---|---:|---:|---:|---:|---:|---:|")?;
        for (label, s) in [("old", self.old.summary()), ("new", self.new.summary())] {
            write_summary_row(label, &s, out)?;
        }
        for change in Change::ALL {
            let rows: Vec<_> = self.of(change).collect();
            if rows.is_empty() {
                continue;
            }
            writeln!(out, "\n#### {} ({})\n", change.title(), rows.len())?;
            writeln!(out, "| data set | operator | basis | before | after | message |")?;
            writeln!(out, "|---|---|---|---|---|---|")?;
            for row in rows {
                let latest = row.latest();
                writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} | {} |",
                    escape_cell(&row.name),
                    latest.operator(),
                    latest.basis().kind,
                    status_text(row.old),
                    status_text(row.new),
                    escape_cell(&first_line(&latest.message(), 120))
                )?;
            }
        }
        Ok(())
    }
}

fn write_summary_row(label: &str, s: &Summary, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "| {label} | {} | {} | {} | {} | {} | {} |",
        s.passed, s.failed, s.errored, s.skipped, s.unsupported, s.not_gating
    )
}

/// `failed`, `errored (not gating)`, or `–` when the run does not have the data set.
pub(super) fn status_text(outcome: Option<&Outcome>) -> String {
    match outcome {
        None => "–".to_owned(),
        Some(o) if o.is_non_gating_failure() => format!("{} (not gating)", o.status().name()),
        Some(o) => o.status().name().to_owned(),
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::operators::{PadMode, PadOp};
    use crate::tensor::DataType;

    fn outcome(id: &str, status: Status, gates: bool) -> Outcome {
        Outcome::example_said(id, status, &format!("{id} is {}", status.name()))
            .with_operator((Some(PadOp::Pad), Some(19), Some(PadMode::Wrap.into())))
            .with_input(Some(DataType::Float), Some(vec![3]))
            .with_gates(gates)
    }

    fn report(outcomes: Vec<Outcome>) -> RunReport {
        RunReport::of("tract", outcomes)
    }

    /// Two reports of 10,000 data sets each: matched by name in a map, not by a scan of one
    /// report per data set of the other.
    #[test]
    fn large_reports_are_matched_by_name() {
        reports_are_matched_by_name(10_000);
    }

    /// The check above at 100,000 data sets, where a scan would take minutes (a third of a
    /// second of `cargo test` time: .ci/run runs it).
    #[test]
    #[ignore = "slow: run by .ci/run"]
    fn a_hundred_thousand_data_sets_are_matched_by_name() {
        reports_are_matched_by_name(100_000);
    }

    /// Reports of `n` data sets, the second shifted by one name and one data set failing.
    fn reports_are_matched_by_name(n: usize) {
        let old = report(
            (0..n)
                .map(|i| outcome(&format!("c{i}"), Status::Passed, true))
                .collect(),
        );
        let new = report(
            (0..n)
                .map(|i| {
                    outcome(
                        &format!("c{}", i + 1),
                        if i == 500 { Status::Failed } else { Status::Passed },
                        true,
                    )
                })
                .collect(),
        );
        let diff = RunDiff::new(&old, &new);
        assert_eq!(diff.unchanged, n - 2);
        let names = |change| diff.of(change).map(|c| c.name.as_str()).collect::<Vec<_>>();
        assert_eq!(names(Change::Regressed), ["c501/0"]);
        assert_eq!(names(Change::Removed), ["c0/0"]);
        assert_eq!(names(Change::Added), [format!("c{n}/0")]);
    }

    #[test]
    fn each_kind_of_change_is_classified() {
        use Status::*;
        let old = report(vec![
            outcome("same", Passed, true),
            outcome("regress", Passed, true),
            outcome("regress_unsupported", Unsupported, true),
            outcome("fix", Errored, true),
            outcome("fix_rule", Failed, false),
            outcome("kind", Failed, true),
            outcome("rule", Passed, false),
            outcome("gone", Passed, true),
        ]);
        let new = report(vec![
            outcome("same", Passed, true),
            outcome("regress", Failed, true),
            outcome("regress_unsupported", Errored, true),
            outcome("fix", Passed, true),
            outcome("fix_rule", Passed, false),
            outcome("kind", Errored, true),
            outcome("rule", Failed, false),
            outcome("new", Failed, true),
        ]);
        let diff = RunDiff::new(&old, &new);
        let names = |change| diff.of(change).map(|c| c.name.as_str()).collect::<Vec<_>>();
        assert_eq!(names(Change::Regressed), ["regress/0", "regress_unsupported/0"]);
        assert_eq!(names(Change::Fixed), ["fix/0", "fix_rule/0"]);
        assert_eq!(names(Change::BrokeNotGating), ["rule/0"]);
        assert_eq!(names(Change::ChangedStatus), ["kind/0"]);
        assert_eq!(names(Change::Added), ["new/0"]);
        assert_eq!(names(Change::Removed), ["gone/0"]);
        assert_eq!(diff.unchanged, 1);
        assert!(diff.regressed());
        assert_eq!(
            diff.line(),
            "2 regressed, 1 broke (not gating), 2 fixed, 1 changed status, 1 added, 1 removed"
        );
    }

    #[test]
    fn a_regression_under_a_renamed_root_is_still_one() {
        use Status::{Failed, Passed};
        let old = report(vec![
            outcome("../a:node/test_x", Passed, true),
            outcome("../b:node/test_x", Passed, true),
            outcome("../a:node/test_y", Passed, true),
        ]);
        let new = report(vec![
            outcome("../a2:node/test_x", Failed, true),
            outcome("../b2:node/test_x", Failed, true),
            outcome("../a2:node/test_y", Failed, true),
        ]);
        let diff = RunDiff::new(&old, &new);
        // test_y is one data set on each side: the same, regressed. test_x is two on each
        // side: which is which cannot be told, so they stay removed and added.
        let names = |change| diff.of(change).map(|c| c.name.as_str()).collect::<Vec<_>>();
        assert_eq!(names(Change::Regressed), ["../a:node/test_y/0"]);
        assert_eq!(names(Change::Removed).len(), 2);
        assert_eq!(names(Change::Added).len(), 2);
        assert!(diff.regressed());
    }

    #[test]
    fn no_regression_without_a_new_gating_failure() {
        let old = report(vec![outcome("a", Status::Failed, true)]);
        let new = report(vec![outcome("a", Status::Failed, true)]);
        assert!(!RunDiff::new(&old, &new).regressed());
        // A gating change alone (another --basis) is a change of status, not a regression.
        let new = report(vec![outcome("a", Status::Failed, false)]);
        let diff = RunDiff::new(&old, &new);
        assert_eq!(diff.changes[0].change, Change::ChangedStatus);
        assert!(!diff.regressed());
    }

    #[test]
    fn markdown_lists_each_kind_with_before_and_after() {
        let old = report(vec![
            outcome("a|b", Status::Passed, true),
            outcome("c", Status::Failed, false),
        ]);
        let new = report(vec![
            outcome("a|b", Status::Errored, true),
            outcome("c", Status::Passed, false),
        ]);
        let mut text = Vec::new();
        RunDiff::new(&old, &new).write_markdown(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains(
            "**1 regressed, 0 broke (not gating), 1 fixed, 0 changed status, 0 added, 0 removed** (0 unchanged)"
        ));
        assert!(text.contains("#### Regressed (1)"), "{text}");
        assert!(
            text.contains("| `a\\|b/0` | Pad-19 | spec | passed | errored | a\\|b is errored |"),
            "{text}"
        );
        assert!(
            text.contains("| `c/0` | Pad-19 | spec | failed (not gating) | passed |"),
            "{text}"
        );
        assert!(!text.contains("#### Added"));
        assert!(text.contains("| old | 1 | 0 | 0 | 0 | 0 | 1 |"), "{text}");
    }
}
