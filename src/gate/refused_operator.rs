//! Must-refuse data sets that pass only because the backend refuses their operator outright: a
//! runtime that does not know CenterCropPad "passes" every CenterCropPad data set that must be
//! refused. Decided from the typed verdicts of a run — the operator version refused every data
//! set it had to answer and answered none — never from a refusal's message; the command line and
//! the harness print the same warning.

use std::collections::BTreeMap;
use std::fmt;

use crate::judge::check::Outcome;
use crate::judge::verdict::Verdict;

/// An operator version the backend refused outright, and the must-refuse data sets that passed
/// because of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedOperator {
    /// `CenterCropPad-18`.
    pub operator: String,
    /// The data sets with outputs it refused: all of them.
    pub refused_valid: usize,
    /// The data sets that must be refused, passed by refusing.
    pub hollow_passes: usize,
}

/// The operator versions of `outcomes` whose must-refuse passes are hollow: every data set of
/// theirs with expected outputs was refused (at least one), none answered, and some data set
/// that must be refused passed by refusal. A profile's `unsupported` data sets are not counted.
pub(crate) fn refused_operators(outcomes: &[Outcome]) -> Vec<RefusedOperator> {
    #[derive(Default)]
    struct Tally {
        refused_valid: usize,
        answered: usize,
        hollow: usize,
    }
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for outcome in outcomes {
        let Some(verdict) = outcome.verdict() else {
            continue;
        };
        let tally = tallies.entry(outcome.operator()).or_default();
        match verdict {
            Verdict::RefusedValid { .. } => tally.refused_valid += 1,
            Verdict::RefusedAsRequired { .. } => tally.hollow += 1,
            Verdict::Passed { .. } | Verdict::Mismatch { .. } | Verdict::AcceptedMustRefuse { .. } => {
                tally.answered += 1
            }
            _ => {}
        }
    }
    tallies
        .into_iter()
        .filter(|(_, t)| t.refused_valid > 0 && t.answered == 0 && t.hollow > 0)
        .map(|(operator, t)| RefusedOperator {
            operator,
            refused_valid: t.refused_valid,
            hollow_passes: t.hollow,
        })
        .collect()
}

impl fmt::Display for RefusedOperator {
    /// The warning: what passed, why it means nothing, and what to do.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "warning: {} data sets of {} that must be refused passed only because the backend refuses the operator outright (it refused all {} it had to answer); return BackendUnsupported for what it lacks, or leave the operator out of its profile",
            self.hollow_passes,
            crate::text::escape_line(&self.operator),
            self.refused_valid
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operators::PadOp;

    /// A Pad-`version` data set judged `verdict`.
    fn with(verdict: Verdict, id: &str, version: i64) -> Outcome {
        Outcome::example_judged(id, verdict).with_operator((
            Some(PadOp::Pad),
            Some(version),
            Some(crate::operators::PadMode::Constant.into()),
        ))
    }

    #[test]
    fn must_refuse_passes_of_an_operator_refused_outright_are_named_and_others_are_not() {
        let refused = || Verdict::RefusedValid {
            refusal: "unknown op".into(),
        };
        let as_required = || Verdict::RefusedAsRequired {
            refusal: "unknown op".into(),
            rule: None,
            expected: Vec::new(),
        };
        let outcomes = [
            with(refused(), "a", 19),
            with(refused(), "b", 19),
            with(as_required(), "c", 19),
            // Another version, whose refusals are its own: not named.
            with(as_required(), "e", 18),
        ];
        let found = refused_operators(&outcomes);
        assert_eq!(
            found,
            [RefusedOperator {
                operator: "Pad-19".into(),
                refused_valid: 2,
                hollow_passes: 1
            }]
        );
        assert!(
            found[0]
                .to_string()
                .starts_with("warning: 1 data sets of Pad-19 that must be refused passed only because"),
            "{}",
            found[0]
        );
        // One valid data set answered: the operator is known, its refusals are real.
        let mut answered = outcomes.to_vec();
        answered.push(with(
            Verdict::Passed {
                bit_exact: true,
                deviation: None,
            },
            "d",
            19,
        ));
        assert_eq!(refused_operators(&answered), []);
        // No must-refuse data set passed: nothing hollow.
        assert_eq!(refused_operators(&outcomes[..2]), []);
    }
}
