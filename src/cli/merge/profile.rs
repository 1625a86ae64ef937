//! `merge --profile`: a run made without a profile, judged with one afterwards, so that one
//! run of a backend gives both the matrix (every data set, unprofiled) and its gate (within
//! its profile). A profile acts on a data set in two ways: it leaves it out (unsupported, a
//! function of the data set's model and inputs alone, decided here from the corpus files,
//! never from the report) or it hands some of its inputs to the backend as initializers,
//! which changes what the backend is asked; a data set of the second kind is refused, since
//! only a run made with the profile says what the backend answers then.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::case::TestCase;
use crate::data::basis::Gating;
use crate::judge::check::{CheckOptions, UnderProfile, under_profile};
use crate::judge::profile::Profile;
use crate::report::RunReport;
use crate::text::shown_path;

/// Why a report cannot be judged with a profile.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum ProfileMismatch {
    /// A report that does not record its run's options.
    #[error(
        "{}: records no \"run\" (a report older than run facts): whether it ran with a profile is unknown, so it cannot be judged with --profile {}",
        shown_path(report),
        shown_path(profile)
    )]
    Unrecorded { report: PathBuf, profile: PathBuf },
    /// A report run with another profile.
    #[error(
        "{}: run with the profile of sha256 {ran}, but --profile {} has sha256 {ours}: judge a run made without a profile, or with this one",
        shown_path(report),
        shown_path(profile)
    )]
    OtherProfile {
        report: PathBuf,
        ran: String,
        profile: PathBuf,
        ours: String,
    },
    /// A data set the profile runs otherwise than the report's run did.
    #[error(
        "{}: data set {name} runs with {inputs} as initializers under --profile {}, which the report's run did not: only a run made with the profile can be judged with it",
        shown_path(report),
        shown_path(profile),
        inputs = inputs.join(", ")
    )]
    RunsOtherwise {
        report: PathBuf,
        name: String,
        inputs: Vec<String>,
        profile: PathBuf,
    },
    /// A data set of the report that is not in the corpus it is judged over.
    #[error(
        "{}: data set {name} is not under the data searched (--data, --pattern): it cannot be judged with --profile {}",
        shown_path(report),
        shown_path(profile)
    )]
    NotFound {
        report: PathBuf,
        name: String,
        profile: PathBuf,
    },
}

/// `report` (read from `path`, merged) judged with `profile` (read from `profile_path`) over
/// `cases`: each data set outside it becomes the unsupported outcome a run with it gives; the
/// others keep theirs; the run's facts name the profile.
pub(super) fn judge_with_profile(
    report: &mut RunReport,
    path: &Path,
    profile: &Profile,
    profile_path: &Path,
    cases: &[TestCase],
) -> Result<(), ProfileMismatch> {
    let Some(facts) = report.run.as_mut() else {
        return Err(ProfileMismatch::Unrecorded {
            report: path.to_owned(),
            profile: profile_path.to_owned(),
        });
    };
    let ours = profile.digest.0.clone().unwrap_or_default();
    if let Some(ran) = &facts.profile
        && *ran != ours
    {
        return Err(ProfileMismatch::OtherProfile {
            report: path.to_owned(),
            ran: ran.clone(),
            profile: profile_path.to_owned(),
            ours,
        });
    }
    let names: Vec<String> = facts.gating.split(',').map(str::to_owned).collect();
    let options = CheckOptions {
        gating: Gating::from_names(&names).unwrap_or_default(),
        profile: profile.clone(),
        ..CheckOptions::default()
    };
    let inputs_were_constants = facts.inputs_as_constants;
    facts.profile = Some(ours);
    let by_id: HashMap<&str, &TestCase> = cases.iter().map(|case| (case.id.as_str(), case)).collect();
    let mut models = HashMap::new();
    for outcome in &mut report.outcomes {
        let found = by_id.get(outcome.id()).and_then(|case| {
            let index = case.data_sets.iter().position(|d| d.index == outcome.data_set())?;
            Some((*case, index))
        });
        let Some((case, index)) = found else {
            return Err(ProfileMismatch::NotFound {
                report: path.to_owned(),
                name: outcome.name(),
                profile: profile_path.to_owned(),
            });
        };
        let model = models
            .entry(case.id.as_str())
            .or_insert_with(|| case.runnable_model(&case.decode_options(options.max_tensor_bytes)));
        match under_profile(&report.backend, case, index, model, &options) {
            UnderProfile::Unchanged => {}
            UnderProfile::Initializers(_) if inputs_were_constants => {}
            UnderProfile::Initializers(inputs) => {
                return Err(ProfileMismatch::RunsOtherwise {
                    report: path.to_owned(),
                    name: outcome.name(),
                    inputs,
                    profile: profile_path.to_owned(),
                });
            }
            UnderProfile::Excluded(unsupported) => *outcome = *unsupported,
        }
    }
    Ok(())
}
