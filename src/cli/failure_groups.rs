//! Failures grouped by root cause: the basis of the expected result, the status, and the
//! library's cause key (the verdict's cause, and for a value mismatch where and how the values
//! differ; for a crash its kind, not its signal or exit code) — never the wording of a
//! message, but for outcomes of reports written before verdicts were recorded, which group by
//! their normalized first line. A group is keyed by normalised words but labelled by a real
//! message, its smallest data set's. docs/results.md and the scoreboard's failure groups both
//! read this grouping, so they cannot drift apart.

use std::collections::BTreeMap;

use crate::data::basis::Basis;
use crate::judge::cause_key::CauseKey;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::{Cause, Failure, Verdict};

/// The reason of a message, as a group key and a label (docs/report-format.md#failure-groups):
/// its first line with every quoted name (`'x'`, `"x"`, `` `x` ``) replaced by `NAME` in its
/// quotes, every hexadecimal number (`0x7f3a`) by `HEX`, every run of digits (with its dotted
/// continuations: `1.32.0`, `0.5`) by `N`, every path-like word (one holding a `/`) by
/// `PATH`, and runs of white space collapsed. It splits and labels groups; it never decides a
/// verdict.
///
/// ```text
/// use crate::cli::failure_groups::normalize_reason;
/// assert_eq!(
///     normalize_reason("backend onnxruntime 1.32.0 failed: reading /tmp/x7/model.onnx: Pad(19)\nmore"),
///     "backend onnxruntime N failed: reading PATH: Pad(N)"
/// );
/// ```
pub(super) fn normalize_reason(message: &str) -> String {
    let line = replace_quoted_names(message.lines().next().unwrap_or_default());
    let words: Vec<String> = line.split_whitespace().map(normalize_word).collect();
    words.join(" ")
}

/// Every quoted name (not a path) becomes `NAME` in its quotes: a quote opens where a word starts and
/// closes, on the same line, where one ends, so an apostrophe (`doesn't`) opens nothing.
fn replace_quoted_names(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let is_word = |i: usize| chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let quote = chars[i];
        let opens = matches!(quote, '\'' | '"' | '`') && (i == 0 || !is_word(i - 1));
        let close = opens
            .then(|| (i + 2..chars.len()).find(|&j| chars[j] == quote && !is_word(j + 1)))
            .flatten()
            // A quoted path is a path.
            .filter(|&j| !chars[i + 1..j].contains(&'/'));
        match close {
            Some(j) => {
                out.push(quote);
                out.push_str("NAME");
                out.push(quote);
                i = j + 1;
            }
            None => {
                out.push(quote);
                i += 1;
            }
        }
    }
    out
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
    if core.len() > 2 && core[..2].eq_ignore_ascii_case("0x") && core[2..].chars().all(|c| c.is_ascii_hexdigit()) {
        return format!("{lead}HEX{trail}");
    }
    replace_numbers(word)
}

/// A message's first line as a label shows it: the words, names and numbers as said (the
/// operator version, element type and runtime version a maintainer needs), but what changes
/// from run to run or machine to machine — a path's directories (`…/model.onnx`), a
/// hexadecimal address (`0x…`) — left out, and white space collapsed.
///
/// ```text
/// use crate::cli::failure_groups::shown_message;
/// assert_eq!(
///     shown_message("Load model from /tmp/x7/model.onnx failed at 0x7f3a: Pad(19)\nmore"),
///     "Load model from …/model.onnx failed at 0x…: Pad(19)"
/// );
/// ```
pub(super) fn shown_message(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    let words: Vec<String> = line.split_whitespace().map(shown_word).collect();
    words.join(" ")
}

/// One word of [`shown_message`].
fn shown_word(word: &str) -> String {
    let is_edge = |c: char| matches!(c, '"' | '\'' | '(' | ')' | '[' | ']' | ',' | ';' | '`' | '{' | '}');
    let core = word.trim_start_matches(is_edge);
    let lead = &word[..word.len() - core.len()];
    let core = core.trim_end_matches(|c: char| is_edge(c) || c == ':' || c == '.');
    let trail = &word[lead.len() + core.len()..];
    if let Some((_, last)) = core.rsplit_once('/') {
        // `exec:.venv/bin/python` keeps its scheme.
        let scheme = core
            .find(':')
            .filter(|&i| !core[..i].contains('/'))
            .map_or("", |i| &core[..=i]);
        return format!("{lead}{scheme}…/{last}{trail}");
    }
    if core.len() > 2 && core[..2].eq_ignore_ascii_case("0x") && core[2..].chars().all(|c| c.is_ascii_hexdigit()) {
        return format!("{lead}0x…{trail}");
    }
    word.to_owned()
}

