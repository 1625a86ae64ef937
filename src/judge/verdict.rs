//! The verdict on one data set: the backend's answer judged against the case's expectation,
//! decided once by the judge and carried typed to every report, baseline, failure group and
//! fuzz finding. The status, the message, whether it is a defect and the cause it groups
//! under are all functions of it; no code reads a message to recover them.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::status::Status;
// How a backend failed: decided by the backend layer, where the failure is seen.
pub(crate) use crate::backend::Failure;
use crate::backend::{BackendError, Says};
use crate::judge::deviation::Deviation;
use crate::operators::Rule;
use crate::tensor::Tensor;

/// The verdict on a backend's answer to one data set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Every output matched under the comparison rule.
    Passed {
        /// Bit for bit, or within the run's tolerance only.
        bit_exact: bool,
        /// When not bit for bit: how far apart the floating values are (absent from reports
        /// written before it was measured).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deviation: Option<Box<Deviation>>,
    },
    /// The data set must be refused, and the backend refused it.
    RefusedAsRequired {
        /// The backend's message.
        refusal: String,
        /// The rule the backend named, when it named one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<Rule>,
        /// The rules the data set breaks, when known.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        expected: Vec<Rule>,
    },
    /// The backend refused a data set that must be refused, but the data set's valid twin did
    /// not pass in the same run (or did not run): the refusal may be the backend refusing the
    /// operator, the element type or an input it lacks, not the rule. Never a pass, never a
    /// failure; decided after the run, over all its outcomes (judge/twin_check.rs).
    RefusalNotVerified {
        /// The backend's message.
        refusal: String,
        /// The rule the backend named, when it named one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<Rule>,
        /// The rules the data set breaks, when known.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        expected: Vec<Rule>,
        /// The twin, and how it ended.
        twin: TwinEnd,
    },
    /// Under `--strict-rules`: the backend refused a data set that must be refused, naming
    /// another rule than the spec rules it breaks.
    RefusedForAnotherReason {
        /// The backend's message.
        refusal: String,
        /// The rule it named.
        rule: Rule,
        /// The rules the data set breaks.
        expected: Vec<Rule>,
    },
    /// Outputs of other values, or of another type, shape or number.
    Mismatch {
        /// Another type, shape or number of outputs (not only other values).
        shape: bool,
        /// The comparison's report.
        report: String,
        /// How far apart the floating values compared are: the largest errors and ULP
        /// distance, the special values that differ (absent when no floating values were
        /// compared, and from reports written before it was measured).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deviation: Option<Box<Deviation>>,
    },
    /// The backend answered a data set that must be refused.
    AcceptedMustRefuse {
        /// Why it must be refused (expected_error.txt, or the reference's refusal).
        reason: String,
        /// The rules it breaks, when known.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rules: Vec<Rule>,
    },
    /// The backend refused a data set it had to answer.
    RefusedValid {
        /// The backend's message.
        refusal: String,
    },
    /// The backend failed: never a refusal, whatever the data set expects.
    Failed {
        /// How.
        failure: Failure,
        /// What it said, or what the runner saw.
        detail: String,
        /// The data set must be refused (the message says a failure is not a refusal).
        must_refuse: bool,
    },
    /// Retried after a crash or timeout, the backend gave two different answers (other
    /// outputs, byte for byte, or another verdict): it reads memory it never wrote, or
    /// depends on something other than its inputs.
    Unstable {
        /// How the first try failed.
        after: Failure,
        /// The tries made, the first included.
        tries: u32,
        /// The two answers.
        detail: String,
    },
    /// The case or data set cannot be loaded: no backend is to blame.
    NotLoadable {
        /// Why, naming the file.
        detail: String,
    },
    /// Outside what the backend supports.
    Unsupported {
        /// The profile excludes it, or the backend says so.
        by: UnsupportedBy,
        /// The profile entry, or the backend's message.
        detail: String,
    },
    /// The graph holds no Pad-family node.
    NotApplicable {
        /// The ops it holds.
        reason: String,
    },
}

/// The valid twin of a data set that must be refused, as it ended in the run that refused the
/// data set: what leaves the refusal unverified.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwinEnd {
    /// The twin data set's name: `extended/test_ext_pad18_err_axes_repeated_twin/0`.
    pub name: String,
    /// Its status, never passed; `None` when it did not run (outside the run's selection, or
    /// in no part that was merged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// What its failure groups under, when it failed or errored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
}

