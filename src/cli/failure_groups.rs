//! Failures grouped by reason: the first line of each message with the parts that differ
//! from one data set to the next (numbers, version numbers, paths) replaced, and the basis of
//! the expected result, and the cause its verdicts group under. docs/results.md and the scoreboard's
//! failure groups both read this grouping, so they cannot drift apart.

use std::collections::BTreeMap;

use pad_conformance::data::basis::Basis;
use pad_conformance::judge::check::{Outcome, Status};
use pad_conformance::judge::verdict::Cause;

/// The reason of a message, as a group key: its first line with every run of digits (with
/// its dotted continuations: `1.32.0`, `0.5`) replaced by `N`, every path-like word (one
/// holding a `/`) by `PATH`, and runs of white space collapsed.
///
/// ```
/// use crate::cli::failure_groups::normalize_reason;
/// assert_eq!(
///     normalize_reason("backend onnxruntime 1.32.0 failed: reading /tmp/x7/model.onnx: Pad(19)\nmore"),
///     "backend onnxruntime N failed: reading PATH: Pad(N)"
/// );
/// ```
pub fn normalize_reason(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    let words: Vec<String> = line.split_whitespace().map(normalize_word).collect();
    words.join(" ")
}

/// One word: a path (the part between leading and trailing punctuation holding a `/`)
/// becomes `PATH`; otherwise numbers become `N`.
fn normalize_word(word: &str) -> String {
    let is_edge = |c: char| matches!(c, '"' | '\'' | '(' | ')' | '[' | ']' | ',' | ';' | '`' | '{' | '}');
    let core = word.trim_start_matches(is_edge);
    let lead = &word[..word.len() - core.len()];
    let core = core.trim_end_matches(|c: char| is_edge(c) || c == ':' || c == '.');
    let trail = &word[lead.len() + core.len()..];
    if core.contains('/') {
        // `exec:.venv/bin/python` keeps its scheme.
        let scheme = core
            .find(':')
            .filter(|&i| !core[..i].contains('/'))
            .map_or("", |i| &core[..=i]);
        return format!("{lead}{scheme}PATH{trail}");
    }
    replace_numbers(word)
}

/// Every run of digits, with any `.digits` continuations, becomes `N`.
fn replace_numbers(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            out.push(c);
            continue;
        }
        while chars.peek().is_some_and(char::is_ascii_digit) {
            chars.next();
        }
        // A dot followed by a digit continues the number: versions and decimals.
        loop {
            let mut ahead = chars.clone();
            if ahead.next() == Some('.') && ahead.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
            } else {
                break;
            }
        }
        out.push('N');
    }
    out
}

/// The number of elements of a data set's input, when its shape is known.
pub fn elements(outcome: &Outcome) -> Option<usize> {
    outcome.shape.as_ref().map(|shape| shape.iter().product())
}

/// Data sets that failed or errored for the same reason on the same basis.
#[derive(Clone, Debug)]
pub struct FailureGroup<'a> {
    /// The normalized first line of their messages ([`normalize_reason`]).
    pub reason: String,
    /// What their expected results rest on.
    pub basis: Basis,
    /// `failed` or `errored`.
    pub status: Status,
    /// What their verdicts group under (none in a report of format 1).
    pub cause: Option<Cause>,
    /// Whether any of them fails the run (its basis is one the run gates on).
    pub gates: bool,
    /// The data sets, smallest first (fewest input elements; unknown shapes last), then by name.
    pub outcomes: Vec<&'a Outcome>,
}

impl<'a> FailureGroup<'a> {
    /// The smallest data set showing the failure.
    pub fn smallest(&self) -> &'a Outcome {
        self.outcomes[0]
    }
}

