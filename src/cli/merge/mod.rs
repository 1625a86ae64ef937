//! `merge`: the JSON reports of a run's shards joined into the report of the whole run, and
//! judged against a baseline over the union, as a single run would be: an outdated entry or
//! an unexpected pass is only known once every part is in. The parts must be one run's: the
//! same backend and runtime, each part of the same N once, no data set twice. With
//! `--write-baseline`, the run's verdicts recorded as the main command records its own.

mod profile;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::case::{Patterns, discover_in};
use crate::cli::scoreboard::{Board, Provenance, Rerun, write_scoreboard};
use crate::data::DataRoot;
use crate::data::basis::Gating;
use crate::data::digest::selection_digest;
use crate::data::shard::Shard;
use crate::gate::baseline::Baseline;
use crate::gate::config::ConfigName;
use crate::gate::judging::Discovered;
use crate::judge::profile::Profile;
use crate::pipeline::finish::{Finish, RecordInto, finish, settle_refusals};
use crate::pipeline::gating::gate_once;
use crate::pipeline::report_format::ReportFormat;
use crate::pipeline::reports::ReportOut;
use crate::report::{RunReport, read_json_report, write_outcome};
use crate::run::runner::jobs;
use crate::text::shown_path;

use crate::cli::args::{GateArgs, MergeArgs, RunFormat};
use crate::cli::fatal::Fatal;
use crate::cli::output::{check_run_files, chosen_format};
use crate::cli::run_report::{exit_code, read_baseline, report_format, show_on_stderr, strictness};
use crate::cli::shard_parts::{PartsDiffer, ShardsError, ShardsSeen};
use profile::judge_with_profile;

pub(super) fn merge(args: &MergeArgs) -> Result<ExitCode, Fatal> {
    let mut inputs: Vec<_> = args.reports.iter().map(|p| ("report", Some(p.as_path()))).collect();
    let write_baseline = ("--write-baseline", args.write_baseline.as_deref());
    inputs.extend([
        ("--baseline", args.gate.baseline.as_deref()),
        ("--profile", args.profile.as_deref()),
        write_baseline,
    ]);
    // The baseline is updated in place, atomically, as the main command updates it.
    let in_place = [
        ("--write-baseline", "--baseline"),
        ("--write-baseline", "--write-baseline"),
    ];
    check_run_files(
        &[("--output", args.output.as_deref()), write_baseline],
        &inputs,
        &in_place,
    )?;
    let parts = args
        .reports
        .iter()
        .map(|path| Ok((path.clone(), read_json_report(path)?)))
        .collect::<Result<Vec<_>, Fatal>>()?;
    let roots = DataRoot::resolve(&args.paths)?;
    let cases = discover_in(&roots, &Patterns::new(&args.patterns)?)?;
    let order: Vec<String> = jobs(&cases).iter().map(|job| job.name()).collect();
    let first = parts.first().map(|(path, _)| path.clone()).unwrap_or_default();
    let mut report = merge_reports(parts, &order).map_err(|e| Fatal(e.to_string()))?;
    if let Some(path) = &args.profile {
        let profile = Profile::read(path)?;
        judge_with_profile(&mut report, &first, &profile, path, &cases).map_err(|e| Fatal(e.to_string()))?;
    }
    let discovered = Discovered::new(&cases, !args.patterns.is_empty());
    // The parts are judged as the configuration they ran in, never as another one.
    let recorded = report.run.as_ref().and_then(|run| run.config.as_deref());
    let gate = GateArgs {
        config: judged_config(args.gate.config.as_ref(), recorded, &first)?,
        ..args.gate.clone()
    };
    if let Some(path) = &args.write_baseline {
        Baseline::check_recordable(path, gate.config.as_ref())?;
    }
    let baseline = read_baseline(&gate, &roots)?;
    // Each part weighed its refusals by the twins it ran; the union may hold the twin another
    // part ran. Weighed before the lines below, so that they show it (finish weighs it again,
    // and finds nothing to change).
    settle_refusals(&mut report, None);
    report.gates = (report.outcomes.iter())
        .filter_map(|outcome| Some((outcome.name(), gate_once(baseline.as_ref(), outcome)?)))
        .collect();
    let format = chosen_format(args.format, args.output.as_ref(), RunFormat::Json, RunFormat::Human);
    let format = report_format(format);
    let mut out = ReportOut::open(format, args.output.as_deref(), args.color.stdout())?;
    if format == ReportFormat::Human {
        for outcome in &report.outcomes {
            // Labelled by the gate as the main command labels its lines.
            out.stream(|out, colors| write_outcome(outcome, report.gate_of(outcome), colors, out));
        }
    }
    // A merged report was read back from JSON: the commands that ran its backend are unknown.
    let provenance = Provenance::of_this_run();
    let page = |report: &RunReport, out: &mut dyn Write| {
        write_scoreboard(&[Board::new(report, Rerun::default())], &provenance, out)
    };
    let how = Finish {
        baseline: baseline.as_ref(),
        strictness: Some(strictness(&gate)),
        exists: &|name| discovered.contains(name),
        // The entries the run's verdicts imply, as the main command records them.
        record: args.write_baseline.as_deref().map(|path| RecordInto {
            path,
            roots: &roots,
            config: gate.config.as_ref(),
            discovered: &discovered,
        }),
        reports: vec![out],
        failures_only: false,
        page: Some(&page),
        rerun: None,
        // Nor how its backend spoke: the hint is worded in general.
        language: None,
    };
    let human_on_stdout = args.output.is_none() && format == ReportFormat::Human;
    let finished = finish(report, how, &mut |report| show_on_stderr(report, human_on_stdout))?;
    if let (Some(path), Some(recorded)) = (&args.write_baseline, &finished.recorded) {
        eprintln!("pad-conformance: {}", recorded.describe(path));
        // A recording succeeds once written: its failures are what it lists.
        return Ok(ExitCode::SUCCESS);
    }
    Ok(exit_code(&finished.report, &gate))
}

