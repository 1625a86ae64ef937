//! The files a harness run writes when it ends: a JSON, a JUnit XML and a Markdown report, as
//! the command line writes them, from the same judged report, by the pipeline's one writer.

use std::path::{Path, PathBuf};

use super::HarnessError;
use crate::data::output_paths::Named;
use crate::pipeline::output::WriteError;
use crate::pipeline::report_format::ReportFormat;
use crate::pipeline::reports::ReportOut;
use crate::report::Colors;

/// Where the harness writes its reports, if anywhere.
#[derive(Clone, Debug, Default)]
pub(super) struct Reports {
    /// The JSON report's file.
    pub json: Option<PathBuf>,
    /// The JUnit XML report's file (written with the feature `junit`; asked for without it,
    /// an error before the run).
    pub junit: Option<PathBuf>,
    /// The Markdown report's file.
    pub markdown: Option<PathBuf>,
}

impl Reports {
    /// Each report asked for: its name in messages, its format and its file.
    fn asked(&self) -> impl Iterator<Item = (&'static str, ReportFormat, &Path)> {
        [
            ("JSON report", ReportFormat::Json, &self.json),
            #[cfg(feature = "junit")]
            ("JUnit report", ReportFormat::Junit, &self.junit),
            ("Markdown report", ReportFormat::Markdown, &self.markdown),
        ]
        .into_iter()
        .filter_map(|(name, format, path)| Some((name, format, path.as_deref()?)))
    }

    /// A JUnit report asked for (by `PAD_CONFORMANCE_JUNIT_REPORT`) of a build without the
    /// feature `junit`: the error that stops the run before it starts, not a report missing
    /// after it.
    pub(super) fn check_available(&self) -> Result<(), HarnessError> {
        #[cfg(not(feature = "junit"))]
        if let Some(path) = &self.junit {
            return Err(HarnessError::Write {
                path: path.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "a JUnit report needs pad-conformance's feature `junit` (PAD_CONFORMANCE_JUNIT_REPORT asks for one)",
                ),
            });
        }
        Ok(())
    }

    /// Whether any report is asked for.
    pub(super) fn any(&self) -> bool {
        self.asked().next().is_some()
    }

    /// The reports' files, named, for the checks before the run.
    pub(super) fn named(&self) -> Vec<Named<'_>> {
        self.asked().map(|(name, _, path)| (name, Some(path))).collect()
    }

    /// Starts writing each report asked for; each is put in place whole when the run finishes.
    pub(super) fn open(&self) -> Result<Vec<ReportOut>, WriteError> {
        self.asked()
            .map(|(_, format, path)| ReportOut::open(format, Some(path), Colors::Never))
            .collect()
    }
}

/// Whether this process is one of cargo-nextest's: nextest runs each trial in a process of
/// its own, so what the harness writes at the end of a run would be one trial's, each
/// process overwriting the last.
pub(super) fn under_nextest() -> bool {
    std::env::var_os("NEXTEST_EXECUTION_MODE").is_some_and(|mode| mode == "process-per-test")
        || std::env::var_os("NEXTEST").is_some_and(|v| v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_junit_report_is_written_with_the_feature_and_refused_before_the_run_without_it() {
        let reports = Reports {
            junit: Some(PathBuf::from("target/junit.xml")),
            ..Reports::default()
        };
        let checked = reports.check_available().map_err(|e| e.to_string());
        #[cfg(feature = "junit")]
        {
            assert_eq!(checked, Ok(()));
            assert_eq!(reports.named().len(), 1);
        }
        #[cfg(not(feature = "junit"))]
        {
            assert_eq!(
                checked,
                Err(
                    "writing target/junit.xml: a JUnit report needs pad-conformance's feature `junit` \
                     (PAD_CONFORMANCE_JUNIT_REPORT asks for one)"
                        .to_owned()
                )
            );
            assert!(!reports.any());
        }
    }
}
