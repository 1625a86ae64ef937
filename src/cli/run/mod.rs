//! The main command: run a backend over the selected data sets, report, judge against a
//! baseline; and `--list`.

mod listing;
mod outputs;
#[cfg(test)]
mod verdict_wording;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::gate::gate_result::GateResult;
use crate::gate::judging::Discovered;
use crate::judge::check::{Outcome, Status};
use crate::judge::profile::Profile;
use crate::pipeline::finish::{Finish, RecordInto, finish};
use crate::pipeline::gating::gate_once;
use crate::pipeline::prepare::{RunFiles, prepare};
use crate::pipeline::report_format::ReportFormat;
use crate::pipeline::reports::ReportOut;
use crate::pipeline::run_facts::run_facts;
use crate::report::{RunReport, write_outcome};
use crate::run::runner::Job;
use crate::text::escape_line;

use crate::cli::args::RunArgs;
use crate::cli::fatal::Fatal;
use crate::cli::progress::{self, Progress};
use crate::cli::run_report::{exit_code, read_baseline, show_on_stderr, strictness};
use crate::cli::scoreboard::{Board, Provenance, write_scoreboard};
use crate::cli::signals::{self, CancelsRun};
use listing::{ListingTotals, list_case};
use outputs::report_targets;

pub(super) fn run(args: &RunArgs) -> Result<ExitCode, Fatal> {
    let selection = &args.selection;
    if selection.shard.is_some() && args.gate.require_verified {
        // A refusal whose twin another part runs is not verified in this one.
        return Err(Fatal(
            "--require-verified is refused with --shard: a part cannot tell a twin in another part from one not run; give it to merge".into(),
        ));
    }
    let roots = selection.roots()?;
    note_unanchored(&roots);
    let cases = selection.cases(&roots)?;
    let jobs = selection.jobs(&cases)?;
    if args.list {
        let profile = args.profile.as_deref().map(Profile::read).transpose()?;
        return list(&jobs, selection.max_tensor_bytes, profile.as_ref());
    }
    let targets = report_targets(args.format, &args.output)?;
    let shown = progress::Mode::of_stderr()?;
    let mut options = args.checking.options(selection.max_tensor_bytes)?;
    let config = args.gate.config.as_ref();
    let files = RunFiles {
        reports: args
            .output
            .iter()
            .map(|path| ("--output", Some(path.as_path())))
            .collect(),
        write_baseline: ("--write-baseline", args.write_baseline.as_deref()),
        baseline: ("--baseline", args.gate.baseline.as_deref()),
        profile: ("--profile", args.profile.as_deref()),
    };
    prepare(&files, config, &mut options)?;
    let baseline = read_baseline(&args.gate, &roots)?;
    let (backend, language) = args
        .checking
        .backend_and_language(&args.backend, selection.max_tensor_bytes)?;
    // Whether standard output takes colours, decided once for every line.
    let colors = args.color.stdout();
    let mut reports = targets
        .iter()
        .map(|&(format, path)| ReportOut::open(format, path, colors))
        .collect::<Result<Vec<_>, _>>()?;
    let rerun = args.checking.rerun(&args.backend, selection, args.profile.as_ref());
    // Each outcome is gated as it finishes, and a human report streams its line at once (after
    // those of the data sets before it), the progress line on a terminal cleared around it.
    let progress = Progress::start(shown);
    progress.begin(backend.name(), jobs.len());
    let mut gates = std::collections::BTreeMap::new();
    let mut on_finished = |outcome: &Outcome| {
        let gate = gate_once(baseline.as_ref(), outcome);
        let failing = match &gate {
            Some(gate) => *gate == GateResult::NewFailure,
            None => outcome.is_gating_failure(),
        };
        if let Some(gate) = &gate {
            gates.insert(outcome.name(), gate.clone());
        }
        let failed = matches!(outcome.status(), Status::Failed | Status::Errored);
        if args.failures_only && !failed {
            return progress.finished(failing, || {});
        }
        // The one command that shows this data set again, under the same options.
        let command = failed.then(|| rerun.command(&outcome.name())).flatten();
        progress.finished(failing, || {
            for report in reports.iter_mut().filter(|r| r.format() == ReportFormat::Human) {
                report.stream(|out, colors| {
                    write_outcome(outcome, gate.as_ref(), colors, out)?;
                    match &command {
                        Some(command) => writeln!(out, "      rerun: {}", escape_line(command)),
                        None => Ok(()),
                    }
                });
            }
        });
    };
    // From here a signal stops the run, and what finished is reported.
    let _run = CancelsRun::start();
    let mut report = args.checking.run_jobs(
        (&args.backend, backend.as_ref()),
        &jobs,
        &options,
        selection.max_tensor_bytes,
        &mut on_finished,
    );
    // The run's last lines stand where the progress line stood.
    drop(progress);
    report.shard = selection.shard;
    report.gates = gates;
    let interrupted = signals::interrupted();
    // What merging this part with the others checks: the whole selection, before the shard.
    let whole = selection.whole(&cases)?;
    let complete = interrupted.is_none() && report.outcomes.len() == jobs.len();
    let (retries, names) = (args.checking.retries, whole.iter().map(Job::name));
    report.run = Some(run_facts(&options, &roots, names, config, retries, complete));
    let discovered = Discovered::new(&cases, !selection.patterns.is_empty());
    // A shard judges the entries of its own part: another part's are neither run nor stale
    // here, so that the parts' findings add up to the whole run's (`merge`).
    let exists = |name: &str| selection.shard.is_some_and(|shard| !shard.contains(name)) || discovered.contains(name);
    // The workers of an interrupted run were killed by the runner: their failures are not the
    // backend's, and must not be recorded as if they were.
    let record = args.write_baseline.as_deref().filter(|_| interrupted.is_none());
    let provenance = Provenance::of_this_run();
    let page = |report: &RunReport, out: &mut dyn Write| {
        write_scoreboard(&[Board::new(report, rerun.clone())], &provenance, out)
    };
    let recap_rerun = |name: &str| rerun.command(name);
    let how = Finish {
        baseline: baseline.as_ref(),
        strictness: Some(strictness(&args.gate)),
        exists: &exists,
        record: record.map(|path| RecordInto {
            path,
            roots: &roots,
            config,
            discovered: &discovered,
        }),
        reports,
        failures_only: args.failures_only,
        page: Some(&page),
        rerun: Some(&recap_rerun),
        language: Some(language),
    };
    let human_on_stdout = targets.contains(&(ReportFormat::Human, None));
    let finished = finish(report, how, &mut |report| show_on_stderr(report, human_on_stdout))?;
    match (&args.write_baseline, &finished.recorded) {
        // The path is shown escaped (shown_path), the rest is ours.
        (Some(path), Some(recorded)) => {
            eprintln!("pad-conformance: {}", recorded.describe(path));
            // A recording succeeds once written: its failures are what it lists.
            return Ok(ExitCode::SUCCESS);
        }
        (Some(path), None) => eprintln!(
            "pad-conformance: interrupted: the baseline {} was not written (the runner killed the workers of the data sets that were running)",
            path.display()
        ),
        (None, _) => {}
    }
    if let Some(code) = interrupted {
        eprintln!(
            "pad-conformance: interrupted: {} of {} data sets ran; the report holds those",
            finished.report.outcomes.len(),
            jobs.len()
        );
        return Ok(code);
    }
    Ok(exit_code(&finished.report, &args.gate))
}

/// `--list`: each selected data set, under its case, with what `profile` does to it. Exits 1
/// when any case or data set failed to load, after listing everything.
fn list(jobs: &[Job<'_>], max_tensor_bytes: u64, profile: Option<&Profile>) -> Result<ExitCode, Fatal> {
    let mut out = io::stdout().lock();
    let mut totals = ListingTotals::new(profile);
    // A case's jobs are consecutive: each run of them is listed together.
    for same_case in jobs.chunk_by(|a, b| std::ptr::eq(a.case, b.case)) {
        let indices: Vec<usize> = same_case.iter().map(|job| job.data_set).collect();
        let listing = list_case(same_case[0].case, &indices, max_tensor_bytes, profile);
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
        eprintln!("pad-conformance: {failed} of {} cases failed to load", totals.cases());
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
