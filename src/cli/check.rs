//! The main command: run a backend over the selected data sets, report, judge against a
//! baseline; and `--list`.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::cli::listing::list_case;
use crate::cli::scoreboard::{Board, Rerun, write_scoreboard};
use pad_conformance::case::TestCase;
use pad_conformance::data::DataRoot;
use pad_conformance::gate::baseline::{Baseline, Discovered, Ran};
use pad_conformance::judge::check::Outcome;
use pad_conformance::judge::profile::Profile;
use pad_conformance::report::{
    Colors, RunReport, write_json, write_junit, write_markdown, write_outcome, write_summary,
};
use pad_conformance::run::runner::{Job, run_jobs};
use pad_conformance::text::escape_text;

use super::Fatal;
use super::args::{RunArgs, RunFormat};
use super::output::{Output, finish, open_output};

pub fn run(args: &RunArgs) -> Result<ExitCode, Fatal> {
    let selection = &args.selection;
    let roots = selection.roots()?;
    let cases = selection.cases(&roots)?;
    let jobs = selection.jobs(&cases)?;
    if args.list {
        return list(&jobs, selection.max_tensor_bytes);
    }
    let baseline = match &args.baseline {
        Some(path) => Some(read_baseline(path, &roots, args.strict)?),
        None => None,
    };
    // Read before the run: a malformed file there is refused (exit 2) and left untouched,
    // never replaced as if it were absent.
    let previous = match &args.write_baseline {
        Some(path) => Baseline::read_if_exists(path)?.or_else(|| baseline.clone()),
        None => None,
    };
    let mut options = args.checking.options(selection.max_tensor_bytes)?;
    if let Some(path) = &args.profile {
        options.profile = Profile::read(path)?;
    }
    let backend = args.checking.backend(&args.backend, selection.max_tensor_bytes)?;
    let (mut out, terminal) = open_output(args.output.as_ref())?;
    // The human report streams: each line as soon as its data set (and those before) finish.
    let colors = Colors::detect(terminal);
    let mut written = Ok(());
    let mut write_line = |outcome: &Outcome| {
        if args.format == RunFormat::Human && written.is_ok() {
            // A failure on a basis the run does not gate on is not judged against the baseline.
            let gate = baseline
                .as_ref()
                .filter(|_| !outcome.is_non_gating_failure())
                .map(|b| b.finding(&outcome.name(), outcome.status));
            written = write_outcome(outcome, gate.as_ref(), colors, &mut out).and_then(|()| out.flush());
        }
    };
    let mut report = run_jobs(
        backend.as_ref(),
        &jobs,
        &options,
        args.checking.threads(),
        &mut write_line,
    );
    report.shard = selection.shard;
    let discovered = Discovered::new(&cases, !selection.patterns.is_empty());
    // A shard judges the entries of its own part: another part's are neither run nor stale
    // here, so that the parts' findings add up to the whole run's (`merge`).
    let exists = |name: &str| selection.shard.is_some_and(|shard| !shard.contains(name)) || discovered.contains(name);
    // Judged before any report is written, so that every report shows the gate.
    report.baseline = baseline.as_ref().map(|b| b.judge(&report.outcomes, exists));
    let rerun = args.checking.rerun(&args.backend, selection, args.profile.as_ref());
    write_report(&report, &rerun, args.format, args.output.is_some(), out, written)?;
    if let Some(path) = &args.write_baseline {
        let names: Vec<String> = report.outcomes.iter().map(Outcome::name).collect();
        let ran = report.outcomes.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
        let recorded = Baseline::record(&report.backend, &roots, ran, previous.as_ref(), |name| {
            discovered.contains(name)
        });
        recorded.write(path)?;
    }
    if super::signals::interrupted() {
        eprintln!(
            "pad-conformance: interrupted: {} of {} data sets ran; the report holds those",
            report.outcomes.len(),
            jobs.len()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(exit_code(&report, args.strict, args.strict_corpus))
}

/// 1 when the run fails — by its baseline's gate when judged against one, else when anything
/// gating failed or errored — else 0.
pub(super) fn exit_code(report: &RunReport, strict: bool, strict_corpus: bool) -> ExitCode {
    let summary = report.summary();
    let failed = match &report.baseline {
        Some(verdict) => verdict.fails(strict, strict_corpus),
        None => summary.failed + summary.errored > 0,
    };
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `--list`: each selected case once, with its data sets. Exits 1 when any case or data set
/// failed to load, after listing everything.
fn list(jobs: &[Job<'_>], max_tensor_bytes: u64) -> Result<ExitCode, Fatal> {
    let mut out = io::stdout().lock();
    // By address, in a set: linear in the number of cases, however many there are.
    let mut listed: std::collections::HashSet<*const TestCase> = std::collections::HashSet::new();
    let mut failed = 0;
    for job in jobs {
        if !listed.insert(job.case) {
            continue;
        }
        let listing = list_case(job.case, max_tensor_bytes);
        failed += usize::from(listing.failed);
        for line in listing.lines {
            if writeln!(out, "{line}").is_err() {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    if failed > 0 {
        eprintln!("pad-conformance: {failed} of {} cases failed to load", listed.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the report to `out` in `format`, after the lines already streamed there
/// (`written`: whether that went well); `rerun` is how the HTML page reruns one data set;
/// `to_file`: `out` is `--output FILE`, so the summary line goes to standard error too.
pub(super) fn write_report(
    report: &RunReport,
    rerun: &Rerun,
    format: RunFormat,
    to_file: bool,
    mut out: Output,
    written: io::Result<()>,
) -> Result<(), Fatal> {
    let written = written.and_then(|()| match format {
        RunFormat::Human => write_summary(report, &mut out),
        RunFormat::Json => write_json(report, &mut out),
        RunFormat::Junit => write_junit(report, &mut out),
        RunFormat::Markdown => write_markdown(report, &mut out),
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

/// Reads the baseline at `path` against the run's corpora. One that records no version of
/// them excuses nothing: a warning, or under `--strict` an error.
pub(super) fn read_baseline(path: &Path, roots: &[DataRoot], strict: bool) -> Result<Baseline, Fatal> {
    let baseline = Baseline::read(path)?.against(path, roots)?;
    let how = format!("--write-baseline {}", path.display());
    match baseline.unversioned_warning(path, &how) {
        Some(warning) if strict => Err(Fatal(format!("{} (--strict)", warning.trim_start_matches("warning: ")))),
        Some(warning) => {
            eprintln!("pad-conformance: {warning}");
            Ok(baseline)
        }
        None => Ok(baseline),
    }
}
