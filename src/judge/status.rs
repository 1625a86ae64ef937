//! What happened to one data set, in six words: the status reports, baselines and summaries
//! count by, a function of the verdict (`Verdict::status`).

use serde::Serialize;

/// What happened to one data set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Outputs matched (or the backend refused a data set that must be refused).
    Passed,
    /// Outputs differ (or the backend answered a data set that must be refused).
    Failed,
    /// The case or the backend could not run; the message says why.
    Errored,
    /// Not applicable: the graph holds no Pad-family node.
    Skipped,
    /// Outside the backend's declared profile: counted and listed, never failed.
    Unsupported,
    /// Refused as it must be, but its valid twin did not pass in the same run: counted apart,
    /// never a pass and never a regression (docs/semantics.md#twins).
    #[serde(rename = "not_verified")]
    NotVerified,
}

impl Status {
    /// The lowercase name reports and baselines use.
    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Errored => "errored",
            Status::Skipped => "skipped",
            Status::Unsupported => "unsupported",
            Status::NotVerified => "not_verified",
        }
    }
}