impl fmt::Display for TwinEnd {
    /// `its twin extended/x_twin/0 did not pass (errored, refuses-valid)`, or `… was not in
    /// the run`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "its twin {} ", self.name)?;
        match (self.status, self.cause) {
            (None, _) => f.write_str("was not in the run"),
            (Some(status), Some(cause)) => write!(f, "did not pass ({}, {cause})", status.name()),
            (Some(status), None) => write!(f, "did not pass ({})", status.name()),
        }
    }
}

/// What says a data set is unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnsupportedBy {
    /// The backend's declared profile.
    Profile,
    /// The backend's own answer.
    Backend,
}

/// What a failure groups under: the typed part of a verdict that tells one defect from
/// another, shared by the reports' failure groups and the fuzzer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// Outputs of the right type and shape with other values.
    WrongValues,
    /// Outputs of another type, shape or number.
    WrongShape,
    /// Answered what must be refused.
    AcceptsForbidden,
    /// Refused a data set it had to answer.
    RefusesValid,
    /// Refused what must be refused, naming another spec rule (under `--strict-rules`).
    OtherReason,
    /// Panicked, crashed, broke the protocol or reported a failure.
    Crash,
    /// Did not answer in time.
    Timeout,
    /// Answered differently on two tries.
    Unstable,
    /// The runner could not hand the data set over.
    Runner,
    /// The case cannot be loaded.
    NotLoadable,
}

