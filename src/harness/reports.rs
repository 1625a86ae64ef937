//! The files a harness run writes when it ends: a JSON and a JUnit XML report, as the command
//! line writes them, from the same [`RunReport`].

use std::path::{Path, PathBuf};

use super::HarnessError;
use crate::data::atomic_file::write_atomically;
use crate::report::{RunReport, write_json, write_junit};

/// Where the harness writes its reports, if anywhere.
#[derive(Clone, Debug, Default)]
pub(super) struct Reports {
    /// The JSON report's file.
    pub json: Option<PathBuf>,
    /// The JUnit XML report's file.
    pub junit: Option<PathBuf>,
}

impl Reports {
    /// Whether any report is asked for.
    pub(super) fn any(&self) -> bool {
        self.json.is_some() || self.junit.is_some()
    }

    /// Writes each report asked for, whole or not at all.
    pub(super) fn write(&self, report: &RunReport) -> Result<(), HarnessError> {
        if let Some(path) = &self.json {
            let mut text = Vec::new();
            write_json(report, &mut text).map_err(|e| write_error(path, e))?;
            write_atomically(path, &text).map_err(|e| write_error(path, e))?;
        }
        if let Some(path) = &self.junit {
            let mut text = Vec::new();
            write_junit(report, &mut text).map_err(|e| write_error(path, e))?;
            write_atomically(path, &text).map_err(|e| write_error(path, e))?;
        }
        Ok(())
    }
}

fn write_error(path: &Path, source: std::io::Error) -> HarnessError {
    HarnessError::Write {
        path: path.to_owned(),
        source,
    }
}

/// Whether this process is one of cargo-nextest's: nextest runs each trial in a process of
/// its own, so what the harness writes at the end of a run would be one trial's, each
/// process overwriting the last.
pub(super) fn under_nextest() -> bool {
    std::env::var_os("NEXTEST_EXECUTION_MODE").is_some_and(|mode| mode == "process-per-test")
        || std::env::var_os("NEXTEST").is_some_and(|v| v == "1")
}
