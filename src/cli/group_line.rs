//! A failure group ([`group_failures`](crate::cli::failure_groups::group_failures)) as one
//! line of text: the key `pad-conformance history` stores, so that one bug is one line across a
//! runtime's releases (`spec failed: wrong-values: constant padding, sign of zero`, `spec
//! errored: refuses-valid — code NOT_IMPLEMENTED`), read back as the typed parts it was
//! written from, and its label, which reads as what it is: the verdict first, the basis after
//! it (`wrong-values: reflect padding, other values (failed, reference basis)`, never
//! "reference failed", which reads as the reference backend failing).

use std::fmt;

use crate::cli::failure_groups::group_key;
use crate::data::basis::Basis;
use crate::judge::cause_key::{CauseKey, Pattern};
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::{Cause, Failure};

/// A failure group's line, in its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct GroupLine {
    /// What the group's expected results rest on.
    pub basis: Basis,
    /// Failed or errored.
    pub status: Status,
    /// The cause key as it reads (`wrong-values: wrap padding, other values`); none for a
    /// report of format 1.
    pub cause: Option<String>,
    /// The backend's code (`code Fail`) or normalised words; empty when the cause says all.
    pub wording: String,
}

impl GroupLine {
    /// The line of a failed or errored outcome's group: the same for every failure
    /// [`group_failures`](crate::cli::failure_groups::group_failures) puts in one group and
    /// different for failures it keeps apart; `None` for any other status.
    pub(super) fn of(outcome: &Outcome) -> Option<GroupLine> {
        let (basis, status, cause, wording) = group_key(outcome)?;
        Some(GroupLine {
            basis,
            status,
            cause: cause.map(|(_, text)| text),
            wording,
        })
    }

    /// Reads a stored line back into its parts (`history` keeps lines this module wrote):
    /// the basis and status by name, then `: CAUSE` and ` — WORDING`, each when present. A crash
    /// group of an earlier version, split by what followed the kind (`crash: killed by a
    /// signal — worker exited (signal: N (SIGSEGV))`), reads as the one group of its kind.
    /// What does not read so is refused, saying why.
    pub(super) fn parse(line: &str) -> Result<GroupLine, String> {
        let (basis, rest) = line.split_once(' ').unwrap_or((line, ""));
        let basis = Basis::from_name(basis).ok_or_else(|| {
            format!(
                "{line:?}: starts with {basis:?}, not a basis ({})",
                Basis::ALL.map(Basis::name).join(", ")
            )
        })?;
        let end = rest.find([':', ' ']).unwrap_or(rest.len());
        let status = match &rest[..end] {
            "failed" => Status::Failed,
            "errored" => Status::Errored,
            other => return Err(format!("{line:?}: {other:?} after the basis, not failed or errored")),
        };
        let rest = &rest[end..];
        let (cause, wording) = match rest.strip_prefix(": ") {
            Some(caused) => match caused.split_once(" — ") {
                Some((cause, wording)) => (Some(cause), wording),
                None => (Some(caused), ""),
            },
            None if rest.is_empty() => (None, ""),
            None => match rest.strip_prefix(" — ") {
                Some(wording) => (None, wording),
                None => {
                    return Err(format!(
                        "{line:?}: neither \": CAUSE\" nor \" — WORDS\" after the status"
                    ));
                }
            },
        };
        if cause.is_some_and(str::is_empty) {
            return Err(format!("{line:?}: an empty cause"));
        }
        let kind_says_all = cause.is_some_and(|cause| crash_kinds().iter().any(|kind| kind == cause));
        Ok(GroupLine {
            basis,
            status,
            cause: cause.map(str::to_owned),
            wording: if kind_says_all {
                String::new()
            } else {
                wording.to_owned()
            },
        })
    }

    /// The group as it reads: the verdict's cause and the backend's words, then the status and
    /// the basis: `refuses-valid — code Fail (errored, spec basis)`.
    pub(super) fn label(&self) -> String {
        let what = match (&self.cause, self.wording.as_str()) {
            (Some(cause), "") => cause.clone(),
            (Some(cause), wording) => format!("{cause} — {wording}"),
            (None, "") => "(no message)".to_owned(),
            (None, wording) => wording.to_owned(),
        };
        format!("{what} ({}, {} basis)", self.status.name(), self.basis)
    }
}