impl Cause {
    /// `wrong-values`, `accepts-forbidden`, …
    pub fn key(self) -> &'static str {
        match self {
            Cause::WrongValues => "wrong-values",
            Cause::WrongShape => "wrong-shape",
            Cause::AcceptsForbidden => "accepts-forbidden",
            Cause::RefusesValid => "refuses-valid",
            Cause::OtherReason => "other-reason",
            Cause::Crash => "crash",
            Cause::Timeout => "timeout",
            Cause::Unstable => "unstable",
            Cause::Runner => "runner",
            Cause::NotLoadable => "not-loadable",
        }
    }

    /// Whether it is a defect of the backend (wrong answers, accepting what is forbidden,
    /// crashes and hangs), rather than a limitation or a problem of the run.
    pub fn is_defect(self) -> bool {
        matches!(
            self,
            Cause::WrongValues
                | Cause::WrongShape
                | Cause::AcceptsForbidden
                | Cause::Crash
                | Cause::Timeout
                | Cause::Unstable
        )
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl Verdict {
    /// The status reports and baselines show.
    pub fn status(&self) -> Status {
        match self {
            Verdict::Passed { .. } | Verdict::RefusedAsRequired { .. } => Status::Passed,
            Verdict::Mismatch { .. }
            | Verdict::AcceptedMustRefuse { .. }
            | Verdict::RefusedForAnotherReason { .. }
            | Verdict::Unstable { .. } => Status::Failed,
            Verdict::RefusedValid { .. } | Verdict::Failed { .. } | Verdict::NotLoadable { .. } => Status::Errored,
            Verdict::Unsupported { .. } => Status::Unsupported,
            Verdict::NotApplicable { .. } => Status::Skipped,
            Verdict::RefusalNotVerified { .. } => Status::NotVerified,
        }
    }

    /// A note on a passing verdict that a reader should still see: a required refusal that
    /// names another spec rule than the data set breaks (failing only under
    /// `--strict-rules`). `None` for every other verdict.
    pub fn note(&self) -> Option<String> {
        match self {
            Verdict::RefusedAsRequired {
                rule: Some(rule),
                expected,
                ..
            } if other_spec_reason(*rule, expected) => Some(format!(
                "refused for another reason: names {rule}, the data set breaks {}",
                ids(expected)
            )),
            _ => None,
        }
    }

    /// How far apart the floating values were, when outputs were compared and not all of
    /// them bit for bit.
    pub fn deviation(&self) -> Option<&Deviation> {
        match self {
            Verdict::Passed { deviation, .. } | Verdict::Mismatch { deviation, .. } => deviation.as_deref(),
            _ => None,
        }
    }

    /// What the failure groups under; `None` for a verdict that is no failure.
    pub fn cause(&self) -> Option<Cause> {
        match self {
            Verdict::Mismatch { shape: false, .. } => Some(Cause::WrongValues),
            Verdict::Mismatch { shape: true, .. } => Some(Cause::WrongShape),
            Verdict::AcceptedMustRefuse { .. } => Some(Cause::AcceptsForbidden),
            Verdict::RefusedValid { .. } => Some(Cause::RefusesValid),
            Verdict::RefusedForAnotherReason { .. } => Some(Cause::OtherReason),
            Verdict::Failed { failure, .. } => Some(match failure {
                Failure::Timeout => Cause::Timeout,
                Failure::Runner => Cause::Runner,
                Failure::Panic
                | Failure::Crash { .. }
                | Failure::Protocol
                | Failure::Reported
                | Failure::InvalidRewrite => Cause::Crash,
            }),
            Verdict::Unstable { .. } => Some(Cause::Unstable),
            Verdict::NotLoadable { .. } => Some(Cause::NotLoadable),
            Verdict::Passed { .. }
            | Verdict::RefusedAsRequired { .. }
            | Verdict::RefusalNotVerified { .. }
            | Verdict::Unsupported { .. }
            | Verdict::NotApplicable { .. } => None,
        }
    }

    /// The message reports show, for a backend named `backend`; empty for a pass.
    pub fn message(&self, backend: &str) -> String {
        match self {
            Verdict::Passed { .. } => String::new(),
            Verdict::RefusedAsRequired {
                refusal,
                rule: Some(rule),
                expected,
            } if other_spec_reason(*rule, expected) => format!(
                "refused as expected, for another reason: names {rule}, the data set breaks {}: {refusal}",
                ids(expected)
            ),
            Verdict::RefusedAsRequired { refusal, .. } => format!("refused as expected: {refusal}"),
            Verdict::RefusalNotVerified {
                refusal,
                twin: twin @ TwinEnd { status: None, .. },
                ..
            } => format!(
                "refusal not verified (twin not run): {twin}, so nothing shows that backend {backend} refused by the rule: {refusal}"
            ),
            Verdict::RefusalNotVerified { refusal, twin, .. } => format!(
                "refusal not verified: {twin}, so backend {backend} may refuse what it lacks, not the rule: {refusal}"
            ),
            Verdict::RefusedForAnotherReason {
                refusal,
                rule,
                expected,
            } => format!(
                "backend {backend} refused for another rule (kind refused): it names {rule}, the data set breaks {}: {refusal}",
                ids(expected)
            ),
            Verdict::Mismatch { report, .. } => format!("mismatch: {report}"),
            Verdict::AcceptedMustRefuse { reason, .. } => {
                format!("backend {backend} returned outputs, but this data set must be refused: {reason}")
            }
            Verdict::RefusedValid { refusal } => {
                format!("backend {backend} refused a valid input (kind refused): {refusal}")
            }
            Verdict::Failed {
                failure: Failure::Runner,
                detail,
                ..
            } => detail.clone(),
            Verdict::Failed {
                failure,
                detail,
                must_refuse,
            } => {
                let what = match failure {
                    Failure::Panic => "crashed (it panicked)",
                    Failure::Crash { .. } => "crashed",
                    Failure::Timeout => "timed out",
                    Failure::Protocol => "broke the worker protocol",
                    Failure::InvalidRewrite => "rewrote the model into one the reference refuses",
                    Failure::Reported | Failure::Runner => "failed (it reported an internal failure, kind failed)",
                };
                let not_a_refusal = if *must_refuse { ", which is not a refusal" } else { "" };
                format!("backend {backend} {what}{not_a_refusal}: {detail}")
            }
            Verdict::Unstable {
                after: Failure::Timeout,
                detail,
                ..
            } => format!("backend {backend} answered differently on two tries after a timeout: {detail}"),
            Verdict::Unstable { detail, .. } => {
                format!("backend {backend} answered differently on two tries after a crash: {detail}")
            }
            Verdict::NotLoadable { detail } => detail.clone(),
            Verdict::Unsupported {
                by: UnsupportedBy::Backend,
                detail,
            } => format!("backend {backend} says unsupported (kind unsupported): {detail}"),
            Verdict::Unsupported { detail, .. } => detail.clone(),
            Verdict::NotApplicable { reason } => reason.clone(),
        }
    }
}

/// Whether a refusal naming `named` gives another reason than the spec rules in `expected`:
/// only a spec rule is compared; for other bases the rule is only shown.
pub(crate) fn other_spec_reason(named: Rule, expected: &[Rule]) -> bool {
    let spec: Vec<Rule> = expected
        .iter()
        .copied()
        .filter(|r| r.basis().0 == crate::data::basis::Basis::Spec)
        .collect();
    !spec.is_empty() && !spec.contains(&named)
}

/// `a, b`: rule ids for a message.
fn ids(rules: &[Rule]) -> String {
    rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
}

/// What a data set expects of the backend.
#[derive(Clone, Debug)]
pub(crate) enum Expectation<'a> {
    /// These outputs.
    Outputs(&'a [Tensor]),
    /// A refusal, by `rules` when they are known.
    Refusal {
        /// Why it must be refused (expected_error.txt, or the reference's refusal).
        reason: &'a str,
        /// The rules the data set breaks.
        rules: Vec<Rule>,
    },
}

/// The verdict on a backend's `error` when the data set expects `expectation`; under
/// `strict_rules` a refusal naming another spec rule than the data set breaks fails. Outputs
/// are judged by the comparison ([`super::check`]); an output of a value its element type
/// cannot have is judged here, as the wrong answer it is.
pub(crate) fn judge_error(error: &BackendError, expectation: &Expectation, strict_rules: bool) -> Verdict {
    let must_refuse = matches!(expectation, Expectation::Refusal { .. });
    match (error.says(), expectation) {
        (Says::Unsupported, _) => Verdict::Unsupported {
            by: UnsupportedBy::Backend,
            detail: error.to_string(),
        },
        (Says::Failed(failure), _) => Verdict::Failed {
            failure: *failure,
            detail: error.to_string(),
            must_refuse,
        },
        (Says::Refused { .. }, Expectation::Refusal { rules, .. }) => match error.rule() {
            Some(rule) if strict_rules && other_spec_reason(rule, rules) => Verdict::RefusedForAnotherReason {
                refusal: error.to_string(),
                rule,
                expected: rules.clone(),
            },
            rule => Verdict::RefusedAsRequired {
                refusal: error.to_string(),
                rule,
                expected: rules.clone(),
            },
        },
        (Says::Refused { .. }, Expectation::Outputs(_)) => Verdict::RefusedValid {
            refusal: error.to_string(),
        },
        (Says::WrongOutput(_), Expectation::Refusal { reason, rules }) => Verdict::AcceptedMustRefuse {
            reason: (*reason).to_owned(),
            rules: rules.clone(),
        },
        (Says::WrongOutput(wrong), Expectation::Outputs(expected)) => Verdict::Mismatch {
            shape: wrong.wrong_shape(expected),
            report: wrong.to_string(),
            deviation: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{BackendFailure, BackendUnsupported};

    #[test]
    fn verdicts_written_before_deviations_were_measured_still_read() {
        let old: Verdict = serde_json::from_str(r#"{"verdict":"mismatch","shape":false,"report":"r"}"#).unwrap();
        assert_eq!(
            old,
            Verdict::Mismatch {
                shape: false,
                report: "r".into(),
                deviation: None
            }
        );
        let old: Verdict = serde_json::from_str(r#"{"verdict":"passed","bit_exact":false}"#).unwrap();
        assert_eq!(old.deviation(), None);
        // And a deviation makes the round trip, absent when there is none.
        let passed = Verdict::Passed {
            bit_exact: false,
            deviation: Some(Box::new(Deviation {
                max_abs_error: 0.5,
                ..Deviation::default()
            })),
        };
        let json = serde_json::to_string(&passed).unwrap();
        assert_eq!(
            json,
            r#"{"verdict":"passed","bit_exact":false,"deviation":{"max_abs_error":0.5,"max_rel_error":0.0}}"#
        );
        assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), passed);
        let exact = Verdict::Passed {
            bit_exact: true,
            deviation: None,
        };
        assert_eq!(
            serde_json::to_string(&exact).unwrap(),
            r#"{"verdict":"passed","bit_exact":true}"#
        );
    }

    #[test]
    fn a_polite_refusal_is_never_a_crash_whatever_its_words() {
        let polite: BackendError = "not implemented: the signal path panicked, timed out and was killed".into();
        let verdict = judge_error(&polite, &Expectation::Outputs(&[]), false);
        assert_eq!(verdict.cause(), Some(Cause::RefusesValid));
        assert!(!verdict.cause().unwrap().is_defect());
        let refused = judge_error(
            &polite,
            &Expectation::Refusal {
                reason: "",
                rules: vec![Rule::ModeNotInVersion],
            },
            false,
        );
        assert_eq!(refused.status(), Status::Passed);
    }

    #[test]
    fn failures_and_unsupported_answers_are_typed_by_the_error_not_its_text() {
        let must_refuse = Expectation::Refusal {
            reason: "",
            rules: Vec::new(),
        };
        let failure: BackendError = BackendFailure("refused".into()).into();
        let verdict = judge_error(&failure, &must_refuse, false);
        assert_eq!(
            (verdict.status(), verdict.cause()),
            (Status::Errored, Some(Cause::Crash))
        );
        assert_eq!(
            verdict.message("b"),
            "backend b failed (it reported an internal failure, kind failed), which is not a refusal: refused"
        );
        let unsupported: BackendError = BackendUnsupported("failed".into()).into();
        let verdict = judge_error(&unsupported, &Expectation::Outputs(&[]), false);
        assert_eq!((verdict.status(), verdict.cause()), (Status::Unsupported, None));
    }

    #[test]
    fn a_refusal_naming_another_spec_rule_is_a_note_or_under_the_flag_a_failure() {
        use crate::backend::Refusal;
        let must_refuse = Expectation::Refusal {
            reason: "",
            rules: vec![Rule::ModeNotInVersion],
        };
        let other: BackendError = Refusal::new(Rule::DataType, "no int4").into();
        let noted = judge_error(&other, &must_refuse, false);
        assert_eq!(noted.status(), Status::Passed);
        assert_eq!(
            noted.message("b"),
            "refused as expected, for another reason: names data-type, the data set breaks mode-not-in-version: no int4"
        );
        let strict = judge_error(&other, &must_refuse, true);
        assert_eq!(
            (strict.status(), strict.cause()),
            (Status::Failed, Some(Cause::OtherReason))
        );
        // The same rule, or no rule named, or a rule of another basis expected: no note.
        let same: BackendError = Refusal::new(Rule::ModeNotInVersion, "no wrap").into();
        assert_eq!(
            judge_error(&same, &must_refuse, true).message("b"),
            "refused as expected: no wrap"
        );
        let unnamed: BackendError = "no".into();
        assert_eq!(judge_error(&unnamed, &must_refuse, true).status(), Status::Passed);
        let undefined = Expectation::Refusal {
            reason: "",
            rules: vec![Rule::AxisRepeated],
        };
        assert_eq!(judge_error(&other, &undefined, true).status(), Status::Passed);
    }

    #[test]
    fn an_output_of_an_impossible_value_is_a_wrong_answer_judged_against_the_expectation() {
        use crate::backend::WrongOutput;
        use crate::tensor::{DataType, ImpossibleValue, Stored};
        let wrong = |shape: Vec<usize>| -> BackendError {
            let wrong = WrongOutput {
                index: 0,
                name: "y".into(),
                answered: 1,
                value: ImpossibleValue {
                    data_type: DataType::Bool,
                    shape,
                    index: 2,
                    stored: Stored::Byte(122),
                },
            };
            BackendError::new(Says::WrongOutput(Box::new(wrong)), "not read: the verdict is typed")
        };
        let expected = [Tensor::from_vec(&[2, 3], vec![false; 6]).unwrap()];
        let verdict = judge_error(&wrong(vec![2, 3]), &Expectation::Outputs(&expected), false);
        assert_eq!(
            (verdict.status(), verdict.cause()),
            (Status::Failed, Some(Cause::WrongValues))
        );
        assert_eq!(
            verdict.message("b"),
            r#"mismatch: output 0 "y": element [0, 2] is byte 122, which is no bool"#
        );
        // Of another shape than expected: a wrong shape too.
        let verdict = judge_error(&wrong(vec![6]), &Expectation::Outputs(&expected), false);
        assert_eq!(verdict.cause(), Some(Cause::WrongShape));
        // Any outputs answer a data set that must be refused: accepted, whatever their values.
        let must_refuse = Expectation::Refusal {
            reason: "wrap is not allowed before Pad-19",
            rules: vec![Rule::ModeNotInVersion],
        };
        let verdict = judge_error(&wrong(vec![2, 3]), &must_refuse, false);
        assert_eq!(
            verdict,
            Verdict::AcceptedMustRefuse {
                reason: "wrap is not allowed before Pad-19".into(),
                rules: vec![Rule::ModeNotInVersion],
            }
        );
    }

    #[test]
    fn a_verdict_round_trips_through_json() {
        let verdict = Verdict::Failed {
            failure: Failure::Crash {
                code: None,
                signal: Some(6),
            },
            detail: "worker exited (signal: 6 (SIGABRT))".into(),
            must_refuse: false,
        };
        let json = serde_json::to_string(&verdict).unwrap();
        assert!(
            json.contains(r#""verdict":"failed""#) && json.contains(r#""crash":{"signal":6}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), verdict);
    }
}
