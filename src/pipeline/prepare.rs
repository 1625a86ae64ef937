//! What a run checks before its first data set, the same for both faces: no file it writes is
//! one it reads or another it writes, the baseline it will record into is a baseline (or
//! nothing) and can be written, and its profile is read or, built by a gate, checked. A mistake
//! found after an hour's run would lose the hour.

use super::error::PipelineError;
use crate::data::output_paths::{Named, check_outputs};
use crate::gate::baseline::Baseline;
use crate::gate::config::ConfigName;
use crate::judge::check::CheckOptions;
use crate::judge::profile::Profile;

/// The files a run writes and reads, each named as its face names it (`--output`, `JSON
/// report`), for the messages.
pub(crate) struct RunFiles<'a> {
    /// The reports.
    pub reports: Vec<Named<'a>>,
    /// The baseline the run's failures are recorded into.
    pub write_baseline: Named<'a>,
    /// The baseline the run is judged against.
    pub baseline: Named<'a>,
    /// The profile, when it is read from a file.
    pub profile: Named<'a>,
}

/// Checks `files` before a run in `config`, and completes `options` with the profile: read
/// from its file, or else the one `options` holds, checked.
pub(crate) fn prepare(
    files: &RunFiles<'_>,
    config: Option<&ConfigName>,
    options: &mut CheckOptions,
) -> Result<(), PipelineError> {
    let mut outputs = files.reports.clone();
    outputs.push(files.write_baseline);
    let inputs = [files.baseline, files.profile, files.write_baseline];
    // The baseline is updated in place, atomically: the one file it reads and writes.
    let (record, judge) = (files.write_baseline.0, files.baseline.0);
    check_outputs(&outputs, &inputs, &[(record, judge), (record, record)])?;
    // A malformed file there, or one that is no baseline, is refused and left untouched, never
    // replaced as if it were absent; so is a target that cannot be written.
    if let Some(path) = files.write_baseline.1 {
        Baseline::check_recordable(path, config)?;
    }
    match files.profile.1 {
        Some(path) => options.profile = Profile::read(path)?,
        None => options.profile.check_built()?,
    }
    Ok(())
}
