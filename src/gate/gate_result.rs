//! The gate result of one data set: its verdict weighed by basis gating and the run's
//! baseline ([`Baseline::gate`](crate::gate::baseline::Baseline::gate) decides it). The gate's
//! own value, not the outcome's: a run keeps each data set's beside its outcome
//! (`RunReport::gates`, the harness's trials), so that judge/ below knows nothing of baselines,
//! and the JSON report writes it into the data set's entry (`gate`).

use serde::{Deserialize, Serialize};

use crate::judge::status::Status;

/// How one data set's outcome compares with a baseline: its verdict weighed by basis gating
/// and the baseline. Exit codes, labels and the reports' markers are functions of it; it is
/// recorded per data set in the JSON report (`gate`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum GateResult {
    /// Passed (or skipped, or unsupported) and not listed: nothing to say.
    Agrees,
    /// Failed or errored on a basis the run does not gate on: reported, never judged.
    NotGating,
    /// Failed or errored, as listed.
    KnownFailure {
        /// The baseline's reason.
        reason: String,
        /// Where the failure is tracked: the entry's `tracking` link, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tracking: Option<String>,
    },
    /// Failed or errored, not listed: a regression.
    NewFailure,
    /// Refused as it must be, not listed, but its valid twin did not pass: never a regression;
    /// it fails the run only under `--require-verified`.
    NotVerified,
    /// Listed, but passed (or is now declared unsupported, or refused with its twin not
    /// passing): the entry is outdated.
    Fixed {
        /// The status the baseline lists.
        was: Status,
        /// The baseline's reason.
        reason: String,
    },
    /// Listed with the other of failed and errored: the entry is outdated.
    ChangedStatus {
        /// The status the baseline lists.
        was: Status,
        /// The baseline's reason.
        reason: String,
    },
    /// A different verdict than the baseline's on a data set whose expected result or basis
    /// changed in the corpus since the baseline was written.
    ChangedWithCorpus {
        /// The status the baseline implied: listed, or passed when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        was: Option<Status>,
        /// The changelog's line.
        why: String,
    },
}

impl GateResult {
    /// `known-failure`, `new-failure`, …: the name the JSON report gives it.
    pub fn name(&self) -> &'static str {
        match self {
            GateResult::Agrees => "agrees",
            GateResult::NotGating => "not-gating",
            GateResult::KnownFailure { .. } => "known-failure",
            GateResult::NewFailure => "new-failure",
            GateResult::NotVerified => "not-verified",
            GateResult::Fixed { .. } => "fixed",
            GateResult::ChangedStatus { .. } => "changed-status",
            GateResult::ChangedWithCorpus { .. } => "changed-with-corpus",
        }
    }

    /// Whether this data set alone fails the run: a new failure always; an outdated entry
    /// under `strict`; a change with the corpus under `strict_corpus`; a refusal not verified
    /// under `require_verified`.
    pub fn fails(&self, strict: bool, strict_corpus: bool, require_verified: bool) -> bool {
        match self {
            GateResult::NewFailure => true,
            GateResult::Fixed { .. } | GateResult::ChangedStatus { .. } => strict,
            GateResult::ChangedWithCorpus { .. } => strict_corpus,
            GateResult::NotVerified => require_verified,
            GateResult::Agrees | GateResult::NotGating | GateResult::KnownFailure { .. } => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_failure_carries_its_tracking_link_in_json_only_when_it_has_one() {
        let tracked = GateResult::KnownFailure {
            reason: "no wrap".into(),
            tracking: Some("https://bugs.example/7".into()),
        };
        let text = serde_json::to_string(&tracked).unwrap();
        assert_eq!(
            text,
            r#"{"result":"known-failure","reason":"no wrap","tracking":"https://bugs.example/7"}"#
        );
        assert_eq!(serde_json::from_str::<GateResult>(&text).unwrap(), tracked);
        let older = r#"{"result":"known-failure","reason":"no wrap"}"#;
        let read: GateResult = serde_json::from_str(older).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), older);
    }
}
