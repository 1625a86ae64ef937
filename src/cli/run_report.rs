//! What the main command and `merge` share around the one pipeline's finish: the baseline
//! read, the command line's view of the judged run on standard error, and the exit code it
//! comes to.

use std::process::ExitCode;

use crate::cli::args::{GateArgs, RunFormat};
use crate::cli::fatal::Fatal;
use crate::data::DataRoot;
use crate::gate::baseline::Baseline;
use crate::pipeline::finish::Strictness;
use crate::pipeline::report_format::ReportFormat;
use crate::report::RunReport;
use crate::text::escape_text;

/// The report format `--format` names.
pub(super) fn report_format(format: RunFormat) -> ReportFormat {
    match format {
        RunFormat::Human => ReportFormat::Human,
        RunFormat::Json => ReportFormat::Json,
        RunFormat::Junit => ReportFormat::Junit,
        RunFormat::Markdown => ReportFormat::Markdown,
        RunFormat::Html => ReportFormat::Html,
    }
}

/// What fails a run besides a regression, as the gate's options say.
pub(super) fn strictness(gate: &GateArgs) -> Strictness {
    Strictness {
        strict: gate.strict,
        strict_corpus: gate.strict_corpus,
        require_tracking: gate.require_tracking,
        require_verified: gate.require_verified,
    }
}

/// The command line's view of a judged run once its reports are written, on standard error:
/// the summary line when the reports went elsewhere than a human report on standard output
/// (`summary_line`), then the gate's verdict, whatever the reports.
pub(super) fn show_on_stderr(report: &RunReport, summary_line: bool) {
    if summary_line {
        eprintln!("{}", report.summary().line());
    }
    if let Some(verdict) = &report.baseline {
        eprintln!("{}", escape_text(&verdict.describe()));
    }
}

/// 1 when the run fails — by its baseline's gate when judged against one, else when anything
/// gating failed or errored — else 0.
pub(super) fn exit_code(report: &RunReport, gate: &GateArgs) -> ExitCode {
    let summary = report.summary();
    let failed = match &report.baseline {
        Some(verdict) => verdict.fails(gate.strict, gate.strict_corpus),
        None => summary.failed + summary.errored > 0,
    };
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// Reads the `--baseline`, when one is given, against the run's corpora. One that records no
/// version of them excuses nothing: a warning, or under `--strict` an error.
pub(super) fn read_baseline(gate: &GateArgs, roots: &[DataRoot]) -> Result<Option<Baseline>, Fatal> {
    let (Some(path), strict) = (&gate.baseline, gate.strict) else {
        return Ok(None);
    };
    let baseline = Baseline::read(path)?
        .against(path, roots)?
        .for_config(gate.config.clone());
    let how = format!("--write-baseline {}", path.display());
    match baseline.unversioned_warning(path, &how) {
        Some(warning) if strict => Err(Fatal(format!("{} (--strict)", warning.trim_start_matches("warning: ")))),
        Some(warning) => {
            eprintln!("pad-conformance: {warning}");
            Ok(Some(baseline))
        }
        None => Ok(Some(baseline)),
    }
}