/// The configuration merged parts are judged in: the one they recorded. `--config` may name it
/// again, but never another: a baseline's entries for `debug` do not excuse a `release` run.
fn judged_config(
    asked: Option<&ConfigName>,
    recorded: Option<&str>,
    first: &Path,
) -> Result<Option<ConfigName>, Fatal> {
    let recorded_name = || recorded.map_or_else(|| "the unnamed configuration".to_owned(), |c| format!("{c:?}"));
    match (asked, recorded) {
        (Some(asked), recorded) if Some(asked.as_str()) != recorded => Err(Fatal(format!(
            "--config {:?}, but {} ran in {}: merge judges parts in the configuration they ran in",
            asked.as_str(),
            shown_path(first),
            recorded_name()
        ))),
        (Some(asked), _) => Ok(Some(asked.clone())),
        (None, Some(recorded)) => ConfigName::new(recorded)
            .map(Some)
            .map_err(|e| Fatal(format!("{}: run.config: {e}", shown_path(first)))),
        (None, None) => Ok(None),
    }
}

/// Why the reports are not the parts of one run.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum MergeError {
    /// Two reports of different backends.
    #[error(
        "{}: backend {theirs:?}, but {} is of backend {ours:?}: not parts of one run",
        crate::text::shown_path(path),
        crate::text::shown_path(first)
    )]
    Backend {
        path: PathBuf,
        theirs: String,
        first: PathBuf,
        ours: String,
    },
    /// Two reports of different runtimes (another version, another build).
    #[error(
        "{}: runtime {theirs}, but {} ran {ours}: not parts of one run",
        crate::text::shown_path(path),
        crate::text::shown_path(first)
    )]
    Runtime {
        path: PathBuf,
        theirs: String,
        first: PathBuf,
        ours: String,
    },
    /// A report without a shard among reports with one.
    #[error(
        "{}: not a shard's report (no \"shard\"), but {} is shard {shard}",
        crate::text::shown_path(path),
        crate::text::shown_path(other)
    )]
    NotAShard {
        path: PathBuf,
        other: PathBuf,
        shard: Shard,
    },
    /// Shards of different counts.
    #[error(
        "{}: shard {theirs}, but {} is shard {ours}: parts of different splits",
        crate::text::shown_path(path),
        crate::text::shown_path(first)
    )]
    Count {
        path: PathBuf,
        theirs: Shard,
        first: PathBuf,
        ours: Shard,
    },
    /// A part a signal stopped: some of its data sets never ran.
    #[error(
        "{}: interrupted (\"run\": {{\"complete\": false}}): not every data set of its part ran",
        shown_path(path)
    )]
    Interrupted { path: PathBuf },
    /// A part that reports no data set.
    #[error("{}: reports no data set: an empty part is no part of a run", shown_path(path))]
    Empty { path: PathBuf },
    /// A part with the run's facts among parts without (or the other way round).
    #[error(
        "{}: records no \"run\" (a report older than run facts), but {} does: not parts of one run",
        shown_path(path),
        shown_path(other)
    )]
    Unrecorded { path: PathBuf, other: PathBuf },
    /// A part of another run (another option, corpus or selection), a shard twice, or
    /// shards missing.
    #[error(transparent)]
    Shards(#[from] ShardsError),
    /// The parts' data sets are not the run's selection (the digest every part records).
    #[error(
        "the parts hold {count} data sets, which are not the selection their run recorded: a part is missing data sets or holds others"
    )]
    NotTheSelection { count: usize },
    /// A data set in two reports.
    #[error(
        "data set {name} is in both {} and {}",
        crate::text::shown_path(first),
        crate::text::shown_path(path)
    )]
    TwiceTheSameDataSet {
        name: String,
        path: PathBuf,
        first: PathBuf,
    },
}

