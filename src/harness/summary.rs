//! The harness's own closing lines, after libtest's: what needs a look (the changes with the
//! corpus, the refusals not verified, the lossy passes), then, last, the command line's summary
//! line (passed, failed, errored apart, skipped, unsupported, not gating) over every trial and
//! how the run weighs against the baseline — known failures, new ones, outdated entries.
//! libtest counts a known failure and a lossy pass as `ok`; this tells them apart.

use std::fmt;

use crate::backend::Language;
use crate::gate::gate_result::GateResult;
use crate::gate::judging::CorpusChange;
use crate::judge::check::Outcome;
use crate::judge::compare::MAX_LISTED;
use crate::judge::deviation::Deviation;
use crate::judge::verdict::{TwinEnd, Verdict};
use crate::report::{RunReport, Summary, lacks_hint};
use crate::text::escape_line;

/// Counts over the trials that ran, each trial in exactly one of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HarnessSummary {
    /// The backend's name.
    pub backend: String,
    /// The command line's counts of the same outcomes.
    pub counts: Summary,
    /// Trials whose data set passed.
    pub passed: usize,
    /// Of those, the ones that were not bit-identical (passed within tolerance), by name,
    /// with how far apart their values were.
    pub lossy: Vec<(String, Option<Deviation>)>,
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
    /// Refused as they must be, their twins not passing, by name with how each twin ended:
    /// decided once every trial ran, so libtest showed each as `ok`.
    pub not_verified: Vec<(String, Option<TwinEnd>)>,
    /// A verdict other than the baseline's on a data set the corpus changed since it was
    /// written, each with why.
    pub changed_with_corpus: Vec<CorpusChange>,
    /// Every trial counted: the counts above (lossy passes among the passed) add up to it.
    pub total: usize,
    /// Whether the run was judged against a baseline: without one there are no known
    /// failures or outdated entries to speak of.
    pub with_baseline: bool,
    /// Whether a new failure refused a valid input: with a refusal whose twin did not pass,
    /// what the hint for what a backend lacks is for.
    pub refused_valid: bool,
}

impl HarnessSummary {
    /// Counts the report's outcomes by their gate results (an outcome without one is judged
    /// against no baseline: a failure is new).
    pub fn new(report: &RunReport) -> HarnessSummary {
        let mut summary = HarnessSummary {
            backend: report.backend.clone(),
            counts: report.summary(),
            with_baseline: report.baseline.is_some(),
            ..HarnessSummary::default()
        };
        for outcome in &report.outcomes {
            summary.count(outcome, report.gate_of(outcome));
        }
        summary.lossy.sort_by(|a, b| a.0.cmp(&b.0));
        summary.not_verified.sort_by(|a, b| a.0.cmp(&b.0));
        summary
    }

    fn count(&mut self, outcome: &Outcome, gate: Option<&GateResult>) {
        use crate::judge::check::Status;
        self.total += 1;
        let gate = gate.cloned().unwrap_or(match outcome.status() {
            _ if outcome.is_non_gating_failure() => GateResult::NotGating,
            Status::Failed | Status::Errored => GateResult::NewFailure,
            Status::NotVerified => GateResult::NotVerified,
            _ => GateResult::Agrees,
        });
        match gate {
            GateResult::NotGating => self.not_gating += 1,
            GateResult::NotVerified => {
                let twin = match outcome.verdict() {
                    Some(Verdict::RefusalNotVerified { twin, .. }) => Some(twin.clone()),
                    _ => None,
                };
                self.not_verified.push((outcome.name(), twin));
            }
            GateResult::KnownFailure { .. } => self.known_failures += 1,
            GateResult::NewFailure => {
                self.new_failures += 1;
                self.refused_valid |= matches!(outcome.verdict(), Some(Verdict::RefusedValid { .. }));
            }
            GateResult::Fixed { .. } | GateResult::ChangedStatus { .. } => self.outdated += 1,
            GateResult::ChangedWithCorpus { was, why } => self.changed_with_corpus.push(CorpusChange {
                name: outcome.name(),
                was: was.map_or("passed", Status::name).to_owned(),
                now: outcome.status(),
                why,
            }),
            GateResult::Agrees => match outcome.status() {
                Status::Skipped => self.skipped += 1,
                Status::Unsupported => self.unsupported += 1,
                _ => {
                    self.passed += 1;
                    if outcome.is_lossy_pass() {
                        self.lossy.push((outcome.name(), outcome.deviation().cloned()));
                    }
                }
            },
        }
    }
}

