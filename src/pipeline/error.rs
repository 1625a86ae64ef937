//! Why a run cannot be prepared or finished: each face shows it as its own error (the command
//! line's exit code 2, the harness's [`HarnessError`](crate::harness::HarnessError)).

use super::output::WriteError;
use crate::data::output_paths::OutputPathError;
use crate::gate::baseline::BaselineError;
use crate::judge::profile::ProfileError;

/// Why a run cannot be prepared or finished.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PipelineError {
    /// A file the run would write is one it reads, or another it writes, or a directory.
    #[error(transparent)]
    Outputs(#[from] OutputPathError),
    /// The baseline to record into is none, or cannot be written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// The profile cannot be read, or leaves every data set out.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A report cannot be written.
    #[error(transparent)]
    Write(#[from] WriteError),
}
