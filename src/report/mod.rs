//! Reports of a run: human (terminal), JSON, JUnit XML and Markdown. All are written from a
//! [`RunReport`]; docs/report-format.md documents the machine-readable ones. A gate writes
//! JSON, JUnit and Markdown; the human report and the JSON reader are the binary's.

mod closing;
mod human;
mod json;
pub(crate) mod json_case;
#[cfg(feature = "junit")]
mod junit;
mod markdown;
mod read;
mod run_facts;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::gate::gate_result::GateResult;
use crate::judge::check::{Outcome, Status};
use crate::judge::verdict::Verdict;

// The human report and the reader: the `pad-conformance` binary's, not a gate's.
pub(crate) use closing::{Rerun, lacks_hint, write_summary};
pub use human::{Colors, write_outcome};
pub(crate) use json::write_json;
#[cfg(feature = "junit")]
pub use junit::write_junit;
pub(crate) use markdown::write_markdown;
pub(crate) use read::read_json_report;
pub use run_facts::RunFacts;

/// The outcomes of one backend over a set of cases.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The backend's name.
    pub backend: String,
    /// One outcome per data set, in job order.
    pub outcomes: Vec<Outcome>,
    /// Each data set's gate result, by name, when the run was weighed against a baseline:
    /// beside the outcomes, not in them, as judging knows nothing of baselines.
    pub gates: BTreeMap<String, GateResult>,
    /// Wall-clock time of the whole run.
    pub duration: Duration,
    /// How the run compares with its baseline, when it was judged against one.
    pub baseline: Option<crate::gate::judging::GateSummary>,
    /// The runtime behind the backend, when it says ([`Backend::runtime`](crate::backend::Backend::runtime)).
    pub runtime: Option<crate::backend::RuntimeInfo>,
    /// The part of the data sets this run took, when it took one (`--shard K/N`).
    pub shard: Option<crate::data::shard::Shard>,
    /// What merging this run's report with other parts checks; `None` in a report that
    /// does not record it (written by the harness, or by an older pad-conformance).
    pub run: Option<RunFacts>,
}

#[cfg(test)]
impl RunReport {
    /// A report of `backend` over `outcomes`, with nothing else recorded: for tests.
    pub(crate) fn of(backend: &str, outcomes: Vec<Outcome>) -> RunReport {
        RunReport {
            backend: backend.into(),
            outcomes,
            gates: BTreeMap::new(),
            duration: Duration::ZERO,
            baseline: None,
            runtime: None,
            shard: None,
            run: None,
        }
    }
}

/// Counts per status. `failed` and `errored` count the data sets whose basis the run gates
/// on; failures on other bases are `not_gating`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Outputs matched, or refused as they must be.
    pub passed: usize,
    /// Wrong outputs, or answered what must be refused, on a gating basis.
    pub failed: usize,
    /// Could not run, on a gating basis.
    pub errored: usize,
    /// Not applicable.
    pub skipped: usize,
    /// Outside the backend's declared profile.
    pub unsupported: usize,
    /// Refused as they must be, but their valid twins did not pass in the run: neither passed
    /// nor failed (docs/semantics.md#twins).
    pub not_verified: usize,
    /// Failed or errored on a basis the run does not gate on (a project rule, an undefined
    /// corner): reported, never failing the run.
    pub not_gating: usize,
    /// Of the passed, those not bit-identical: within tolerance only.
    pub lossy: usize,
    /// Of the passed, those with a note: a required refusal for another spec rule than the
    /// data set breaks.
    #[serde(default)]
    pub notes: usize,
    /// Of the passed, those that passed only when run again after a crash or timeout (absent
    /// from a JSON summary when none did).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub after_crash: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Counts the statuses of `outcomes`.
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Summary {
        let mut summary = Summary::default();
        for outcome in outcomes {
            *match outcome.status() {
                _ if outcome.is_non_gating_failure() => &mut summary.not_gating,
                Status::Passed => &mut summary.passed,
                Status::Failed => &mut summary.failed,
                Status::Errored => &mut summary.errored,
                Status::Skipped => &mut summary.skipped,
                Status::Unsupported => &mut summary.unsupported,
                Status::NotVerified => &mut summary.not_verified,
            } += 1;
            summary.lossy += usize::from(outcome.is_lossy_pass());
            summary.notes += usize::from(outcome.verdict().and_then(Verdict::note).is_some());
            summary.after_crash += usize::from(outcome.passed_after().is_some());
        }
        summary
    }

    /// `N passed, N failed, N errored, N skipped`, with `(N not bit-identical)` after the
    /// passed count when some passed within tolerance only: the closing line of every human
    /// report.
    pub fn line(&self) -> String {
        let lossy = match self.lossy {
            0 => String::new(),
            n => format!(" ({n} not bit-identical)"),
        };
        let mut line = format!(
            "{} passed{lossy}, {} failed, {} errored, {} skipped",
            self.passed, self.failed, self.errored, self.skipped
        );
        if self.unsupported > 0 {
            line.push_str(&format!(", {} unsupported", self.unsupported));
        }
        if self.not_verified > 0 {
            line.push_str(&format!(", {} refusals not verified", self.not_verified));
        }
        if self.not_gating > 0 {
            line.push_str(&format!(", {} not gating", self.not_gating));
        }
        if self.after_crash > 0 {
            line.push_str(&format!(", {} passed after a crash or timeout", self.after_crash));
        }
        if self.notes > 0 {
            line.push_str(&format!(", {} refused for another reason (noted)", self.notes));
        }
        line
    }
}

impl RunReport {
    /// Counts the statuses of the outcomes.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.outcomes)
    }

    /// How `outcome` weighs against the run's baseline, when the run was weighed against one.
    pub fn gate_of(&self, outcome: &Outcome) -> Option<&GateResult> {
        self.gates.get(&outcome.name())
    }

    /// How `outcome` weighs: its gate result, or for a run weighed against no baseline, as
    /// against an empty one (a gating failure is new, one on another basis not gating).
    pub(crate) fn weighed(&self, outcome: &Outcome) -> GateResult {
        match self.gate_of(outcome) {
            Some(gate) => gate.clone(),
            None => crate::gate::baseline::Baseline::default().gate(outcome),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::outcome::Measured;

    #[test]
    fn every_outcome_lands_in_exactly_one_count() {
        let non_gating = Outcome::example("r", Status::Failed).with_gates(false);
        let lossy = Outcome::example("l", Status::Passed).with_measured(Measured {
            bit_exact: Some(false),
            ..Measured::default()
        });
        let outcomes = [
            Outcome::example("p", Status::Passed),
            lossy,
            Outcome::example("f", Status::Failed),
            Outcome::example("e", Status::Errored),
            Outcome::example("s", Status::Skipped),
            Outcome::example("u", Status::Unsupported),
            non_gating,
        ];
        let summary = Summary::of(&outcomes);
        let counted = summary.passed
            + summary.failed
            + summary.errored
            + summary.skipped
            + summary.unsupported
            + summary.not_gating;
        assert_eq!(counted, outcomes.len());
        assert_eq!((summary.passed, summary.lossy, summary.not_gating), (2, 1, 1));
        assert_eq!(
            summary.line(),
            "2 passed (1 not bit-identical), 1 failed, 1 errored, 1 skipped, 1 unsupported, 1 not gating"
        );
    }
}
