//! Whether the backend survived a data set, apart from what it answered, and the one rule
//! that says whether a failure gates (docs/semantics.md#basis). The basis says which *answer*
//! is right; no basis makes dying right, so a backend that gave no answer at all fails a run
//! whatever the data set's basis and whatever `--basis` selects. Every face — the check, the
//! harness and its children, the retry rule, merged reports, fuzz findings — asks [`gates`].

use super::cause_key::Pattern;
use super::retried::Retry;
use super::verdict::{Failure, Verdict};
use crate::data::basis::{Basis, Gating};

/// Whether the backend survived a data set, decided from the verdict and the retry rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Survival {
    /// It answered: outputs, a refusal, a failure it reported itself (`kind: failed`, a
    /// `BackendFailure`), a graph optimizer's model; or it was never asked (the case does not
    /// load, the runner could not hand it over, outside the profile). The basis decides
    /// whether a wrong answer gates.
    Answered,
    /// It gave no answer: it panicked, its process died (a signal, an exit), it broke the
    /// worker protocol, or it timed out on every try the retry rule made. Gates on every
    /// basis.
    Died,
    /// It timed out on a try that was never run again (no `--retries`): load alone can do
    /// that to a slow answer, so the basis decides, as for an answer.
    TimedOutOnce,
}

impl Survival {
    /// How a backend that failed as `failure` survived; `retried` when the retry rule ran
    /// the data set again and no try answered (a [`Retry`] on a verdict that still fails).
    pub(crate) fn of_failure(failure: Failure, retried: bool) -> Survival {
        match failure {
            Failure::Panic | Failure::Crash { .. } | Failure::Protocol => Survival::Died,
            Failure::Timeout if retried => Survival::Died,
            Failure::Timeout => Survival::TimedOutOnce,
            // Its own words: it survived to say it broke (docs/semantics.md#basis).
            Failure::Reported => Survival::Answered,
            // The runner's problem, or the rewritten model is the answer.
            Failure::Runner | Failure::InvalidRewrite => Survival::Answered,
        }
    }

    /// How the backend survived the data set judged `verdict`, retried as `retry` says.
    pub(crate) fn of(verdict: &Verdict, retry: Option<&Retry>) -> Survival {
        match verdict {
            // A verdict that still fails after a retry is how every try failed: settle keeps
            // the first failure only when no try answered.
            Verdict::Failed { failure, .. } => Survival::of_failure(*failure, retry.is_some_and(|r| r.tries > 1)),
            // Unstable answered twice (differently) after the first failure: answers, judged
            // as answers. Every other verdict is an answer, or no question was asked.
            _ => Survival::Answered,
        }
    }

    /// How the backend survived the cases whose root cause has `pattern` (a [`CauseKey`](super::cause_key::CauseKey)'s):
    /// fuzz cases run once, never retried.
    pub(crate) fn of_pattern(pattern: &Pattern) -> Survival {
        match pattern {
            Pattern::Failed(failure) => Survival::of_failure(*failure, false),
            _ => Survival::Answered,
        }
    }
}

/// Whether a failure on `basis` of a backend that survived as `survival` fails a run that
/// gates on `gating`: a death on every basis, an answer when the run gates on its basis.
pub(crate) fn gates(gating: &Gating, basis: Basis, survival: Survival) -> bool {
    survival == Survival::Died || gating.gates(basis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::cause_key::CauseKey;

    fn failed(failure: Failure) -> Verdict {
        Verdict::Failed {
            failure,
            detail: "x".into(),
            must_refuse: false,
        }
    }

    fn retried(tries: u32) -> Retry {
        Retry {
            after: Failure::Timeout,
            tries,
            first: "timed out".into(),
        }
    }

    const SEGV: Failure = Failure::Crash {
        code: None,
        signal: Some(11),
    };

    #[test]
    fn a_crash_panic_or_protocol_break_gates_on_a_rule_or_undefined_basis() {
        let gating = Gating::default();
        for failure in [SEGV, Failure::Panic, Failure::Protocol] {
            let survival = Survival::of(&failed(failure), None);
            assert_eq!(survival, Survival::Died, "{failure:?}");
            assert!(gates(&gating, Basis::Rule, survival), "{failure:?}");
            assert!(gates(&gating, Basis::Undefined, survival), "{failure:?}");
        }
        // --basis spec alone: a crash on a reference data set still fails the run.
        let spec = Gating::from_names(&["spec"]).unwrap();
        assert!(gates(&spec, Basis::Reference, Survival::of(&failed(SEGV), None)));
    }

    #[test]
    fn a_wrong_answer_or_a_reported_failure_on_a_rule_basis_does_not_gate() {
        let gating = Gating::default();
        let mismatch = Verdict::Mismatch {
            shape: false,
            report: "1 of 4 elements differ".into(),
            deviation: None,
        };
        for verdict in [mismatch, failed(Failure::Reported), failed(Failure::Runner)] {
            let survival = Survival::of(&verdict, None);
            assert_eq!(survival, Survival::Answered, "{verdict:?}");
            assert!(!gates(&gating, Basis::Rule, survival), "{verdict:?}");
            assert!(gates(&gating, Basis::Spec, survival), "{verdict:?}");
        }
    }

    #[test]
    fn a_timeout_gates_everywhere_only_once_a_retry_confirmed_it() {
        let gating = Gating::default();
        let once = Survival::of(&failed(Failure::Timeout), None);
        assert_eq!(once, Survival::TimedOutOnce);
        assert!(!gates(&gating, Basis::Rule, once));
        // On its own basis an unconfirmed timeout still gates, as before.
        assert!(gates(&gating, Basis::Spec, once));
        let confirmed = Survival::of(&failed(Failure::Timeout), Some(&retried(3)));
        assert_eq!(confirmed, Survival::Died);
        assert!(gates(&gating, Basis::Rule, confirmed));
        assert!(gates(&gating, Basis::Undefined, confirmed));
    }

    #[test]
    fn a_fuzz_cause_of_a_crash_gates_and_one_of_a_timeout_does_not_it_ran_once() {
        let crash = CauseKey::of(&failed(SEGV), None).unwrap();
        assert_eq!(Survival::of_pattern(&crash.pattern), Survival::Died);
        let timeout = CauseKey::of(&failed(Failure::Timeout), None).unwrap();
        assert_eq!(Survival::of_pattern(&timeout.pattern), Survival::TimedOutOnce);
        let reported = CauseKey::of(&failed(Failure::Reported), None).unwrap();
        assert_eq!(Survival::of_pattern(&reported.pattern), Survival::Answered);
    }
}
