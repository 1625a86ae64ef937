//! The main command: run a backend over the selected data sets, report, judge against a
//! baseline; and `--list`.

mod listing;
#[cfg(test)]
mod verdict_wording;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::case::TestCase;
use crate::gate::baseline::Baseline;
use crate::gate::judging::Discovered;
use crate::gate::recording::Ran;
use crate::judge::check::{Outcome, Status};
use crate::judge::profile::Profile;
use crate::report::{Colors, write_outcome};
use crate::run::runner::{Job, jobs as run_jobs_of};
use crate::run::selection::select;
use crate::text::escape_line;

use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::fatal::Fatal;
use crate::cli::output::{check_run_files, chosen_format, open_output};
use crate::cli::run_report::{View, exit_code, judge_against, read_baseline, write_report};
use crate::cli::signals::{self, CancelsRun};
use listing::{ListingTotals, list_case};

pub(super) fn run(args: &RunArgs) -> Result<ExitCode, Fatal> {
    let selection = &args.selection;
    let roots = selection.roots()?;
    note_unanchored(&roots);
    let cases = selection.cases(&roots)?;
    let jobs = selection.jobs(&cases)?;
    if args.list {
        return list(&jobs, selection.max_tensor_bytes);
    }
    // No output over an input: a report written over its baseline would lose its reasons.
    check_run_files(
        &[
            ("--output", args.output.as_deref()),
            ("--write-baseline", args.write_baseline.as_deref()),
        ],
        &[
            ("--baseline", args.gate.baseline.as_deref()),
            ("--profile", args.profile.as_deref()),
            ("--write-baseline", args.write_baseline.as_deref()),
        ],
        &[
            ("--write-baseline", "--baseline"),
            ("--write-baseline", "--write-baseline"),
        ],
    )?;
    let baseline = read_baseline(&args.gate, &roots)?;
    // Checked before the run: a malformed file there, or one that is no baseline, is refused
    // (exit 2) and left untouched, never replaced as if it were absent; so is a target that
    // cannot be written.
    if let Some(path) = &args.write_baseline {
        Baseline::check_recordable(path, args.gate.config.as_ref())?;
    }
    let mut options = args.checking.options(selection.max_tensor_bytes)?;
    if let Some(path) = &args.profile {
        options.profile = Profile::read(path)?;
    }
    let backend = args.checking.backend(&args.backend, selection.max_tensor_bytes)?;
    let format = chosen_format(args.format, args.output.as_ref(), RunFormat::Json, RunFormat::Human);
    let (mut out, terminal) = open_output(args.output.as_ref())?;
    // The human report streams: each line as soon as its data set (and those before) finish.
    let colors = Colors::detect(terminal);
    let mut written = Ok(());
    let rerun = args.checking.rerun(&args.backend, selection, args.profile.as_ref());
    let mut write_line = |outcome: &Outcome| {
        let shown = !args.failures_only || matches!(outcome.status(), Status::Failed | Status::Errored);
        if format == RunFormat::Human && written.is_ok() && shown {
            let gate = baseline.as_ref().map(|b| b.gate(outcome));
            written = write_outcome(outcome, gate.as_ref(), colors, &mut out)
                .and_then(|()| match rerun.command(&outcome.name()) {
                    // The one command that shows this data set again, under the same options.
                    Some(command) if matches!(outcome.status(), Status::Failed | Status::Errored) => {
                        writeln!(out, "      rerun: {}", escape_line(&command))
                    }
                    _ => Ok(()),
                })
                .and_then(|()| out.flush());
        }
    };
    // From here a signal stops the run, and what finished is reported.
    let _run = CancelsRun::start();
    let mut report = args.checking.run_jobs(
        (&args.backend, backend.as_ref()),
        &jobs,
        &options,
        selection.max_tensor_bytes,
        &mut write_line,
    );
    report.shard = selection.shard;
    // What merging this part with the others checks, decided here once.
    let whole = select(run_jobs_of(&cases), selection.filter.as_deref())?;
    report.run = Some(args.checking.facts(
        &options,
        &roots,
        &whole,
        args.gate.config.as_ref().map(ToString::to_string),
        signals::interrupted().is_none() && report.outcomes.len() == jobs.len(),
    ));
    let discovered = Discovered::new(&cases, !selection.patterns.is_empty());
    // A shard judges the entries of its own part: another part's are neither run nor stale
    // here, so that the parts' findings add up to the whole run's (`merge`).
    let exists = |name: &str| selection.shard.is_some_and(|shard| !shard.contains(name)) || discovered.contains(name);
    // Judged before any report is written, so that every report shows the gate, per data set
    // and in sum.
    if let Some(baseline) = &baseline {
        judge_against(&mut report, baseline, &args.gate, exists);
    }
    let view = View {
        format,
        failures_only: args.failures_only,
        to_file: args.output.is_some(),
    };
    write_report(&report, &rerun, view, out, written)?;
    // Passes a gate cannot trust: the harness warns of the same.
    for operator in crate::gate::refused_operator::refused_operators(&report.outcomes) {
        eprintln!("pad-conformance: {operator}");
    }
    let interrupted = signals::interrupted();
    match &args.write_baseline {
        // The workers of an interrupted run were killed by the runner: their failures are
        // not the backend's, and must not be recorded as if they were.
        Some(path) if interrupted.is_some() => eprintln!(
            "pad-conformance: interrupted: the baseline {} was not written (the runner killed the workers of the data sets that were running)",
            path.display()
        ),
        Some(path) => {
            let names: Vec<String> = report.outcomes.iter().map(Outcome::name).collect();
            let config = args.gate.config.as_ref();
            let recorded = Baseline::record_into(path, baseline.as_ref(), config, |previous| {
                let ran = report.outcomes.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
                Baseline::record(&report.backend, &roots, ran, previous, config, |name| {
                    discovered.contains(name)
                })
            })?;
            // The path is shown escaped (shown_path), the rest is ours.
            eprintln!("pad-conformance: {}", recorded.describe(path));
            // A recording succeeds once written: its failures are what it lists.
            return Ok(ExitCode::SUCCESS);
        }
        None => {}
    }
    if let Some(code) = interrupted {
        eprintln!(
            "pad-conformance: interrupted: {} of {} data sets ran; the report holds those",
            report.outcomes.len(),
            jobs.len()
        );
        return Ok(code);
    }
    Ok(exit_code(&report, &args.gate))
}