impl fmt::Display for HarnessSummary {
    /// What needs a look, a line each — the changes with the corpus, the refusals not
    /// verified, the first lossy passes — then the summary, last, as libtest ends with its
    /// own: `pad-conformance, backend x: 23 data sets: 17 passed (2 not bit-identical), 0
    /// failed, 6 errored, 0 skipped` (the command line's summary line) and `baseline: 6 known
    /// failures (in the baseline), 0 new failures, 0 outdated baseline entries`. The failed
    /// trials themselves libtest recaps, above.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in &self.changed_with_corpus {
            writeln!(
                f,
                "  changed with the corpus, not the backend: {}",
                escape_line(&change.to_string())
            )?;
        }
        for (name, twin) in self.not_verified.iter().take(MAX_LISTED) {
            write!(f, "  refusal not verified: {}", escape_line(name))?;
            if let Some(twin) = twin {
                write!(f, " ({})", escape_line(&twin.to_string()))?;
            }
            writeln!(f)?;
        }
        if self.not_verified.len() > MAX_LISTED {
            writeln!(f, "  … and {} more", self.not_verified.len() - MAX_LISTED)?;
        }
        // A twin that ran and did not pass; one left out of the run is the selection's doing.
        let twin_failed = self
            .not_verified
            .iter()
            .any(|(_, twin)| twin.as_ref().is_some_and(|t| t.status.is_some()));
        if self.refused_valid || twin_failed {
            // The harness runs a Rust `Backend`: its author returns BackendUnsupported.
            writeln!(f, "  {}", lacks_hint(Some(Language::Rust)))?;
        }
        for (name, deviation) in self.lossy.iter().take(MAX_LISTED) {
            write!(f, "  passed, not bit-identical: {}", escape_line(name))?;
            if let Some(deviation) = deviation {
                write!(f, " ({})", escape_line(&deviation.describe()))?;
            }
            writeln!(f)?;
        }
        if self.lossy.len() > MAX_LISTED {
            writeln!(f, "  … and {} more", self.lossy.len() - MAX_LISTED)?;
        }
        write!(
            f,
            "pad-conformance, backend {}: {} data sets: {}",
            escape_line(&self.backend),
            self.total,
            self.counts.line()
        )?;
        if self.with_baseline {
            write!(
                f,
                "\nbaseline: {} known failures (in the baseline), {} new failures, {} outdated baseline entries",
                self.known_failures, self.new_failures, self.outdated
            )?;
        } else {
            write!(f, "\nno baseline: {} failures, each new", self.new_failures)?;
        }
        if !self.changed_with_corpus.is_empty() {
            write!(f, ", {} changed with the corpus", self.changed_with_corpus.len())?;
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
        // The lines that need a look first, the summary last.
        assert!(
            text.starts_with(
                "  passed, not bit-identical: test_x\\nPASS  forged/0\npad-conformance, backend w\\u{1b}[2J\\r: "
            ),
            "{text}"
        );
        assert!(text.ends_with("\nno baseline: 0 failures, each new"), "{text}");
    }

    #[test]
    fn without_a_baseline_the_summary_counts_no_known_failures() {
        let summary = HarnessSummary {
            backend: "b".to_owned(),
            known_failures: 0,
            new_failures: 3,
            ..HarnessSummary::default()
        };
        assert!(
            summary.to_string().ends_with("\nno baseline: 3 failures, each new"),
            "{summary}"
        );
        let judged = HarnessSummary {
            with_baseline: true,
            known_failures: 2,
            ..summary
        };
        assert!(
            judged.to_string().ends_with(
                "\nbaseline: 2 known failures (in the baseline), 3 new failures, 0 outdated baseline entries"
            ),
            "{judged}"
        );
    }
}
