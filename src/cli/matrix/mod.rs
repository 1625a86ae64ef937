//! `matrix`: several backends over the same data sets in one table or one scoreboard page.

mod findings;
mod report;
mod table;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::cli::args::{MatrixArgs, MatrixFormat};
use crate::cli::fatal::Fatal;
use crate::cli::output::{check_run_files, finish, open_output};
use crate::cli::progress::{self, Progress};
use crate::cli::scoreboard::{Board, Provenance, write_scoreboard};
use crate::cli::signals::{self, CancelsRun};
use crate::pipeline::finish::settle_refusals;
use crate::pipeline::run_facts::run_facts;
use crate::run::runner::Job;
use crate::text::escape_text;
use report::row_from_report;
use table::Matrix;

pub(super) fn matrix(args: &MatrixArgs) -> Result<ExitCode, Fatal> {
    // Before the backends run, which takes minutes: the two outputs must be two files.
    let inputs: Vec<_> = args.reports.iter().map(|p| ("--report", Some(p.as_path()))).collect();
    check_run_files(
        &[("--output", args.output.as_deref()), ("--html", args.html.as_deref())],
        &inputs,
        &[],
    )?;
    if !args.reports.is_empty() && args.reports.len() != args.backends.len() {
        return Err(Fatal(format!(
            "{} --report for {} --backend: give one report per backend, in the same order",
            args.reports.len(),
            args.backends.len()
        )));
    }
    let selection = &args.selection;
    let roots = selection.roots()?;
    let cases = selection.cases(&roots)?;
    let jobs = selection.jobs(&cases)?;
    let options = args.checking.options(selection.max_tensor_bytes)?;
    // What a report must record to stand for a backend's run here.
    let names = jobs.iter().map(Job::name);
    let expected = run_facts(&options, &roots, names, None, args.checking.retries, true);
    let order: Vec<String> = jobs.iter().map(|job| job.name()).collect();
    let mut reports = Vec::new();
    let mut reruns = Vec::new();
    // What the command says of its backends, after the table: their summaries last.
    let mut notes = Vec::new();
    let cancel = signals::cancel();
    let progress = Progress::start(progress::Mode::of_stderr()?);
    // From here a signal stops the run; the backends that finished are written.
    let _run = CancelsRun::start();
    for (k, spec) in args.backends.iter().enumerate() {
        if cancel.is_cancelled() {
            break;
        }
        let mut report = if let Some(path) = args.reports.get(k) {
            row_from_report(path, &expected, &order)?
        } else {
            let backend = match args.checking.backend(spec, selection.max_tensor_bytes) {
                Err(_) if cancel.is_cancelled() => break,
                started => started?,
            };
            let what = format!("backend {} of {}, {}", k + 1, args.backends.len(), backend.name());
            progress.begin(&what, jobs.len());
            args.checking.run_jobs(
                (spec, backend.as_ref()),
                &jobs,
                &options,
                selection.max_tensor_bytes,
                &mut |outcome| progress.finished(outcome.is_gating_failure(), || {}),
            )
        };
        // A refusal counts only when its twin passes in the same run (a report read back was
        // settled by its run already: settling it again changes nothing).
        settle_refusals(&mut report, None);
        let taken: Vec<&str> = reports
            .iter()
            .map(|r: &crate::report::RunReport| r.backend.as_str())
            .collect();
        if let Some(unique) = unique_name(&report.backend, &taken) {
            notes.push(format!(
                "pad-conformance: warning: two backends are named {}: the one from {} is shown as {}",
                crate::text::escape_line(&report.backend),
                crate::text::escape_line(spec),
                crate::text::escape_line(&unique)
            ));
            report.backend = unique;
        }
        if cancel.is_cancelled() {
            // A column with holes would misalign the table: the backends that finished stand.
            notes.push(format!(
                "pad-conformance: interrupted: {}'s run discarded ({} of {} data sets ran)",
                escape_text(&report.backend),
                report.outcomes.len(),
                jobs.len(),
            ));
            break;
        }
        reruns.push(args.checking.rerun(spec, selection, None));
        reports.push(report);
    }
    drop(progress);
    let matrix = Matrix::new(&reports);
    let provenance = Provenance::of_this_run();
    let boards = || -> Vec<Board<'_>> {
        reports
            .iter()
            .zip(&reruns)
            .map(|(r, rerun)| Board::new(r, rerun.clone()))
            .collect()
    };
    if let Some(path) = &args.html {
        let (mut page, _) = open_output(Some(path))?;
        let written = write_scoreboard(&boards(), &provenance, &mut page);
        finish(written, page)?;
    }
    let (mut out, _) = open_output(args.output.as_ref())?;
    let written = match args.format {
        MatrixFormat::Json => serde_json::to_writer_pretty(&mut out, &matrix)
            .map_err(io::Error::other)
            .and_then(|()| writeln!(out)),
        MatrixFormat::Markdown if args.groups => matrix
            .write_totals(&mut out)
            .and_then(|()| findings::write_markdown(&reports, &reruns, &mut out)),
        MatrixFormat::Markdown => matrix.write_markdown(args.failures_only, &mut out),
        MatrixFormat::Html => write_scoreboard(&boards(), &provenance, &mut out),
    };
    finish(written, out)?;
    for note in &notes {
        eprintln!("{note}");
    }
    // Every data set counted: the counts of the line add up to the total before it.
    for report in &reports {
        eprintln!(
            "{}: {} data sets: {}",
            crate::text::escape_line(&report.backend),
            report.outcomes.len(),
            report.summary().line()
        );
    }
    if let Some(code) = signals::interrupted() {
        eprintln!(
            "pad-conformance: interrupted: the table holds the {} of {} backends that finished",
            reports.len(),
            args.backends.len()
        );
        return Ok(code);
    }
    // As a run without a baseline exits: 1 when any backend failed or errored on a gating
    // basis, so a matrix in CI is never green over failures by accident.
    let failed = reports.iter().any(|r| {
        let summary = r.summary();
        summary.failed + summary.errored > 0
    });
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A name for a backend named `name` that none of `taken` has: `None` when `name` is free,
/// else `name (2)`, `name (3)`, …, so two rows of one name never look like one backend twice.
fn unique_name(name: &str, taken: &[&str]) -> Option<String> {
    if !taken.contains(&name) {
        return None;
    }
    (2..)
        .map(|n| format!("{name} ({n})"))
        .find(|candidate| !taken.contains(&candidate.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_backend_name_gets_the_first_free_suffix() {
        assert_eq!(unique_name("ort", &["ref"]), None);
        assert_eq!(unique_name("ort", &["ort"]), Some("ort (2)".to_owned()));
        assert_eq!(unique_name("ort", &["ort", "ort (2)"]), Some("ort (3)".to_owned()));
    }
}
