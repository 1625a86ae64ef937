//! The two shares every page prints — the scoreboard, `matrix`, `diff`, the history page and
//! docs/history.md — defined once (docs/report-format.md#shares), so that no two pages print
//! two figures under one name:
//!
//! - **conformance** = passed ÷ applicable: how much of what the corpus asks of the operator
//!   the backend answers as it must;
//! - **coverage** = supported ÷ applicable: how much of it the backend takes on at all.
//!
//! Applicable is every data set but the not applicable (skipped: no Pad-family node).
//! Supported is applicable but the unsupported (outside the backend's profile or a release's
//! format limits, unsupported for value range, or said so by the backend). Passed counts
//! passes within tolerance and after a crash too, and a refusal only once its valid twin passed:
//! a refusal not verified is supported and not passed, as is a failure on a basis the run does
//! not gate on.

use crate::report::Summary;

/// The counts the shares are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ShareCounts {
    /// Passed (verified refusals, passes within tolerance and after a crash included).
    pub passed: usize,
    /// Every data set but the not applicable ones.
    pub applicable: usize,
    /// The applicable ones but those unsupported.
    pub supported: usize,
}

impl ShareCounts {
    /// The counts of a run's summary.
    pub(super) fn of(summary: &Summary) -> ShareCounts {
        let supported = summary.passed + summary.failed + summary.errored + summary.not_gating + summary.not_verified;
        ShareCounts {
            passed: summary.passed,
            applicable: supported + summary.unsupported,
            supported,
        }
    }

    /// Passed ÷ applicable, 0 to 1; `None` when nothing is applicable.
    pub(super) fn conformance(&self) -> Option<f64> {
        (self.applicable > 0).then(|| self.passed as f64 / self.applicable as f64)
    }

    /// Supported ÷ applicable, 0 to 1; `None` when nothing is applicable.
    pub(super) fn coverage(&self) -> Option<f64> {
        (self.applicable > 0).then(|| self.supported as f64 / self.applicable as f64)
    }
}

/// A share as a percentage with one decimal (`63.3%`), or `–` when there is none.
pub(super) fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "–".to_owned(), |s| format!("{:.1}%", s * 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_verdict_counts_where_the_definitions_say() {
        let summary = Summary {
            passed: 6,
            failed: 1,
            errored: 1,
            skipped: 10,
            unsupported: 2,
            not_gating: 1,
            not_verified: 1,
            lossy: 2,
            notes: 1,
            after_crash: 1,
        };
        let counts = ShareCounts::of(&summary);
        // Skipped: not applicable. Unsupported: applicable, not supported. Not gating and not
        // verified: supported, not passed. Lossy, noted and after a crash: among the passed.
        assert_eq!(
            counts,
            ShareCounts {
                passed: 6,
                applicable: 12,
                supported: 10
            }
        );
        assert_eq!(percent(counts.conformance()), "50.0%");
        assert_eq!(percent(counts.coverage()), "83.3%");
        let nothing = ShareCounts::of(&Summary {
            skipped: 3,
            ..Summary::default()
        });
        assert_eq!(
            (nothing.conformance(), percent(nothing.coverage())),
            (None, "–".to_owned())
        );
    }
}
