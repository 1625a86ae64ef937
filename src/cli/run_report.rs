//! The report of a run judged against its baseline, written as the command's view says, and
//! the exit code it comes to: what the main command and `merge` share.

use std::io;
use std::process::ExitCode;

use crate::cli::args::{GateArgs, RunFormat};
use crate::cli::fatal::Fatal;
use crate::cli::output::{Output, finish};
use crate::cli::scoreboard::{Board, Rerun, write_scoreboard};
use crate::data::DataRoot;
use crate::gate::baseline::Baseline;
use crate::gate::judging::GateSummary;
use crate::judge::check::Outcome;
use crate::report::{RunReport, write_json, write_junit, write_markdown, write_summary};
use crate::text::escape_text;

/// Weighs every outcome of `report` against `baseline` (its gate result) and sums them up,
/// under the run's strict flags; `exists` tells whether a data set name exists at all.
pub(super) fn judge_against(
    report: &mut RunReport,
    baseline: &Baseline,
    gate: &GateArgs,
    exists: impl Fn(&str) -> bool,
) {
    report.gates = report
        .outcomes
        .iter()
        .map(|outcome| (outcome.name(), baseline.gate(outcome)))
        .collect();
    let judged = baseline.judge(&report.outcomes, exists);
    let ran: std::collections::HashSet<String> = report.outcomes.iter().map(Outcome::name).collect();
    report.baseline = Some(GateSummary {
        strict: gate.strict,
        strict_corpus: gate.strict_corpus,
        require_tracking: gate.require_tracking,
        untracked: baseline.untracked(|name| ran.contains(name)),
        ..judged
    });
}

/// How a report is written: its format, whether only failures are shown (human and
/// Markdown), whether it goes to `--output FILE` (the summary line then goes to standard
/// error too).
#[derive(Clone, Copy)]
pub(super) struct View {
    pub format: RunFormat,
    pub failures_only: bool,
    pub to_file: bool,
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

/// Writes the report to `out` as `view` says, after the lines already streamed there
/// (`written`: whether that went well); `rerun` is how the HTML page reruns one data set.
pub(super) fn write_report(
    report: &RunReport,
    rerun: &Rerun,
    view: View,
    mut out: Output,
    written: io::Result<()>,
) -> Result<(), Fatal> {
    let View {
        format,
        failures_only,
        to_file,
    } = view;
    let written = written.and_then(|()| match format {
        RunFormat::Human => write_summary(report, &mut out),
        RunFormat::Json => write_json(report, &mut out),
        RunFormat::Junit => write_junit(report, &mut out),
        RunFormat::Markdown => write_markdown(report, failures_only, &mut out),
        RunFormat::Html => write_scoreboard(&[Board::new(report, rerun.clone())], &mut out),
    });
    finish(written, out)?;
    if to_file || format != RunFormat::Human {
        eprintln!("{}", report.summary().line());
    }
    // The gate's verdict on stderr, after the report, whatever its format and destination.
    if let Some(verdict) = &report.baseline {
        eprintln!("{}", escape_text(&verdict.describe()));
    }
    Ok(())
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