impl fmt::Display for GroupLine {
    /// `spec failed: wrong-values: constant padding, sign of zero`, `spec errored: refuses-valid
    /// — code NOT_IMPLEMENTED`, `spec errored — WORDS` (format 1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.basis, self.status.name())?;
        if let Some(cause) = &self.cause {
            write!(f, ": {cause}")?;
        }
        if !self.wording.is_empty() {
            write!(f, " — {}", self.wording)?;
        }
        Ok(())
    }
}

/// How the kinds of crash read (`crash: killed by a signal`, `crash: exited`): a crash group
/// is one of these, whatever the signal or exit code.
fn crash_kinds() -> [String; 2] {
    let crash = |code, signal| {
        CauseKey {
            cause: Cause::Crash,
            pattern: Pattern::Failed(Failure::Crash { code, signal }),
        }
        .to_string()
    };
    [crash(None, Some(11)), crash(Some(1), None)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::failure_groups::reported_failure;
    use crate::judge::verdict::Verdict;

    #[test]
    fn a_line_reads_back_into_the_parts_it_was_written_from() {
        for line in [
            "spec failed: wrong-values: constant padding, sign of zero",
            "spec errored: refuses-valid — code NOT_IMPLEMENTED",
            "reference errored: crash: reported a failure — code RuntimeException",
            "undefined errored — backend x failed: N",
            "rule failed",
        ] {
            let parsed = GroupLine::parse(line).unwrap();
            assert_eq!(parsed.to_string(), line);
        }
        let parsed = GroupLine::parse("spec errored: refuses-valid — code Fail: a — b").unwrap();
        assert_eq!(
            (
                parsed.basis,
                parsed.status,
                parsed.cause.as_deref(),
                parsed.wording.as_str()
            ),
            (Basis::Spec, Status::Errored, Some("refuses-valid"), "code Fail: a — b")
        );
    }

    #[test]
    fn a_label_puts_the_verdict_first_and_the_basis_after_it() {
        let label = |line: &str| GroupLine::parse(line).unwrap().label();
        assert_eq!(
            label("reference failed: wrong-values: reflect padding, other values"),
            "wrong-values: reflect padding, other values (failed, reference basis)"
        );
        assert_eq!(
            label("spec errored: refuses-valid — code Fail"),
            "refuses-valid — code Fail (errored, spec basis)"
        );
    }

    #[test]
    fn crash_groups_of_an_earlier_version_split_by_signal_read_as_one_per_kind() {
        let sigsegv = GroupLine::parse("rule errored: crash: killed by a signal — worker exited (signal: N (SIGSEGV))");
        let sigabrt = GroupLine::parse("rule errored: crash: killed by a signal — worker exited (signal: N (SIGABRT))");
        assert_eq!(sigsegv, sigabrt);
        assert_eq!(sigsegv.unwrap().to_string(), "rule errored: crash: killed by a signal");
        assert_eq!(
            GroupLine::parse("spec errored: crash: exited — worker exited with code N")
                .unwrap()
                .to_string(),
            "spec errored: crash: exited"
        );
        // A reported failure's code still splits.
        assert_eq!(
            GroupLine::parse("spec errored: crash: reported a failure — code TypeError")
                .unwrap()
                .wording,
            "code TypeError"
        );
    }

    #[test]
    fn what_no_group_line_says_is_refused_naming_it() {
        assert!(
            GroupLine::parse("backend failed: x")
                .unwrap_err()
                .contains("not a basis")
        );
        assert!(
            GroupLine::parse("spec passed")
                .unwrap_err()
                .contains("not failed or errored")
        );
        assert!(
            GroupLine::parse("spec failed x")
                .unwrap_err()
                .contains("after the status")
        );
        assert!(
            GroupLine::parse("spec failed: ")
                .unwrap_err()
                .contains("an empty cause")
        );
    }

    #[test]
    fn two_crashes_of_two_signals_are_one_group_whose_line_names_the_kind() {
        let crash = |id: &str, signal: i32| {
            let verdict = Verdict::Failed {
                failure: Failure::Crash {
                    code: None,
                    signal: Some(signal),
                },
                detail: format!("worker exited (signal: {signal})"),
                must_refuse: false,
            };
            Outcome::example_judged(id, verdict).with_backend("x")
        };
        let (a, b) = (crash("a", 11), crash("b", 6));
        assert_eq!(GroupLine::of(&a), GroupLine::of(&b));
        assert_eq!(
            GroupLine::of(&a).unwrap().to_string(),
            "spec errored: crash: killed by a signal"
        );
        let reported = reported_failure("c", "x", Some("TypeError"), "boom");
        assert_eq!(
            GroupLine::of(&reported).unwrap().to_string(),
            "spec errored: crash: reported a failure — code TypeError"
        );
    }
}
