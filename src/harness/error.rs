//! Why the harness cannot build or finish its trials.

use std::fmt;
use std::path::PathBuf;

use crate::gate::config::ConfigNameError;

/// Why the harness cannot build or finish its trials.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// The cases cannot be discovered or read.
    #[error(transparent)]
    Cases(#[from] CasesError),
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

/// Why the cases cannot be discovered or read: its message names the root, the file, the
/// field and the value at fault. Opaque, as [`std::io::Error`] is: a gate shows it, and its
/// [`source`](std::error::Error::source) chain goes on to the underlying error.
#[derive(Debug)]
pub struct CasesError(Box<crate::case::error::Error>);

/// Why a baseline cannot be read or written: its message names the file and, for an entry
/// that is not one, the data set and field. Opaque, as [`std::io::Error`] is.
#[derive(Debug)]
pub struct BaselineError(Box<crate::gate::baseline::BaselineError>);

impl fmt::Display for CasesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

// The source is the wrapped error's own: the wrapper adds no message of its own to the chain.
impl std::error::Error for CasesError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl std::error::Error for BaselineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

// Constructors, not `From` impls: a `From` impl would name the wrapped type in the API.
impl HarnessError {
    /// The cases cannot be discovered or read.
    pub(crate) fn cases(error: impl Into<crate::case::error::Error>) -> HarnessError {
        HarnessError::Cases(CasesError(Box::new(error.into())))
    }

    /// The baseline cannot be read or written.
    pub(crate) fn baseline(error: crate::gate::baseline::BaselineError) -> HarnessError {
        HarnessError::Baseline(BaselineError(Box::new(error)))
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
            PipelineError::Baseline(e) => HarnessError::baseline(e),
            PipelineError::Profile(e) => HarnessError::Profile(e),
            PipelineError::Write(e) => HarnessError::Write {
                path: e.path.unwrap_or_default(),
                source: e.source,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// The wrappers add nothing to the message or the chain: a baseline that cannot be
    /// written says so naming the file, and its source is the operating system's error.
    #[test]
    fn a_wrapped_error_says_what_it_wraps_and_keeps_its_source() {
        let error = HarnessError::baseline(crate::gate::baseline::BaselineError::Write {
            path: PathBuf::from("known.json"),
            source: std::io::Error::other("disk full"),
        });
        assert_eq!(error.to_string(), "writing known.json: disk full");
        let HarnessError::Baseline(baseline) = &error else {
            panic!("{error:?}")
        };
        assert_eq!(baseline.to_string(), "writing known.json: disk full");
        assert_eq!(error.source().map(|s| s.to_string()).as_deref(), Some("disk full"));
        let error = HarnessError::cases(crate::case::error::Error::Cancelled);
        assert!(matches!(&error, HarnessError::Cases(_)));
        assert_eq!(error.to_string(), "cancelled while looking for cases");
        assert!(error.source().is_none());
    }
}
