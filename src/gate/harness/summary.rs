//! The harness's own closing lines, after libtest's: how many trials passed (and how many of
//! those only within tolerance), how many failed as the baseline expects, how many are new.
//! libtest counts a known failure as `ok` and a lossy pass as `ok`; this tells them apart.

use std::fmt::{self, Write as _};

use super::trial_result::TrialResult;
use crate::gate::baseline::{Baseline, CorpusChange, GateResult};
use crate::judge::check::Status;
use crate::judge::compare::MAX_LISTED;
use crate::text::escape_line;

/// Counts over the trials that ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HarnessSummary {
    /// The backend's name.
    pub backend: String,
    /// Trials whose data set passed.
    pub passed: usize,
    /// Of those, the ones that were not bit-identical (passed within tolerance), by name,
    /// with the largest absolute error.
    pub lossy: Vec<(String, Option<f64>)>,
    /// Failed or errored as the baseline lists them.
    pub known_failures: usize,
    /// Failed or errored and not listed: regressions.
    pub new_failures: usize,
    /// Listed, but passed or failed otherwise than listed: the baseline needs an update.
    pub outdated: usize,
    /// Not applicable.
    pub skipped: usize,
    /// Outside the backend's declared profile.
    pub unsupported: usize,
    /// Failed or errored on a basis the run does not gate on: reported, never failed.
    pub not_gating: usize,
    /// A verdict other than the baseline's on a data set the corpus changed since it was
    /// written, each with why.
    pub changed_with_corpus: Vec<CorpusChange>,
    /// Every trial counted: the counts above (lossy passes among the passed) add up to it.
    pub total: usize,
}

impl HarnessSummary {
    /// Counts `results` against `baseline`.
    pub fn new(backend: &str, results: &[TrialResult], baseline: &Baseline) -> HarnessSummary {
        let mut summary = HarnessSummary {
            backend: backend.to_owned(),
            ..HarnessSummary::default()
        };
        for result in results {
            summary.total += 1;
            if result.is_non_gating_failure() {
                summary.not_gating += 1;
                continue;
            }
            // Each trial lands in exactly one count.
            match (result.status, baseline.finding(&result.name, result.status)) {
                (_, GateResult::ExpectedFailure) => summary.known_failures += 1,
                (_, GateResult::Regression) => summary.new_failures += 1,
                (_, GateResult::UnexpectedPass(_) | GateResult::ChangedStatus(_)) => summary.outdated += 1,
                (now, GateResult::CorpusChange { was, why }) => summary.changed_with_corpus.push(CorpusChange {
                    name: result.name.clone(),
                    was: was.to_owned(),
                    now,
                    why: why.to_owned(),
                }),
                (Status::Skipped, GateResult::Agrees) => summary.skipped += 1,
                (Status::Unsupported, GateResult::Agrees) => summary.unsupported += 1,
                (_, GateResult::Agrees) => {
                    summary.passed += 1;
                    if result.is_lossy_pass() {
                        summary.lossy.push((result.name.clone(), result.max_abs_error));
                    }
                }
            }
        }
        summary.lossy.sort_by(|a, b| a.0.cmp(&b.0));
        summary
    }
}

impl fmt::Display for HarnessSummary {
    /// `pad-conformance, backend x: 23 data sets: 17 passed (2 not bit-identical), 6 known failures (in
    /// the baseline), 0 new failures, 0 outdated baseline entries, 0 skipped`, then the first
    /// lossy passes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = format!(
            "pad-conformance, backend {}: {} data sets: {} passed",
            escape_line(&self.backend),
            self.total,
            self.passed
        );
        if !self.lossy.is_empty() {
            write!(line, " ({} not bit-identical)", self.lossy.len())?;
        }
        write!(
            line,
            ", {} known failures (in the baseline), {} new failures, {} outdated baseline entries, {} skipped",
            self.known_failures, self.new_failures, self.outdated, self.skipped
        )?;
        if self.unsupported > 0 {
            write!(line, ", {} unsupported", self.unsupported)?;
        }
        if self.not_gating > 0 {
            write!(line, ", {} not gating", self.not_gating)?;
        }
        if !self.changed_with_corpus.is_empty() {
            write!(line, ", {} changed with the corpus", self.changed_with_corpus.len())?;
        }
        f.write_str(&line)?;
        for change in &self.changed_with_corpus {
            write!(
                f,
                "\n  changed with the corpus, not the backend: {}",
                escape_line(&change.to_string())
            )?;
        }
        for (name, error) in self.lossy.iter().take(MAX_LISTED) {
            write!(
                f,
                "\n  passed within tolerance, not bit-identical: {}",
                escape_line(name)
            )?;
            if let Some(error) = error {
                write!(f, " (max abs error {error:e})")?;
            }
        }
        if self.lossy.len() > MAX_LISTED {
            write!(f, "\n  … and {} more", self.lossy.len() - MAX_LISTED)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_data_are_shown_not_executed() {
        let summary = HarnessSummary {
            backend: "w\x1b[2J\r".to_owned(),
            lossy: vec![("test_x\nPASS  forged/0".to_owned(), None)],
            ..HarnessSummary::default()
        };
        let text = summary.to_string();
        assert!(!text.contains('\x1b') && !text.contains('\r'), "{text:?}");
        assert!(text.starts_with("pad-conformance, backend w\\u{1b}[2J\\r: "), "{text}");
        assert!(
            text.ends_with("\n  passed within tolerance, not bit-identical: test_x\\nPASS  forged/0"),
            "{text}"
        );
    }
}
