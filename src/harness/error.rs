//! Why the harness cannot build or finish its trials.

use std::path::PathBuf;

use crate::case::error::Error;
use crate::gate::baseline::BaselineError;
use crate::gate::config::ConfigNameError;

/// Why the harness cannot build or finish its trials.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// The cases cannot be discovered.
    #[error(transparent)]
    Cases(#[from] Error),
    /// The baseline cannot be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// [`Harness::retries`](super::Harness::retries) or `PAD_CONFORMANCE_RETRIES` asks for more
    /// retries than the bound, or the variable is not a number.
    #[error("{from} {value:?}: give a whole number of retries from 0 to {max}", max = crate::judge::retry::MAX_RETRIES)]
    Retries {
        /// Where it was asked: `Harness::retries`, or the variable's name.
        from: &'static str,
        /// What was asked.
        value: String,
    },
    /// `PAD_CONFORMANCE_REQUIRE_VERIFIED` says neither on nor off.
    #[error(
        "{from} {value:?}: give 1 (or true) to fail the run on a refusal its twin did not verify, 0 (or false) not to"
    )]
    RequireVerified {
        /// The variable's name.
        from: &'static str,
        /// Its value.
        value: String,
    },
    /// Under [`Harness::strict_corpus`](super::Harness::strict_corpus): the baseline records no
    /// version of the corpus.
    #[error("{0} (strict_corpus)")]
    Unversioned(String),
    /// The configuration's name is not one.
    #[error("{from}: {source}")]
    Config {
        /// Where it was given: `Harness::config`, `PAD_CONFORMANCE_CONFIG`.
        from: &'static str,
        /// Why it is not a name.
        #[source]
        source: ConfigNameError,
    },
    /// A report cannot be written.
    #[error("writing {}: {source}", crate::text::shown_path(path))]
    Write {
        /// The report's file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A baseline or report is to be written at the end of a run whose trials each run in a
    /// process of their own (cargo-nextest): each would hold one trial.
    #[error(
        "cargo-nextest runs each trial in its own process, so the {what} written at the end of the run would hold one trial's result; write it from one process: cargo test --test <this gate>"
    )]
    ProcessPerTrial {
        /// What was to be written: `baseline`, `report`.
        what: &'static str,
    },
    /// The profile handed to [`Harness::profile`](super::Harness::profile) leaves every data set
    /// unsupported.
    #[error(transparent)]
    Profile(#[from] crate::judge::profile::ProfileError),
}

impl From<crate::data::corpus_error::CorpusError> for HarnessError {
    fn from(error: crate::data::corpus_error::CorpusError) -> HarnessError {
        HarnessError::Cases(error.into())
    }
}

impl From<crate::pipeline::error::PipelineError> for HarnessError {
    /// The pipeline's errors as the harness has always shown them: a file the run would write
    /// over one it reads, or a report it cannot write, is a write error naming the file.
    fn from(error: crate::pipeline::error::PipelineError) -> HarnessError {
        use crate::data::output_paths::OutputPathError;
        use crate::pipeline::error::PipelineError;
        match error {
            PipelineError::Outputs(e) => {
                let path = match &e {
                    OutputPathError::OverInput { path, .. }
                    | OutputPathError::TwoOutputs { path, .. }
                    | OutputPathError::Directory { path, .. } => path.clone(),
                };
                HarnessError::Write {
                    path,
                    source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e),
                }
            }
            PipelineError::Baseline(e) => HarnessError::Baseline(e),
            PipelineError::Profile(e) => HarnessError::Profile(e),
            PipelineError::Write(e) => HarnessError::Write {
                path: e.path.unwrap_or_default(),
                source: e.source,
            },
        }
    }
}
