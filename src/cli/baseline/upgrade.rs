//! `pad-conformance baseline upgrade OLD.json`: the gate's backend run with the old baseline
//! over the corpus at hand, through the one pipeline, its failures recorded as the new
//! baseline (the reasons and links of the entries that still hold kept, as `--write-baseline`
//! keeps them), and each entry that moved listed under its cause ([`moves`]).

use std::io::Write;
use std::process::ExitCode;

use crate::cli::args::{BaselineUpgradeArgs, GateArgs};
use crate::cli::fatal::Fatal;
use crate::cli::progress::{self, Progress};
use crate::cli::run_report::read_baseline;
use crate::cli::signals::{self, CancelsRun};
use crate::gate::gate_result::GateResult;
use crate::gate::judging::Discovered;
use crate::gate::upgrade::{Change, CorpusChange, JudgingRule, Move, MoveCause, moves};
use crate::judge::check::Outcome;
use crate::pipeline::finish::{Finish, RecordInto, Strictness, finish};
use crate::pipeline::gating::gate_once;
use crate::pipeline::prepare::{RunFiles, prepare};
use crate::pipeline::run_facts::run_facts;
use crate::run::runner::Job;
use crate::text::{escape_line, shown_path};

pub(super) fn upgrade(args: &BaselineUpgradeArgs) -> Result<ExitCode, Fatal> {
    let selection = &args.selection;
    if selection.shard.is_some() {
        return Err(Fatal(
            "baseline upgrade runs the whole selection: a part cannot tell which entries are outdated (no --shard)"
                .into(),
        ));
    }
    let output = match &args.output {
        Some(path) => {
            // A new file: what is there would lend the recording its entries instead of OLD's.
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(Fatal(format!(
                    "{}: already exists; baseline upgrade writes a new file (remove it, or give --in-place to write over OLD)",
                    shown_path(path)
                )));
            }
            path.as_path()
        }
        None => args.old.as_path(),
    };
    let roots = selection.roots()?;
    let cases = selection.cases(&roots)?;
    let jobs = selection.jobs(&cases)?;
    let mut options = args.checking.options(selection.max_tensor_bytes)?;
    let config = args.config.as_ref();
    let files = RunFiles {
        reports: Vec::new(),
        write_baseline: ("--output", Some(output)),
        baseline: ("OLD.json", Some(&args.old)),
        profile: ("--profile", args.profile.as_deref()),
    };
    prepare(&files, config, &mut options)?;
    let gate = GateArgs {
        baseline: Some(args.old.clone()),
        strict: false,
        strict_corpus: false,
        config: args.config.clone(),
        require_tracking: false,
        require_verified: false,
    };
    let old = read_baseline(&gate, &roots)?.expect("a baseline is given");
    let shown = progress::Mode::of_stderr()?;
    let backend = args.checking.backend(&args.backend, selection.max_tensor_bytes)?;
    // A whole corpus takes minutes: its progress on standard error as it runs.
    let progress = Progress::start(shown);
    progress.begin(backend.name(), jobs.len());
    let mut gates = std::collections::BTreeMap::new();
    let mut on_finished = |outcome: &Outcome| {
        let gate = gate_once(Some(&old), outcome);
        let failing = gate.as_ref().is_some_and(|gate| *gate == GateResult::NewFailure);
        progress.finished(failing, || {});
        if let Some(gate) = gate {
            gates.insert(outcome.name(), gate);
        }
    };
    let _run = CancelsRun::start();
    let mut report = args.checking.run_jobs(
        (&args.backend, backend.as_ref()),
        &jobs,
        &options,
        selection.max_tensor_bytes,
        &mut on_finished,
    );
    drop(progress);
    report.gates = gates;
    if let Some(code) = signals::interrupted() {
        eprintln!(
            "pad-conformance: interrupted: the baseline {} was not written",
            shown_path(output)
        );
        return Ok(code);
    }
    let whole = selection.whole(&cases)?;
    let names = whole.iter().map(Job::name);
    report.run = Some(run_facts(&options, &roots, names, config, args.checking.retries, true));
    let discovered = Discovered::new(&cases, !selection.patterns.is_empty());
    let exists = |name: &str| discovered.contains(name);
    let how = Finish {
        baseline: Some(&old),
        strictness: Some(Strictness::default()),
        exists: &exists,
        record: Some(RecordInto {
            path: output,
            roots: &roots,
            config,
            discovered: &discovered,
        }),
        reports: Vec::new(),
        failures_only: false,
        page: None,
        rerun: None,
        language: None,
    };
    let finished = finish(report, how, &mut |_| {})?;
    let recorded = finished.recorded.expect("an upgrade records");
    let moved = moves(&old, &recorded.baseline, &finished.report.outcomes, exists);
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is the reader's choice: the baseline is written already.
    let _ = write_moves(&moved, &mut out);
    eprintln!("pad-conformance: {}", recorded.describe(output));
    Ok(ExitCode::SUCCESS)
}

/// Each moved entry under its cause's heading, causes in their order: `corpus changed: 1
/// entry`, then `  dropped NAME (was failed, now passed): WHY`.
fn write_moves(moved: &[Move], out: &mut dyn Write) -> std::io::Result<()> {
    if moved.is_empty() {
        return writeln!(out, "no entry moved");
    }
    let order = |m: &Move| match m.cause {
        MoveCause::Corpus(_) => 0,
        MoveCause::JudgingRule(_) => 1,
        MoveCause::Backend => 2,
    };
    let mut sorted: Vec<&Move> = moved.iter().collect();
    sorted.sort_by_key(|m| order(m));
    for group in sorted.chunk_by(|a, b| order(a) == order(b)) {
        let n = group.len();
        let plural = if n == 1 { "entry" } else { "entries" };
        writeln!(out, "{}: {n} {plural}", group[0].cause.heading())?;
        for m in group {
            let change = match m.change {
                Change::Added { now } => format!("added {} ({})", m.name, now.name()),
                Change::Dropped { was, now: Some(now) } => {
                    format!("dropped {} (was {}, now {})", m.name, was.name(), now.name())
                }
                Change::Dropped { was, now: None } => format!("dropped {} (was {})", m.name, was.name()),
                Change::StatusChanged { was, now } => {
                    format!("changed {} (was {}, now {})", m.name, was.name(), now.name())
                }
            };
            let why = match &m.cause {
                MoveCause::Corpus(CorpusChange::Changelog(why)) => format!(": {why}"),
                MoveCause::Corpus(CorpusChange::Gone) => ": no such data set now".to_owned(),
                MoveCause::JudgingRule(JudgingRule::TwinVerifiesRefusal) => {
                    ": a refusal counts only when its twin passes".to_owned()
                }
                MoveCause::JudgingRule(JudgingRule::OutsideProfile) => ": outside the profile".to_owned(),
                MoveCause::Backend => String::new(),
            };
            writeln!(out, "  {}", escape_line(&format!("{change}{why}")))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::check::Status;

    #[test]
    fn moves_are_listed_under_their_cause_in_order() {
        let moved = [
            Move {
                name: "b/0".into(),
                change: Change::Added { now: Status::Errored },
                cause: MoveCause::Backend,
            },
            Move {
                name: "a/0".into(),
                change: Change::Dropped {
                    was: Status::Failed,
                    now: None,
                },
                cause: MoveCause::Corpus(CorpusChange::Gone),
            },
        ];
        let mut out = Vec::new();
        write_moves(&moved, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "corpus changed: 1 entry\n  dropped a/0 (was failed): no such data set now\nbackend changed: 1 entry\n  added b/0 (errored)\n"
        );
    }
}
