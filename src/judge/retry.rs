//! Crash retries: a data set whose backend crashed or timed out is run again, alone in a fresh
//! process, up to `--retries N` times. One that then answers is confirmed by one more try,
//! whose answer must be the same byte for byte (a Pad that writes different bytes twice reads
//! memory it never wrote): the same answer stands, marked [`Retry`] ("passed after a crash");
//! different answers are a failing verdict of their own, [`Verdict::Unstable`]. A crash is
//! never a refusal, but a refusal on a retry, confirmed by the same refusal once more, is one:
//! a data set that must be refused and was refused after a crash passes after a crash, as a
//! valid one answered after a crash does, so its verdict is the same whether or not a random
//! crash hit it this run (a backend that crashes on every try keeps its crash).
//! The harness's children and the command line's workers both settle through [`settle`].

use super::check::Outcome;
use super::retried::Retry;
use super::verdict::{Failure, Verdict};
use crate::data::basis::Gating;

/// The most retries a run may ask for: each is a fresh process and may wait out a time limit.
pub(crate) const MAX_RETRIES: u32 = 10;

/// How `outcome` failed when a retry may help: its backend crashed or timed out.
pub(crate) fn retryable(outcome: &Outcome) -> Option<Failure> {
    match outcome.verdict()? {
        Verdict::Failed {
            failure: failure @ (Failure::Crash { .. } | Failure::Timeout),
            ..
        } => Some(*failure),
        _ => None,
    }
}

/// The outcome of a data set whose first try gave `first`, with up to `retries` more tries,
/// each from `again` (a fresh process running that data set alone), and one to confirm an
/// answer. A data set that neither crashed nor timed out is returned as it is.
///
/// Whether the outcome gates is decided again from what the tries showed: a timeout that every
/// try repeated is confirmed, and gates on every basis (docs/semantics.md#basis).
pub(crate) fn settle(first: Outcome, retries: u32, gating: &Gating, again: impl FnMut() -> Outcome) -> Outcome {
    let settled = tries(first, retries, again);
    let gates = settled.gates_under(gating);
    settled.with_gates(gates)
}

/// [`settle`]'s tries, the outcome they leave.
fn tries(first: Outcome, retries: u32, mut again: impl FnMut() -> Outcome) -> Outcome {
    let Some(after) = retryable(&first).filter(|_| retries > 0) else {
        return first;
    };
    let mut tries = 1;
    let mut answered = None;
    while tries <= retries {
        let next = again();
        tries += 1;
        if retryable(&next).is_none() {
            answered = Some(next);
            break;
        }
    }
    let retry = |tries| Retry {
        after,
        tries,
        first: first.message(),
    };
    let Some(answer) = answered else {
        let retry = retry(tries);
        return first.with_retry(retry);
    };
    let confirm = again();
    tries += 1;
    if retryable(&confirm).is_none() && !same_answer(&answer, &confirm) {
        let verdict = Verdict::Unstable {
            after,
            tries,
            detail: format!("{}, then {}", answer_said(&answer), answer_said(&confirm)),
        };
        // Worded as the answer was, for the backend that gave it; its figures stay the answer's.
        return answer.with_verdict(verdict).with_retry(retry(tries));
    }
    answer.with_retry(retry(tries))
}

/// Whether two tries answered alike: the same outputs byte for byte and the same verdict; a
/// refusal is the same answer as another refusal of its kind naming the same rule (or none),
/// whatever its wording: a temporary path or a pid in a message is no other answer.
fn same_answer(a: &Outcome, b: &Outcome) -> bool {
    use Verdict::{RefusedAsRequired, RefusedForAnotherReason, RefusedValid, Unsupported};
    a.answer() == b.answer()
        && match (a.verdict(), b.verdict()) {
            (Some(RefusedAsRequired { rule: x, .. }), Some(RefusedAsRequired { rule: y, .. })) => x == y,
            (Some(RefusedForAnotherReason { rule: x, .. }), Some(RefusedForAnotherReason { rule: y, .. })) => x == y,
            (Some(RefusedValid { .. }), Some(RefusedValid { .. })) => true,
            (Some(Unsupported { by: x, .. }), Some(Unsupported { by: y, .. })) => x == y,
            (x, y) => x == y,
        }
}

