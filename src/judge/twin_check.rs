//! A refusal counts only when the twin passes. A data set that must be refused has a valid
//! twin (its case.json's `twin`): the same operator with the one broken property repaired. A
//! backend that refuses the data set but does not pass the twin may refuse what it lacks (the
//! operator, the element type, an input) rather than the rule; its refusal is then *not
//! verified* ([`Verdict::RefusalNotVerified`]), never a pass.
//!
//! Decided after a run, over all its outcomes, because the twin may finish after the data set,
//! in another thread, trial or shard: the command line and the harness decide it when they
//! finish, and `merge` over the union of its parts. Deciding it again over the same outcomes
//! changes nothing; over more (another part merged in) it may verify what was not.

use std::collections::HashMap;

use super::check::Outcome;
use super::status::Status;
use super::verdict::{Cause, TwinEnd, Verdict};

/// Weighs every refusal in `outcomes` of a data set that names a twin against the twin's
/// outcome among them: verified when the twin passed, else not verified, naming the twin and
/// how it ended (or that it did not run). Returns the indices of the outcomes whose verdict
/// changed, whose gate results are to be weighed again.
pub(crate) fn verify_refusals(outcomes: &mut [Outcome]) -> Vec<usize> {
    let ended: HashMap<String, (Status, Option<Cause>)> = outcomes
        .iter()
        .map(|o| (o.name(), (o.status(), o.verdict().and_then(Verdict::cause))))
        .collect();
    let mut changed = Vec::new();
    for (index, outcome) in outcomes.iter_mut().enumerate() {
        let (Some(twin), Some(verdict)) = (outcome.twin(), outcome.verdict()) else {
            continue;
        };
        let Some(weighed) = weighed(verdict, twin, ended.get(twin).copied()) else {
            continue;
        };
        if &weighed != verdict {
            *outcome = outcome.clone().with_verdict(weighed);
            changed.push(index);
        }
    }
    changed
}

/// A refusal's verdict once its twin named `twin` ended as `ended` (`None`: not in the run);
/// `None` for a verdict that is no refusal of a data set that must be refused.
fn weighed(verdict: &Verdict, twin: &str, ended: Option<(Status, Option<Cause>)>) -> Option<Verdict> {
    let (refusal, rule, expected) = match verdict {
        Verdict::RefusedAsRequired {
            refusal,
            rule,
            expected,
        }
        | Verdict::RefusalNotVerified {
            refusal,
            rule,
            expected,
            ..
        } => (refusal.clone(), *rule, expected.clone()),
        _ => return None,
    };
    Some(match ended {
        Some((Status::Passed, _)) => Verdict::RefusedAsRequired {
            refusal,
            rule,
            expected,
        },
        ended => Verdict::RefusalNotVerified {
            refusal,
            rule,
            expected,
            twin: TwinEnd {
                name: twin.to_owned(),
                status: ended.map(|(status, _)| status),
                cause: ended.and_then(|(_, cause)| cause),
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operators::Rule;

    fn refused(id: &str) -> Outcome {
        Outcome::example_judged(
            id,
            Verdict::RefusedAsRequired {
                refusal: "unknown operator".into(),
                rule: None,
                expected: vec![Rule::AxisRepeated],
            },
        )
        .with_twin(Some(format!("{id}_twin/0")))
    }

    fn passed(id: &str) -> Outcome {
        Outcome::example_judged(
            id,
            Verdict::Passed {
                bit_exact: true,
                deviation: None,
            },
        )
    }

    #[test]
    fn a_refusal_is_verified_by_a_passing_twin_and_by_nothing_else() {
        let refused_valid = Outcome::example_judged(
            "c_twin",
            Verdict::RefusedValid {
                refusal: "unknown operator".into(),
            },
        );
        let mut outcomes = vec![
            refused("a"),
            passed("a_twin"),
            refused("b"),
            refused("c"),
            refused_valid,
        ];
        // b's twin did not run; c's refused a valid input.
        assert_eq!(verify_refusals(&mut outcomes), [2, 3]);
        assert_eq!(outcomes[0].status(), Status::Passed);
        assert_eq!(
            outcomes[2].message(),
            "refusal not verified (twin not run): its twin b_twin/0 was not in the run, so nothing shows that backend x refused by the rule: unknown operator"
        );
        assert_eq!(outcomes[3].status(), Status::NotVerified);
        assert_eq!(
            outcomes[3].message(),
            "refusal not verified: its twin c_twin/0 did not pass (errored, refuses-valid), so backend x may refuse what it lacks, not the rule: unknown operator"
        );
        let Some(Verdict::RefusalNotVerified { twin, expected, .. }) = outcomes[3].verdict() else {
            panic!("{:?}", outcomes[3].verdict());
        };
        assert_eq!(
            (twin.status, twin.cause, expected.as_slice()),
            (
                Some(Status::Errored),
                Some(Cause::RefusesValid),
                &[Rule::AxisRepeated][..]
            )
        );
        // Decided again over the same outcomes: nothing changes.
        let before: Vec<Option<Verdict>> = outcomes.iter().map(|o| o.verdict().cloned()).collect();
        assert_eq!(verify_refusals(&mut outcomes), Vec::<usize>::new());
        assert_eq!(
            outcomes.iter().map(|o| o.verdict().cloned()).collect::<Vec<_>>(),
            before
        );
    }

    /// `merge` decides again over the union of its parts: a twin found in another part verifies
    /// the refusal its own part could not, with the refusal as the backend gave it.
    #[test]
    fn a_twin_found_later_verifies_the_refusal_its_part_could_not() {
        let mut part = vec![refused("a")];
        verify_refusals(&mut part);
        assert_eq!(part[0].status(), Status::NotVerified);
        part.push(passed("a_twin"));
        assert_eq!(verify_refusals(&mut part), [0]);
        assert_eq!(part[0].verdict(), refused("a").verdict());
    }

    #[test]
    fn only_refusals_of_data_sets_that_name_a_twin_are_weighed() {
        let accepted = Outcome::example_judged(
            "d",
            Verdict::AcceptedMustRefuse {
                reason: "axes repeated".into(),
                rules: vec![Rule::AxisRepeated],
            },
        )
        .with_twin(Some("d_twin/0".into()));
        let untwinned = refused("e").with_twin(None);
        let mut outcomes = vec![accepted, untwinned];
        assert_eq!(verify_refusals(&mut outcomes), Vec::<usize>::new());
        assert_eq!(
            outcomes.iter().map(Outcome::status).collect::<Vec<_>>(),
            [Status::Failed, Status::Passed]
        );
    }
}