/// What splits a group of a backend's errors further: the backend's own code when it gave one
/// (`code TypeError`), else its words normalised ([`normalize_reason`]); `None` for a verdict
/// that carries no error of the backend (a mismatch, a timeout, the runner's own failure) or
/// whose kind says all (a crash: killed by a signal, or exited, whichever signal or code).
fn error_split(outcome: &Outcome) -> Option<String> {
    let words = match outcome.verdict()? {
        Verdict::RefusedValid { refusal } | Verdict::RefusedForAnotherReason { refusal, .. } => refusal,
        Verdict::Failed {
            failure: Failure::Timeout | Failure::Runner | Failure::Crash { .. },
            ..
        } => return None,
        Verdict::Failed { detail, .. } => detail,
        _ => return None,
    };
    Some(match outcome.code() {
        Some(code) => format!("code {code}"),
        None => normalize_reason(words),
    })
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

/// A data set on which backend `backend` reported a failure of its own, coded `code`: for
/// the tests of groups and what shows them.
#[cfg(test)]
pub(super) fn reported_failure(id: &str, backend: &str, code: Option<&str>, detail: &str) -> Outcome {
    let verdict = Verdict::Failed {
        failure: Failure::Reported,
        detail: detail.to_owned(),
        must_refuse: false,
    };
    Outcome::example_judged(id, verdict)
        .with_backend(backend)
        .with_code(code.map(str::to_owned))
        .with_input(Some(crate::tensor::DataType::Float), Some(vec![1]))
}

/// The number of elements of a data set's input, when its shape is known.
pub(super) fn elements(outcome: &Outcome) -> Option<usize> {
    outcome.shape().map(|shape| shape.iter().product())
}

/// Data sets that failed or errored for the same root cause on the same basis.
#[derive(Clone, Debug)]
pub(super) struct FailureGroup<'a> {
    /// The normalized first line of the smallest one's message ([`normalize_reason`]): for
    /// ordering and searching, not for showing.
    pub reason: String,
    /// The first line of the smallest one's message as said ([`shown_message`]): what labels
    /// the group.
    pub message: String,
    /// How many distinct messages its data sets give (told apart as [`normalize_reason`]
    /// words them: numbers, names and paths aside).
    pub distinct_messages: usize,
    /// The distinct normalized first lines of their messages, with how many say each, most
    /// first: what the group holds.
    pub messages: Vec<(String, usize)>,
    /// The backend's own code they share, when it gave one.
    pub code: Option<String>,
    /// The root cause they share (none in a report of format 1): the smallest one's; for a
    /// crash, the others may have another signal or exit code.
    pub key: Option<CauseKey>,
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
    /// `wrong-values: constant padding, sign of zero — mismatch: output 0 "y": 3 of 12
    /// elements differ; … (one of 2 distinct messages)`: the root cause (with the backend's
    /// code), then the label.
    pub(super) fn headline(&self) -> String {
        let code = self.code.as_ref().map_or(String::new(), |c| format!(" (code {c})"));
        match &self.key {
            Some(key) => format!("{key}{code} — {}", self.label()),
            None => format!("{}{code}", self.label()),
        }
    }

    /// The smallest data set's message, and when the group holds others, how many:
    /// `backend x refused a valid input (kind refused): no kernel for int8 (one of 3 distinct
    /// messages)`.
    pub(super) fn label(&self) -> String {
        match self.distinct_messages {
            0 | 1 => self.message.clone(),
            n => format!("{} (one of {n} distinct messages)", self.message),
        }
    }

    /// The smallest data set showing the failure.
    pub(super) fn smallest(&self) -> &'a Outcome {
        self.outcomes[0]
    }
}

/// What puts two failures in one group: basis, status, cause key as it reads (so a crash's
/// signal or exit code, which it leaves out, splits nothing), and for a backend's errors its
/// code or normalized words.
pub(super) type GroupKey = (Basis, Status, Option<(Cause, String)>, String);

/// The group a failed or errored outcome falls in; `None` for any other status.
pub(super) fn group_key(outcome: &Outcome) -> Option<GroupKey> {
    if !matches!(outcome.status(), Status::Failed | Status::Errored) {
        return None;
    }
    let cause = outcome.cause_key();
    // Only an outcome without a verdict (format 1) is told apart by its wording.
    let wording = match cause {
        Some(_) => error_split(outcome).unwrap_or_default(),
        None => normalize_reason(&outcome.message()),
    };
    let cause = cause.map(|key| (key.cause, key.to_string()));
    Some((outcome.basis().kind, outcome.status(), cause, wording))
}