/// `outputs sha256 1f2e3d4c…`, or the verdict's status when it returned no outputs.
fn answer_said(outcome: &Outcome) -> String {
    match outcome.answer() {
        Some(digest) => format!("outputs sha256 {}…", &digest[..digest.len().min(16)]),
        None => outcome.status().name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::basis::BasisNote;
    use crate::judge::check::{Outcome, Status};

    fn crashed(must_refuse: bool) -> Outcome {
        let verdict = Verdict::Failed {
            failure: Failure::Crash {
                code: None,
                signal: Some(11),
            },
            detail: "worker exited (signal 11)".into(),
            must_refuse,
        };
        judged(verdict)
    }

    /// Data set 0 of `test_a`, judged `verdict` for backend `w`, on the spec.
    fn judged(verdict: Verdict) -> Outcome {
        Outcome::judged("test_a".into(), 0, BasisNote::upstream(), verdict, "w").with_gates(true)
    }

    fn passed(digest: &str) -> Outcome {
        judged(Verdict::Passed {
            bit_exact: true,
            deviation: None,
        })
        .with_answer(Some(digest.to_owned()))
    }

    /// Hands out `tries` in order, counting them.
    fn tries(tries: Vec<Outcome>) -> (impl FnMut() -> Outcome, std::rc::Rc<std::cell::Cell<usize>>) {
        let count = std::rc::Rc::new(std::cell::Cell::new(0));
        let counted = std::rc::Rc::clone(&count);
        let mut tries = tries.into_iter();
        (
            move || {
                counted.set(counted.get() + 1);
                tries.next().expect("no more tries planned")
            },
            count,
        )
    }

    #[test]
    fn a_crash_then_the_same_answer_twice_passes_after_a_crash() {
        let (again, count) = tries(vec![crashed(false), passed("ab"), passed("ab")]);
        let outcome = settle(crashed(false), 3, &Gating::default(), again);
        assert_eq!(outcome.status(), Status::Passed);
        let retry = outcome.retry().unwrap();
        assert_eq!(
            (retry.tries, retry.after),
            (
                4,
                Failure::Crash {
                    code: None,
                    signal: Some(11)
                }
            )
        );
        assert_eq!(retry.passed_after(), "passed after a crash");
        assert_eq!(retry.first, "backend w crashed: worker exited (signal 11)");
        assert_eq!(count.get(), 3);
    }

    #[test]
    fn different_bytes_on_two_tries_are_an_unstable_verdict() {
        let (again, _) = tries(vec![passed("aaaa"), passed("bbbb")]);
        let outcome = settle(crashed(false), 1, &Gating::default(), again);
        assert_eq!(outcome.status(), Status::Failed);
        let verdict = outcome.verdict().cloned().unwrap();
        assert!(matches!(verdict, Verdict::Unstable { tries: 3, .. }), "{verdict:?}");
        assert_eq!(verdict.cause(), Some(crate::judge::verdict::Cause::Unstable));
        assert_eq!(
            outcome.message(),
            "backend w answered differently on two tries after a crash: outputs sha256 aaaa…, then outputs sha256 bbbb…"
        );
    }

    #[test]
    fn two_refusals_worded_apart_are_one_answer_and_two_rules_are_two() {
        let refused = |message: &str, rule: Option<&str>| {
            judged(Verdict::RefusedAsRequired {
                refusal: message.into(),
                rule: rule.map(|r| crate::operators::Rule::from_id(r).unwrap()),
                expected: Vec::new(),
            })
        };
        // A temporary path and a pid in the wording: the same refusal, so it passes.
        let (again, _) = tries(vec![
            refused("cannot read /tmp/x-1a2b/model.onnx (pid 4242)", None),
            refused("cannot read /tmp/x-9z8y/model.onnx (pid 4343)", None),
        ]);
        let outcome = settle(crashed(true), 2, &Gating::default(), again);
        assert_eq!(outcome.status(), Status::Passed, "{}", outcome.message());
        // Refusals naming two different rules are two answers.
        let (again, _) = tries(vec![
            refused("no", Some("mode-not-in-version")),
            refused("no", Some("pads-length")),
        ]);
        let outcome = settle(crashed(true), 2, &Gating::default(), again);
        assert!(
            matches!(outcome.verdict(), Some(Verdict::Unstable { .. })),
            "{:?}",
            outcome.verdict()
        );
    }

    #[test]
    fn a_must_refuse_data_set_refused_twice_after_a_crash_passes_after_a_crash() {
        let refused = judged(Verdict::RefusedAsRequired {
            refusal: "no".into(),
            rule: None,
            expected: Vec::new(),
        });
        let (again, _) = tries(vec![refused.clone(), refused.clone()]);
        let outcome = settle(crashed(true), 2, &Gating::default(), again);
        assert_eq!(outcome.status(), Status::Passed);
        assert!(matches!(outcome.verdict(), Some(Verdict::RefusedAsRequired { .. })));
        assert_eq!(outcome.passed_after(), Some("passed after a crash"));
        assert_eq!(outcome.retry().unwrap().tries, 3);
        // The crash itself is no refusal: crashing on every try stays a crash.
        let (again, _) = tries(vec![crashed(true), crashed(true)]);
        let outcome = settle(crashed(true), 2, &Gating::default(), again);
        assert_eq!(outcome.status(), Status::Errored);
        assert!(matches!(
            outcome.verdict(),
            Some(Verdict::Failed { must_refuse: true, .. })
        ));
    }

    fn timed_out_on_rule_basis() -> Outcome {
        let verdict = Verdict::Failed {
            failure: Failure::Timeout,
            detail: "timed out after 10 s".into(),
            must_refuse: false,
        };
        let outcome = judged(verdict).with_basis(BasisNote {
            kind: crate::data::basis::Basis::Rule,
            section: "docs/semantics.md#negative-pads".into(),
        });
        let gates = outcome.gates_under(&Gating::default());
        outcome.with_gates(gates)
    }

    #[test]
    fn a_timeout_on_a_rule_basis_gates_only_once_every_retry_timed_out_too() {
        let first = timed_out_on_rule_basis();
        // One timeout, not run again: load alone may have done it.
        assert!(!first.gates());
        let (again, _) = tries(vec![]);
        let alone = settle(first.clone(), 0, &Gating::default(), again);
        assert!(!alone.gates() && alone.retry().is_none());
        // Every retry timed out as well: confirmed, and no basis excuses it.
        let (again, _) = tries(vec![timed_out_on_rule_basis(), timed_out_on_rule_basis()]);
        let confirmed = settle(first.clone(), 2, &Gating::default(), again);
        assert_eq!(
            (confirmed.status(), confirmed.retry().unwrap().tries),
            (Status::Errored, 3)
        );
        assert!(confirmed.gates() && confirmed.is_gating_failure());
        // A retry that answers (the same twice): the slow first try was the machine's.
        let answered = || passed("ab").with_basis(first.basis().clone()).with_gates(false);
        let (again, _) = tries(vec![answered(), answered()]);
        let settled = settle(first, 2, &Gating::default(), again);
        assert_eq!(settled.passed_after(), Some("passed after a timeout"));
        assert!(!settled.gates());
    }

    #[test]
    fn no_retries_or_no_crash_changes_nothing_and_crashes_on_every_try_stay_crashes() {
        let (again, count) = tries(vec![]);
        assert!(settle(crashed(false), 0, &Gating::default(), again).retry().is_none());
        let (again, _) = tries(vec![]);
        assert!(settle(passed("ab"), 3, &Gating::default(), again).retry().is_none());
        assert_eq!(count.get(), 0);
        let (again, count) = tries(vec![crashed(false), crashed(false)]);
        let outcome = settle(crashed(false), 2, &Gating::default(), again);
        assert_eq!((outcome.status(), outcome.retry().unwrap().tries), (Status::Errored, 3));
        assert_eq!(count.get(), 2);
    }
}
