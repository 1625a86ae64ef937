//! The one place a data set's outcome is weighed against the run's baseline: once, as the
//! outcome arrives, the result kept beside it (`RunReport::gates`) for every label, trial,
//! report, summary and exit code after it.

use crate::gate::baseline::Baseline;
use crate::gate::gate_result::GateResult;
use crate::judge::check::Outcome;

/// Weighs `outcome` against `baseline`; without a baseline there is nothing to weigh.
#[must_use = "the gate result is kept beside the outcome (RunReport::gates)"]
pub(crate) fn gate_once(baseline: Option<&Baseline>, outcome: &Outcome) -> Option<GateResult> {
    baseline.map(|baseline| baseline.gate(outcome))
}
