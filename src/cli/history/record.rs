//! `history record`: one release's run (a JSON report), its worker's self-check and its
//! environment, stored as history/RUNTIME/VERSION.json. Runs over part of the corpus add
//! to what the file holds: a data set stored earlier whose content the corpus still holds
//! and that this run did not run keeps its result, so a new corpus version re-runs only what
//! it changed or added.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::stored::{Environment, HISTORY_FORMAT, NotPassed, Package, Release, WorkerCheck};
use crate::case::{Patterns, discover_until};
use crate::cli::Fatal;
use crate::cli::args::HistoryRecordArgs;
use crate::cli::failure_groups::group_line;
use crate::cli::signals;
use crate::data::DataRoot;
use crate::data::atomic_file::write_atomically;
use crate::data::digest::data_set_digest;
use crate::data::json_file::read_json;
use crate::judge::check::{Outcome, Status};
use crate::report::{RunReport, read_json_report};
use crate::text::shown_path;

/// The environment file the sweep writes (scripts/sweep): the interpreter, and the packages
/// of pip's (or npm's) install report.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvironmentFile {
    #[serde(alias = "python", alias = "node")]
    interpreter: String,
    packages: Vec<Package>,
}

pub(super) fn record(args: &HistoryRecordArgs) -> Result<ExitCode, Fatal> {
    if let Some(date) = args.date.as_deref().filter(|d| !super::stored::is_date(d)) {
        return Err(Fatal(format!("--date {date:?}: not YYYY-MM-DD")));
    }
    let (worker, checked) = self_check(&args.self_check)?;
    // The run, or for a release whose worker failed its self-check, the self-check alone:
    // it names the runtime and holds no results to store.
    let (report, shown) = match &args.report {
        Some(path) => (read_json_report(path)?, shown_path(path)),
        None if worker.passed => {
            return Err(Fatal(
                "--report: absent, but the self-check passed: give the release's run".into(),
            ));
        }
        None => (checked.clone(), shown_path(&args.self_check)),
    };
    let runtime = report
        .runtime
        .as_ref()
        .ok_or_else(|| Fatal(format!("{shown}: runtime: absent: the worker did not name its runtime")))?;
    let version = runtime
        .version
        .as_deref()
        .ok_or_else(|| Fatal(format!("{shown}: runtime.version: absent: the worker did not state it")))?;
    if checked.runtime.as_ref() != Some(runtime) {
        let named = |r: Option<&crate::backend::RuntimeInfo>| match r {
            Some(r) => format!("{} {}", r.name, r.version.as_deref().unwrap_or("(no version)")),
            None => "(none)".into(),
        };
        return Err(Fatal(format!(
            "{}: runtime: {}, but the run is of {}: a self-check of another release",
            shown_path(&args.self_check),
            named(checked.runtime.as_ref()),
            named(Some(runtime))
        )));
    }
    let facts = report
        .run
        .as_ref()
        .ok_or_else(|| Fatal(format!("{shown}: run: absent: not a report of a whole run")))?;
    if !facts.complete {
        return Err(Fatal(format!("{shown}: run.complete: false: the run was stopped")));
    }
    if report.shard.is_some() {
        return Err(Fatal(format!("{shown}: shard: a part of a run; merge the parts first")));
    }
    check_output_path(&args.output, &runtime.name, version)?;
    let environment = match &args.environment {
        Some(path) => {
            let file: EnvironmentFile = read_json(path, 16 << 20)?;
            Some(Environment {
                interpreter: file.interpreter,
                packages: file.packages,
            })
        }
        None => None,
    };
    let digests = corpus_digests(&args.paths)?;
    let mut results: BTreeMap<String, Option<Stored>> = BTreeMap::new();
    if worker.passed {
        // What an earlier run of this release stored, for the data sets the corpus still holds.
        if args.output.exists() {
            let earlier = Release::read(&args.output)?;
            if earlier.worker.passed {
                let held: std::collections::HashSet<&String> = digests.values().collect();
                for digest in earlier.data_sets.iter().filter(|d| held.contains(d)) {
                    let result = match earlier.status_of(digest) {
                        Some(Status::Unsupported) => Some(Stored::Unsupported),
                        _ => earlier.not_passed.get(digest).cloned().map(Stored::NotPassed),
                    };
                    results.insert(digest.clone(), result);
                }
            }
        }
        let mut fresh: HashMap<String, Option<Stored>> = HashMap::new();
        for outcome in &report.outcomes {
            let name = outcome.name();
            let digest = digests.get(&name).ok_or_else(|| {
                Fatal(format!(
                    "{shown}: case {name}: not a data set of the corpus read ({}): record against the corpus the run read",
                    roots_shown(&args.paths)
                ))
            })?;
            let result = not_passed(outcome);
            // Copies of one content (an upstream case shipped by several onnx releases) are one
            // data set here: a failure of any copy is kept, not hidden by another's pass.
            match fresh.get(digest) {
                Some(Some(_)) => {}
                _ => {
                    fresh.insert(digest.clone(), result.clone());
                    results.insert(digest.clone(), result);
                }
            }
        }
    }
    let data_sets: Vec<String> = results.keys().cloned().collect();
    let mut unsupported = Vec::new();
    let mut not_passed = BTreeMap::new();
    for (digest, result) in results {
        match result {
            Some(Stored::Unsupported) => unsupported.push(digest),
            Some(Stored::NotPassed(entry)) => {
                not_passed.insert(digest, entry);
            }
            None => {}
        }
    }
    let release = Release {
        format: HISTORY_FORMAT,
        runtime: runtime.name.clone(),
        version: version.to_owned(),
        corpora: facts.corpora.clone(),
        date: args.date.clone().unwrap_or_else(crate::cli::promote::today),
        environment,
        worker,
        selection: Release::selection_of(&data_sets),
        unsupported,
        not_passed,
        data_sets,
    };
    let mut json = serde_json::to_string_pretty(&release)?;
    json.push('\n');
    if let Some(parent) = args.output.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Fatal(format!("{}: {e}", shown_path(parent))))?;
    }
    write_atomically(&args.output, json.as_bytes()).map_err(|e| Fatal(format!("{}: {e}", shown_path(&args.output))))?;
    // Read back as every other verb will: what was written must be readable.
    Release::read(&args.output)?;
    eprintln!(
        "pad-conformance: {} {version}: {} data sets, {} unsupported, {} failed, errored or skipped{}",
        release.runtime,
        release.data_sets.len(),
        release.unsupported.len(),
        release.not_passed.len(),
        if release.worker.passed {
            ""
        } else {
            "; the worker failed its self-check"
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// What is stored of a data set that did not pass.
#[derive(Clone)]
enum Stored {
    Unsupported,
    NotPassed(NotPassed),
}

/// A data set's stored result: `None` when it passed.
fn not_passed(outcome: &Outcome) -> Option<Stored> {
    match outcome.status {
        Status::Passed => None,
        Status::Unsupported => Some(Stored::Unsupported),
        status => Some(Stored::NotPassed(NotPassed {
            name: outcome.name(),
            status,
            gates: outcome.is_gating_failure(),
            group: group_line(outcome),
        })),
    }
}

/// The worker's self-check: a run of the oldest upstream case, every data set of which must
/// pass; what failed is kept as the first line of its message.
fn self_check(path: &Path) -> Result<(WorkerCheck, RunReport), Fatal> {
    let report = read_json_report(path)?;
    if report.outcomes.is_empty() {
        return Err(Fatal(format!(
            "{}: cases: empty: the self-check ran nothing",
            shown_path(path)
        )));
    }
    let failed = report.outcomes.iter().find(|o| o.status != Status::Passed);
    let check = WorkerCheck {
        data_set: report.outcomes.iter().map(Outcome::name).collect::<Vec<_>>().join(", "),
        passed: failed.is_none(),
        detail: failed.map_or_else(String::new, |o| {
            let line = o.message.lines().next().unwrap_or_default();
            format!("{}: {}", o.status.name(), line.chars().take(300).collect::<String>())
        }),
    };
    Ok((check, report))
}

/// `history/RUNTIME/VERSION.json` is the only name a release may be stored under: a stored
/// file names itself twice, and reading checks both.
fn check_output_path(output: &Path, runtime: &str, version: &str) -> Result<(), Fatal> {
    let safe = |s: &str| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c)) && !s.starts_with('.')
    };
    if !safe(runtime) || !safe(version) {
        return Err(Fatal(format!(
            "the worker names runtime {runtime:?} version {version:?}: not usable as file names (letters, digits, '.', '_', '+', '-')"
        )));
    }
    let stem = output.file_stem().and_then(|s| s.to_str());
    let dir = output.parent().and_then(Path::file_name).and_then(|s| s.to_str());
    if stem != Some(version) || dir != Some(runtime) || output.extension().is_none_or(|e| e != "json") {
        return Err(Fatal(format!(
            "--output {}: the run is of {runtime} {version}: store it as …/{runtime}/{version}.json",
            shown_path(output)
        )));
    }
    Ok(())
}

/// Every data set of the corpus at `paths` (the default data when none), by name, with its
/// content digest.
pub(super) fn corpus_digests(paths: &[PathBuf]) -> Result<HashMap<String, String>, Fatal> {
    let roots = DataRoot::resolve(paths)?;
    let cases = discover_until(&roots, &Patterns::new::<&str>(&[])?, &signals::cancel())?;
    let mut digests = HashMap::new();
    for case in &cases {
        for index in case.job_indices() {
            let digest = data_set_digest(case, index)
                .map_err(|e| Fatal(format!("digest of {}: {e}", case.data_set_name(index))))?;
            digests.insert(case.data_set_name(index), digest);
        }
    }
    Ok(digests)
}

fn roots_shown(paths: &[PathBuf]) -> String {
    match paths {
        [] => "the default data".into(),
        _ => paths
            .iter()
            .map(|p| shown_path(p).to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}