/// The union of `parts` (each a report and the file it came from), its data sets in the
/// order of `order` (the names a single run over the same roots takes, in its order), any
/// not there after them in the order read. Each part's own baseline judgement is dropped: the
/// union is judged anew.
pub(super) fn merge_reports(parts: Vec<(PathBuf, RunReport)>, order: &[String]) -> Result<RunReport, MergeError> {
    let Some((first_path, first)) = parts.first() else {
        return Err(ShardsError::no_parts().into());
    };
    let (first_path, backend, runtime, first_shard) = (
        first_path.clone(),
        first.backend.clone(),
        first.runtime.clone(),
        first.shard,
    );
    let label = |runtime: &Option<crate::backend::RuntimeInfo>| {
        runtime
            .as_ref()
            .map_or("(not stated)".to_owned(), |r| format!("{:?}", r.label()))
    };
    let mut seen_parts = ShardsSeen::default();
    for (path, report) in &parts {
        if report.outcomes.is_empty() {
            return Err(MergeError::Empty { path: path.clone() });
        }
        match (&report.run, &first.run) {
            (None, None) => {}
            (Some(_), None) | (None, Some(_)) => {
                return Err(MergeError::Unrecorded {
                    path: if report.run.is_none() {
                        path.clone()
                    } else {
                        first_path.clone()
                    },
                    other: if report.run.is_none() {
                        first_path.clone()
                    } else {
                        path.clone()
                    },
                });
            }
            (Some(theirs), Some(ours)) => {
                if !theirs.complete {
                    return Err(MergeError::Interrupted { path: path.clone() });
                }
                if let Some((field, ours, theirs)) = ours.differs(theirs) {
                    return Err(ShardsError::Differs(Box::new(PartsDiffer {
                        path: path.clone(),
                        field,
                        theirs,
                        first: first_path.clone(),
                        ours,
                        parts: "parts",
                    }))
                    .into());
                }
            }
        }
        if report.backend != backend {
            return Err(MergeError::Backend {
                path: path.clone(),
                theirs: report.backend.clone(),
                first: first_path.clone(),
                ours: backend,
            });
        }
        if report.runtime != runtime {
            return Err(MergeError::Runtime {
                path: path.clone(),
                theirs: label(&report.runtime),
                first: first_path.clone(),
                ours: label(&runtime),
            });
        }
        match (report.shard, first_shard) {
            (None, None) => {}
            (Some(shard), None) | (None, Some(shard)) => {
                let (path, other) = if report.shard.is_none() {
                    (path.clone(), first_path.clone())
                } else {
                    (first_path.clone(), path.clone())
                };
                return Err(MergeError::NotAShard { path, other, shard });
            }
            (Some(theirs), Some(ours)) if theirs.count() != ours.count() => {
                return Err(MergeError::Count {
                    path: path.clone(),
                    theirs,
                    first: first_path.clone(),
                    ours,
                });
            }
            (Some(shard), Some(_)) => seen_parts.add(path, shard)?,
        }
    }
    if let Some(shard) = first_shard {
        seen_parts.complete(shard.count())?;
    }
    let gating = first.run.as_ref().and_then(|facts| {
        let names: Vec<String> = facts.gating.split(',').map(str::to_owned).collect();
        Gating::from_names(&names).ok()
    });
    let position: HashMap<&str, usize> = order.iter().enumerate().map(|(i, name)| (name.as_str(), i)).collect();
    let mut from: HashMap<String, &Path> = HashMap::new();
    let mut outcomes = Vec::new();
    for (path, report) in &parts {
        for outcome in &report.outcomes {
            let name = outcome.name();
            if let Some(first) = from.insert(name.clone(), path) {
                return Err(MergeError::TwiceTheSameDataSet {
                    name,
                    path: path.clone(),
                    first: first.to_owned(),
                });
            }
            // Whether a failure gates is recomputed from its verdict, basis and the run's
            // recorded --basis, never read from the part; a part that records none gates every
            // failure.
            let gates = gating.as_ref().is_none_or(|g| outcome.gates_under(g));
            outcomes.push((
                position.get(name.as_str()).copied().unwrap_or(usize::MAX),
                outcome.clone().with_gates(gates),
            ));
        }
    }
    // Every part recorded the whole run's selection: the union must be exactly it.
    if let Some(facts) = &first.run
        && selection_digest(outcomes.iter().map(|(_, o)| o.name())) != facts.selection
    {
        return Err(MergeError::NotTheSelection { count: outcomes.len() });
    }
    // Stable: names outside `order` keep the order they were read in.
    outcomes.sort_by_key(|(position, _)| *position);
    let outcomes: Vec<_> = outcomes.into_iter().map(|(_, outcome)| outcome).collect();
    // The merged run is complete (every part was), under the options the parts share.
    let run = first.run.clone();
    Ok(RunReport {
        backend,
        gates: BTreeMap::new(),
        duration: outcomes.iter().map(|o| o.duration()).sum(),
        outcomes,
        baseline: None,
        runtime,
        shard: None,
        run,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::backend::RuntimeInfo;
    use crate::data::basis::{Basis, BasisNote};
    use crate::judge::check::{Outcome, Status};
    use crate::report::RunFacts;

    fn part(k: u32, n: u32, names: &[&str]) -> (PathBuf, RunReport) {
        let report = RunReport {
            backend: "b".into(),
            outcomes: names.iter().map(|id| Outcome::example(id, Status::Passed)).collect(),
            gates: BTreeMap::new(),
            duration: Duration::ZERO,
            baseline: None,
            runtime: Some(RuntimeInfo::new("rt").version("1")),
            shard: Some(Shard::new(k, n).unwrap()),
            run: None,
        };
        (PathBuf::from(format!("part-{k}.json")), report)
    }

    #[test]
    fn parts_join_in_the_order_of_a_single_run() {
        let order: Vec<String> = ["a/0", "b/0", "c/0", "d/0"].map(String::from).to_vec();
        let merged = merge_reports(vec![part(2, 2, &["d", "b"]), part(1, 2, &["x", "c", "a"])], &order).unwrap();
        let names: Vec<String> = merged.outcomes.iter().map(Outcome::name).collect();
        assert_eq!(names, ["a/0", "b/0", "c/0", "d/0", "x/0"]);
        assert_eq!((merged.shard, merged.backend.as_str()), (None, "b"));
        assert_eq!(merged.runtime.unwrap().label(), "rt 1");
    }

    #[test]
    fn parts_of_different_runs_or_an_incomplete_set_are_refused() {
        let error = |parts| merge_reports(parts, &[]).unwrap_err().to_string();
        assert_eq!(
            error(vec![part(1, 3, &["a"]), part(3, 3, &["b"])]),
            "shards 2 of 3 are missing: the merge would not be the whole run"
        );
        assert_eq!(
            error(vec![part(1, 2, &["a"]), part(1, 2, &["b"])]),
            "part-1.json and part-1.json are both shard 1/2"
        );
        assert_eq!(
            error(vec![part(1, 2, &["a"]), part(2, 3, &["b"])]),
            "part-2.json: shard 2/3, but part-1.json is shard 1/2: parts of different splits"
        );
        assert_eq!(
            error(vec![part(1, 2, &["a"]), part(2, 2, &["a"])]),
            "data set a/0 is in both part-1.json and part-2.json"
        );
        let mut other = part(2, 2, &["b"]);
        other.1.backend = "c".into();
        assert_eq!(
            error(vec![part(1, 2, &["a"]), other]),
            "part-2.json: backend \"c\", but part-1.json is of backend \"b\": not parts of one run"
        );
        let mut newer = part(2, 2, &["b"]);
        newer.1.runtime = Some(RuntimeInfo::new("rt").version("2"));
        assert_eq!(
            error(vec![part(1, 2, &["a"]), newer]),
            "part-2.json: runtime \"rt 2\", but part-1.json ran \"rt 1\": not parts of one run"
        );
        let mut whole = part(2, 2, &["b"]);
        whole.1.shard = None;
        assert_eq!(
            error(vec![part(1, 2, &["a"]), whole]),
            "part-2.json: not a shard's report (no \"shard\"), but part-1.json is shard 1/2"
        );
    }

    fn facts(names: &[&str]) -> RunFacts {
        RunFacts {
            complete: true,
            gating: "spec,reference".into(),
            tolerance: "rtol 0.001, atol 0.0000001".into(),
            profile: None,
            inputs_as_constants: false,
            strict_rules: false,
            corpora: [("onnx-testdata".to_owned(), 7)].into(),
            selection: selection_digest(names.iter().map(|n| format!("{n}/0"))),
            config: Some("linux-x64".into()),
            retries: 0,
        }
    }

    fn recorded(k: u32, names: &[&str], all: &[&str]) -> (PathBuf, RunReport) {
        let mut part = part(k, 2, names);
        part.1.run = Some(facts(all));
        part
    }

    #[test]
    fn parts_that_do_not_fit_the_run_they_record_are_refused_naming_part_and_field() {
        let all = ["a", "b", "c"];
        let error = |parts| merge_reports(parts, &[]).unwrap_err().to_string();
        assert!(merge_reports(vec![recorded(1, &["a"], &all), recorded(2, &["b", "c"], &all)], &[]).is_ok());
        let mut stopped = recorded(2, &["b"], &all);
        stopped.1.run.as_mut().unwrap().complete = false;
        assert_eq!(
            error(vec![recorded(1, &["a"], &all), stopped]),
            "part-2.json: interrupted (\"run\": {\"complete\": false}): not every data set of its part ran"
        );
        let mut other_basis = recorded(2, &["b", "c"], &all);
        other_basis.1.run.as_mut().unwrap().gating = "spec".into();
        assert_eq!(
            error(vec![recorded(1, &["a"], &all), other_basis]),
            "part-2.json: gating \"spec\", but part-1.json has \"spec,reference\": not parts of one run"
        );
        let mut other_corpus = recorded(2, &["b", "c"], &all);
        other_corpus.1.run.as_mut().unwrap().corpora = [("onnx-testdata".to_owned(), 8)].into();
        assert!(error(vec![recorded(1, &["a"], &all), other_corpus]).contains("part-2.json: corpora"));
        // Parts of two configurations, or run with other retries, are two runs.
        let mut other_config = recorded(2, &["b", "c"], &all);
        other_config.1.run.as_mut().unwrap().config = Some("windows-x64".into());
        assert_eq!(
            error(vec![recorded(1, &["a"], &all), other_config]),
            "part-2.json: config \"windows-x64\", but part-1.json has \"linux-x64\": not parts of one run"
        );
        let mut retried = recorded(2, &["b", "c"], &all);
        retried.1.run.as_mut().unwrap().retries = 2;
        assert!(
            error(vec![recorded(1, &["a"], &all), retried]).contains("part-2.json: retries 2, but part-1.json has 0")
        );
        // A part that lost data sets (or a hand-edited one): the union is not the selection.
        assert_eq!(
            error(vec![recorded(1, &["a"], &all), recorded(2, &["b"], &all)]),
            "the parts hold 2 data sets, which are not the selection their run recorded: a part is missing data sets or holds others"
        );
        assert_eq!(
            error(vec![recorded(1, &["a"], &all), recorded(2, &[], &all)]),
            "part-2.json: reports no data set: an empty part is no part of a run"
        );
        // Deleting "run" from one part does not pass: parts without it among parts with it.
        assert_eq!(
            error(vec![recorded(1, &["a"], &all), part(2, 2, &["b", "c"])]),
            "part-2.json: records no \"run\" (a report older than run facts), but part-1.json does: not parts of one run"
        );
    }

    #[test]
    fn whether_a_failure_gates_is_recomputed_never_read_from_the_part() {
        let all = ["a", "b"];
        let mut one = recorded(1, &["a"], &all);
        let mut two = recorded(2, &["b"], &all);
        for (part, basis) in [(&mut one, Basis::Rule), (&mut two, Basis::Spec)] {
            let outcome = &mut part.1.outcomes[0];
            let note = BasisNote {
                kind: basis,
                ..outcome.basis().clone()
            };
            // Both claim not to gate.
            *outcome = Outcome::example(outcome.id(), Status::Failed)
                .with_basis(note)
                .with_gates(false);
        }
        let merged = merge_reports(vec![one.clone(), two.clone()], &[]).unwrap();
        let gates: Vec<bool> = merged.outcomes.iter().map(|o| o.gates()).collect();
        assert_eq!(gates, [false, true]);
        // Parts that record no --basis: every failure gates.
        one.1.run = None;
        two.1.run = None;
        let merged = merge_reports(vec![one, two], &[]).unwrap();
        assert!(merged.outcomes.iter().all(|o| o.gates()));
    }
}