/// `--list`: each selected case once, with its data sets. Exits 1 when any case or data set
/// failed to load, after listing everything.
fn list(jobs: &[Job<'_>], max_tensor_bytes: u64) -> Result<ExitCode, Fatal> {
    let mut out = io::stdout().lock();
    // By address, in a set: linear in the number of cases, however many there are.
    let mut listed: std::collections::HashSet<*const TestCase> = std::collections::HashSet::new();
    let mut totals = ListingTotals::default();
    for job in jobs {
        if !listed.insert(job.case) {
            continue;
        }
        let listing = list_case(job.case, max_tensor_bytes);
        totals.add(&listing);
        for line in listing.lines {
            // Case ids and messages are the data's: shown, never executed.
            if writeln!(out, "{}", escape_line(&line)).is_err() {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    if writeln!(out, "{}", totals.line()).is_err() {
        return Ok(ExitCode::SUCCESS);
    }
    let failed = totals.failed();
    if failed > 0 {
        eprintln!("pad-conformance: {failed} of {} cases failed to load", listed.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Says, once per manifest, which of the roots' manifests nothing vouches for: their checksums
/// are checked, but a file edited together with its row passes them. The bundled corpus's are
/// anchored by the digests this build carries, so an ordinary run says nothing.
fn note_unanchored(roots: &[crate::data::DataRoot]) {
    let mut said = std::collections::BTreeSet::new();
    for corpus in roots.iter().filter_map(|r| r.corpus.as_deref()) {
        for path in corpus.manifest.unanchored() {
            if said.insert(path.clone()) {
                eprintln!(
                    "pad-conformance: note: {} is unanchored: nothing this binary carries vouches for it, so its checksums catch accidents, not an edit made together with it",
                    escape_line(&path.display().to_string())
                );
            }
        }
    }
}