/// The failed and errored data sets of `outcomes`, grouped by (basis, status, cause key, and
/// for a backend's errors its code or normalized words);
/// groups ordered by basis (spec first), then by size (largest first), then by reason.
pub(super) fn group_failures<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Vec<FailureGroup<'a>> {
    let mut groups: BTreeMap<GroupKey, Vec<&'a Outcome>> = BTreeMap::new();
    for outcome in outcomes {
        if let Some(key) = group_key(outcome) {
            groups.entry(key).or_default().push(outcome);
        }
    }
    let mut groups: Vec<FailureGroup<'a>> = groups
        .into_iter()
        .map(|((basis, status, cause, _), mut outcomes)| {
            // The smallest first: it labels the group, so the label is the same whatever
            // order the outcomes came in.
            outcomes.sort_by_cached_key(|o| (elements(o).unwrap_or(usize::MAX), o.name()));
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for outcome in &outcomes {
                *counts.entry(normalize_reason(&outcome.message())).or_default() += 1;
            }
            let mut messages: Vec<(String, usize)> = counts.into_iter().collect();
            messages.sort_by_key(|(message, n)| (std::cmp::Reverse(*n), message.clone()));
            let code = outcomes[0]
                .code()
                .map(str::to_owned)
                .filter(|_| outcomes.iter().all(|o| o.code() == outcomes[0].code()));
            FailureGroup {
                reason: normalize_reason(&outcomes[0].message()),
                message: shown_message(&outcomes[0].message()),
                distinct_messages: messages.len(),
                messages,
                code,
                cause: cause.map(|(cause, _)| cause),
                key: outcomes[0].cause_key(),
                basis,
                status,
                gates: outcomes.iter().any(|o| o.gates()),
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
    use crate::data::basis::BasisNote;

    /// A data set of a report of format 1 (no verdict), told apart by its wording alone.
    fn outcome(id: &str, status: Status, basis: Basis, shape: Option<Vec<usize>>, message: &str) -> Outcome {
        on(Outcome::example_said(id, status, message), basis, shape)
    }

    /// `outcome` on `basis`, gating when the default run gates on it, its input of `shape`.
    fn on(outcome: Outcome, basis: Basis, shape: Option<Vec<usize>>) -> Outcome {
        outcome
            .with_input(Some(crate::tensor::DataType::Float), shape)
            .with_basis(BasisNote {
                kind: basis,
                section: String::new(),
            })
            .with_gates(basis <= Basis::Reference)
    }

    #[test]
    fn numbers_versions_and_paths_are_replaced_and_words_kept() {
        assert_eq!(
            normalize_reason("output 0 \"y\": 12 of 126 elements differ\n  [0, 1] expected 1 actual 2"),
            "output N \"NAME\": N of N elements differ"
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
            .map(|g| (g.basis, g.status, g.outcomes.len(), g.smallest().id()))
            .collect();
        assert_eq!(
            summary,
            [
                (Basis::Spec, Status::Errored, 3, "a"),
                (Basis::Spec, Status::Failed, 1, "e"),
                (Basis::Rule, Status::Errored, 1, "d"),
            ]
        );
        let names: Vec<&str> = groups[0].outcomes.iter().map(|o| o.id()).collect();
        assert_eq!(names, ["a", "b", "c"], "by elements (6, 20), unknown shape last");
        assert_eq!(groups[0].reason, "no kernel for Pad(N)");
        assert!(groups[0].gates && !groups[2].gates);
    }

    #[test]
    fn one_cause_worded_many_ways_is_one_group_and_two_causes_worded_alike_are_two() {
        use crate::judge::verdict::{Failure, Verdict};
        let with = |id: &str, verdict: Verdict| on(Outcome::example_judged(id, verdict), Basis::Spec, Some(vec![1]));
        let refused = |message: &str| Verdict::RefusedValid {
            refusal: message.to_owned(),
        };
        let killed = |signal: i32| Verdict::Failed {
            failure: Failure::Crash {
                code: None,
                signal: Some(signal),
            },
            detail: format!("killed by signal {signal}"),
            must_refuse: false,
        };
        let outcomes = [
            // One backend refusing everything, in as many words as it has kernels.
            with("a", refused("no kernel for int8 reflect")),
            with("b", refused("unsupported: wrap on axis 3")),
            // A crash and a polite refusal that says "signal": two causes, not one.
            with("c", killed(11)),
            with("d", refused("the signal path lacks this mode")),
            // A crash by another signal: the same kind of crash, the same group.
            with("e", killed(6)),
        ];
        let groups = group_failures(&outcomes);
        let sizes: Vec<(String, String, usize)> = groups
            .iter()
            .map(|g| (g.key.as_ref().unwrap().to_string(), g.label(), g.outcomes.len()))
            .collect();
        let refused = "backend x refused a valid input (kind refused):";
        assert_eq!(
            sizes,
            [
                (
                    "crash: killed by a signal".to_owned(),
                    "backend x crashed: killed by signal 11".to_owned(),
                    2
                ),
                (
                    "refuses-valid".to_owned(),
                    format!("{refused} no kernel for int8 reflect"),
                    1
                ),
                (
                    "refuses-valid".to_owned(),
                    format!("{refused} the signal path lacks this mode"),
                    1
                ),
                (
                    "refuses-valid".to_owned(),
                    format!("{refused} unsupported: wrap on axis 3"),
                    1
                ),
            ],
            "{groups:#?}"
        );
    }

    #[test]
    fn a_backends_code_groups_its_errors_and_the_smallest_data_sets_message_labels_the_group() {
        let failed = |id: &str, code: Option<&str>, detail: &str| reported_failure(id, "numpy.pad", code, detail);
        let outcomes = [
            failed("a", None, "TypeError: `pad_width` must be of integral type."),
            failed("c", None, "ValueError: too many values to unpack (expected 2)"),
            failed("b", None, "ValueError: too many values to unpack (expected 1)"),
            failed("f", Some("ValueError"), "operands could not be broadcast"),
            failed("e", Some("ValueError"), "operands could not be broadcast"),
            failed("d", Some("ValueError"), "too many values to unpack (expected 1)"),
        ];
        let groups = group_failures(&outcomes);
        let labels: Vec<(usize, usize, String)> = groups
            .iter()
            .map(|g| (g.outcomes.len(), g.distinct_messages, g.label()))
            .collect();
        let said = "backend numpy.pad failed (it reported an internal failure, kind failed):";
        // Every input is of one element: the smallest is the first by name, whatever the order
        // the outcomes came in; its message is shown as said, numbers and names kept.
        assert_eq!(
            labels,
            [
                (
                    3,
                    2,
                    format!("{said} too many values to unpack (expected 1) (one of 2 distinct messages)")
                ),
                (
                    2,
                    1,
                    format!("{said} ValueError: too many values to unpack (expected 1)")
                ),
                (1, 1, format!("{said} TypeError: `pad_width` must be of integral type.")),
            ]
        );
        assert_eq!(
            groups[0].headline(),
            format!(
                "crash: reported a failure (code ValueError) — {said} too many values to unpack (expected 1) \
                 (one of 2 distinct messages)"
            )
        );
        // The split's counts stay, for the JSON of `matrix`.
        assert_eq!(
            groups[0].messages,
            [
                (format!("{said} operands could not be broadcast"), 2),
                (format!("{said} too many values to unpack (expected N)"), 1)
            ]
        );
        // The cause key is the fuzzer's and history's: the split leaves it as it was.
        assert!(
            groups
                .iter()
                .all(|g| g.key.as_ref().unwrap().to_string() == "crash: reported a failure")
        );
    }

    #[test]
    fn a_shown_message_keeps_versions_and_types_but_not_paths_or_addresses() {
        assert_eq!(
            shown_message(
                "backend onnxruntime 1.32.0 refused a valid input (kind refused): Fail: Load model from \
                 /tmp/pad-x7/model.onnx failed: Pad(25) does not accept tensor(int4) at 0x7f3A\nsecond line"
            ),
            "backend onnxruntime 1.32.0 refused a valid input (kind refused): Fail: Load model from \
             …/model.onnx failed: Pad(25) does not accept tensor(int4) at 0x…"
        );
        assert_eq!(
            shown_message("backend exec:.venv/bin/python scripts/w failed: 'x/y', \"a\""),
            "backend exec:…/python …/w failed: '…/y', \"a\""
        );
    }

    #[test]
    fn quoted_names_and_hex_are_replaced_but_apostrophes_kept() {
        assert_eq!(
            normalize_reason("can't read 'x_1' at 0x7f3A from \"input 2\" via `pads`"),
            "can't read 'NAME' at HEX from \"NAME\" via `NAME`"
        );
        assert_eq!(normalize_reason("a 'lone quote"), "a 'lone quote");
    }
}