/// The failed and errored data sets of `outcomes`, grouped by (basis, status, reason);
/// groups ordered by basis (spec first), then by size (largest first), then by reason.
pub fn group_failures<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Vec<FailureGroup<'a>> {
    let mut groups: BTreeMap<(Basis, Status, Option<Cause>, String), Vec<&'a Outcome>> = BTreeMap::new();
    for outcome in outcomes {
        if matches!(outcome.status, Status::Failed | Status::Errored) {
            let cause = outcome.verdict.as_ref().and_then(|v| v.cause());
            let key = (
                outcome.basis.kind,
                outcome.status,
                cause,
                normalize_reason(&outcome.message),
            );
            groups.entry(key).or_default().push(outcome);
        }
    }
    let mut groups: Vec<FailureGroup<'a>> = groups
        .into_iter()
        .map(|((basis, status, cause, reason), mut outcomes)| {
            outcomes.sort_by_cached_key(|o| (elements(o).unwrap_or(usize::MAX), o.name()));
            FailureGroup {
                reason,
                basis,
                status,
                cause,
                gates: outcomes.iter().any(|o| o.gates),
                outcomes,
            }
        })
        .collect();
    groups.sort_by(|a, b| {
        (a.basis, std::cmp::Reverse(a.outcomes.len()), &a.reason).cmp(&(
            b.basis,
            std::cmp::Reverse(b.outcomes.len()),
            &b.reason,
        ))
    });
    groups
}

#[cfg(test)]
mod tests {

    use super::*;
    use pad_conformance::data::basis::BasisNote;

    fn outcome(id: &str, status: Status, basis: Basis, shape: Option<Vec<usize>>, message: &str) -> Outcome {
        Outcome {
            shape,
            basis: BasisNote {
                kind: basis,
                section: String::new(),
            },
            gates: basis <= Basis::Reference,
            message: message.to_owned(),
            ..Outcome::example(id, status)
        }
    }

    #[test]
    fn numbers_versions_and_paths_are_replaced_and_words_kept() {
        assert_eq!(
            normalize_reason("output 0 \"y\": 12 of 126 elements differ\n  [0, 1] expected 1 actual 2"),
            "output N \"y\": N of N elements differ"
        );
        assert_eq!(
            normalize_reason("backend exec:.venv/bin/python scripts/w failed: pre-pad (5) exceeds maximum allowed (2)"),
            "backend exec:PATH PATH failed: pre-pad (N) exceeds maximum allowed (N)"
        );
        assert_eq!(
            normalize_reason("reading \"onnx-testdata/extended/a/model.onnx\": bad tensor(complex64)"),
            "reading \"PATH\": bad tensor(complexN)"
        );
        assert_eq!(normalize_reason("tolerance 1e-7 and 0.5,"), "tolerance Ne-N and N,");
        assert_eq!(normalize_reason("  spaced \t out  "), "spaced out");
        assert_eq!(normalize_reason(""), "");
    }

    #[test]
    fn groups_split_by_basis_and_status_and_list_the_smallest_first() {
        let outcomes = [
            outcome(
                "b",
                Status::Errored,
                Basis::Spec,
                Some(vec![4, 5]),
                "no kernel for Pad(19)",
            ),
            outcome(
                "a",
                Status::Errored,
                Basis::Spec,
                Some(vec![2, 3]),
                "no kernel for Pad(21)",
            ),
            outcome("c", Status::Errored, Basis::Spec, None, "no kernel for Pad(19)"),
            outcome(
                "d",
                Status::Errored,
                Basis::Rule,
                Some(vec![1]),
                "no kernel for Pad(19)",
            ),
            outcome("e", Status::Failed, Basis::Spec, Some(vec![1]), "no kernel for Pad(19)"),
            outcome(
                "f",
                Status::Passed,
                Basis::Spec,
                Some(vec![1]),
                "refused as expected: x",
            ),
            outcome(
                "g",
                Status::Unsupported,
                Basis::Spec,
                Some(vec![1]),
                "no kernel for Pad(19)",
            ),
        ];
        let groups = group_failures(&outcomes);
        let summary: Vec<(Basis, Status, usize, &str)> = groups
            .iter()
            .map(|g| (g.basis, g.status, g.outcomes.len(), g.smallest().id.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (Basis::Spec, Status::Errored, 3, "a"),
                (Basis::Spec, Status::Failed, 1, "e"),
                (Basis::Rule, Status::Errored, 1, "d"),
            ]
        );
        let names: Vec<&str> = groups[0].outcomes.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"], "by elements (6, 20), unknown shape last");
        assert_eq!(groups[0].reason, "no kernel for Pad(N)");
        assert!(groups[0].gates && !groups[2].gates);
    }
}
