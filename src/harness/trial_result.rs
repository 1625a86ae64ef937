//! What a trial whose backend never answered reports: a child process that crashed, timed out
//! or could not be started, or a data set the child could not find. Every other trial's
//! result is the [`Outcome`] the check produced.

use crate::case::TestCase;
use crate::data::basis::Gating;
use crate::judge::check::Outcome;
use crate::judge::verdict::{Failure, Verdict};

/// The outcome of data set `index` of `case` whose run failed as `failure`, `detail` saying how.
pub(super) fn failed(trial: &TrialRef<'_>, failure: Failure, detail: String) -> Outcome {
    let verdict = Verdict::Failed {
        failure,
        detail,
        must_refuse: false,
    };
    Outcome::unanswered(trial.case, trial.index, verdict, trial.gating, trial.backend)
}

/// The outcome of a data set the child process could not find or list: no backend is to blame.
pub(super) fn not_loadable(trial: &TrialRef<'_>, detail: String) -> Outcome {
    Outcome::unanswered(
        trial.case,
        trial.index,
        Verdict::NotLoadable { detail },
        trial.gating,
        trial.backend,
    )
}

/// Which trial: data set `index` of `case`, run by `backend`, gated on `gating`.
#[derive(Clone, Copy)]
pub(super) struct TrialRef<'a> {
    /// The case.
    pub case: &'a TestCase,
    /// The data set's index among the case's.
    pub index: usize,
    /// The bases that gate.
    pub gating: &'a Gating,
    /// The backend's name.
    pub backend: &'a str,
}
