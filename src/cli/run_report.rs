//! What the main command and `merge` share around the one pipeline's finish: the baseline
//! read, the command line's view of the judged run on standard error, and the exit code it
//! comes to.

use std::process::ExitCode;

use crate::cli::args::{GateArgs, RunFormat};
use crate::cli::fatal::Fatal;
use crate::data::DataRoot;
use crate::gate::baseline::Baseline;
use crate::gate::judging::GateSummary;
use crate::pipeline::finish::Strictness;
use crate::pipeline::report_format::ReportFormat;
use crate::report::RunReport;
use crate::text::escape_line;

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

/// The command line's view of a judged run once its reports are written, on standard error,
/// its summary last: when the human report went to standard output (`human_on_stdout`), its
/// recap names what needs attention and its summary line stands just above, so only the gate's
/// verdict follows; else the names that need attention, the summary line and the verdict.
pub(super) fn show_on_stderr(report: &RunReport, human_on_stdout: bool) {
    let verdict = report.baseline.as_ref();
    if !human_on_stdout {
        for line in verdict.map(GateSummary::attention).unwrap_or_default() {
            eprintln!("  {}", escape_line(&line));
        }
        eprintln!("{}", report.summary().line());
    }
    if let Some(verdict) = verdict {
        eprintln!("{}", escape_line(&verdict.headline()));
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
    // The upgrade keeps every hand-written reason and link, which a fresh recording would lose.
    let how = format!("pad-conformance baseline upgrade {} --in-place", path.display());
    match baseline.unversioned_warning(path, &how) {
        Some(warning) if strict => Err(Fatal(format!("{} (--strict)", warning.trim_start_matches("warning: ")))),
        Some(warning) => {
            eprintln!("pad-conformance: {warning}");
            Ok(Some(baseline))
        }
        None => Ok(Some(baseline)),
    }
}
