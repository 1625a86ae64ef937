//! The one place a data set's outcome is weighed against the run's baseline: once, as the
//! outcome arrives, the result kept in the outcome for every label, trial, report, summary and
//! exit code after it.

use crate::gate::baseline::Baseline;
use crate::judge::check::Outcome;

/// Weighs `outcome` against `baseline` and keeps the gate result in it; without a baseline
/// there is nothing to weigh, and the outcome keeps none.
pub(crate) fn gate_once(baseline: Option<&Baseline>, outcome: &mut Outcome) {
    if let Some(baseline) = baseline {
        outcome.gate = Some(baseline.gate(outcome));
    }
}
