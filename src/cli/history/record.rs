//! `history record`: one release's run (a JSON report), its worker's self-check and its
//! environment, stored in history/RUNTIME.json. Runs over part of the corpus add to what the
//! release holds: a data set stored earlier whose content the corpus still holds
//! and that this run did not run keeps its result, so a new corpus version re-runs only what
//! it changed or added.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use super::store::RuntimeStore;
use super::stored::{Environment, HISTORY_FORMAT, NotPassed, Package, Release, WorkerCheck, is_name};
use crate::case::content_digest::data_set_digest;
use crate::case::{Patterns, discover_until};
use crate::cli::args::HistoryRecordArgs;
use crate::cli::failure_groups::group_failures;
use crate::cli::fatal::Fatal;
use crate::cli::group_line::GroupLine;
use crate::cli::signals;
use crate::data::DataRoot;
use crate::data::corpus_versions;
use crate::data::digest::selection_digest;
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
    if !is_name(&runtime.name) || !is_name(version) {
        return Err(Fatal(format!(
            "{shown}: runtime: the worker names runtime {:?} version {version:?}: not usable as file names (letters, digits, '.', '_', '+', '-')",
            runtime.name
        )));
    }
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
    let corpus = CorpusDigests::read(&args.paths)?;
    if facts.corpora != corpus.versions {
        return Err(Fatal(format!(
            "{shown}: run.corpora: {:?}, but the corpus read holds {:?}: record against the corpus the run read",
            facts.corpora, corpus.versions
        )));
    }
    // Every data set the run selected is in the report: nothing left out, nothing added.
    if selection_digest(report.outcomes.iter().map(Outcome::name)) != facts.selection {
        return Err(Fatal(format!(
            "{shown}: run.selection: not the digest of the data sets the report holds: cases were added or removed"
        )));
    }
    let mut store = RuntimeStore::read(&args.dir, &runtime.name)?;
    let stored_at = shown_path(&store.file);
    let earlier = store.releases.iter().find(|r| r.version == version).cloned();
    if let Some(earlier) = &earlier {
        if earlier.worker.passed && !worker.passed {
            return Err(Fatal(format!(
                "{}: the worker failed its self-check ({}), but {stored_at} holds results of {version} made with a worker \
                 that worked: kept; remove the release from it to store the failure",
                shown_path(&args.self_check),
                worker.detail,
            )));
        }
        if (earlier.gating.as_str(), earlier.tolerance.as_str()) != (facts.gating.as_str(), facts.tolerance.as_str()) {
            return Err(Fatal(format!(
                "{shown}: run: gating {} and tolerance {}, but {stored_at} holds {version} recorded with gating {} and tolerance {}: \
                 one release's results are judged one way",
                facts.gating, facts.tolerance, earlier.gating, earlier.tolerance
            )));
        }
    }
    let mut results: BTreeMap<String, Option<Stored>> = BTreeMap::new();
    if worker.passed {
        // What an earlier run of this release stored, for the data sets the corpus still holds.
        if let Some(earlier) = earlier.as_ref().filter(|e| e.worker.passed) {
            let held: HashSet<&String> = corpus.digests.values().collect();
            for digest in earlier.data_sets.iter().filter(|d| held.contains(d)) {
                let result = match earlier.status_of(digest) {
                    Some(Status::Unsupported) => Some(Stored::Unsupported),
                    _ => earlier.not_passed.get(digest).cloned().map(Stored::NotPassed),
                };
                results.insert(digest.clone(), result);
            }
        }
        let mut fresh: HashMap<String, Option<Stored>> = HashMap::new();
        for outcome in &report.outcomes {
            let name = outcome.name();
            if corpus.unreadable.contains(&name) {
                continue;
            }
            let digest = corpus.digests.get(&name).ok_or_else(|| {
                Fatal(format!(
                    "{shown}: case {name}: not a data set of the corpus read ({}): record against the corpus the run read",
                    roots_shown(&args.paths)
                ))
            })?;
            let result = not_passed(outcome);
            // Copies of one content (an upstream case shipped by several onnx releases) are one
            // data set here: the worst result of any copy is kept, not hidden by another's.
            let worse = fresh.get(digest).is_none_or(|kept| rank(&result) > rank(kept));
            if worse {
                fresh.insert(digest.clone(), result.clone());
                results.insert(digest.clone(), result);
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
    // Each group's label: this run's smallest data set's message, else an earlier run's.
    let mut messages: BTreeMap<String, String> = BTreeMap::new();
    if worker.passed {
        for group in group_failures(&report.outcomes) {
            if let Some(line) = GroupLine::of(group.smallest()) {
                messages.entry(line.to_string()).or_insert(group.message);
            }
        }
        if let Some(earlier) = earlier.as_ref() {
            for (group, message) in &earlier.messages {
                messages.entry(group.clone()).or_insert_with(|| message.clone());
            }
        }
    }
    let groups: HashSet<&String> = not_passed
        .values()
        .filter_map(|n: &NotPassed| n.group.as_ref())
        .collect();
    messages.retain(|group, _| groups.contains(group));
    let release = Release {
        format: HISTORY_FORMAT,
        runtime: runtime.name.clone(),
        version: version.to_owned(),
        corpora: facts.corpora.clone(),
        gating: facts.gating.clone(),
        tolerance: facts.tolerance.clone(),
        date: args.date.clone().unwrap_or_else(crate::cli::today::today),
        environment,
        worker,
        selection: Release::selection_of(&data_sets),
        unsupported,
        not_passed,
        data_sets,
        messages,
    };
    // Checked as reading will check it, before anything is written.
    release.check(&store.file, &format!("{version}: "))?;
    let summary = format!(
        "{} data sets, {} unsupported, {} failed, errored or skipped{}",
        release.data_sets.len(),
        release.unsupported.len(),
        release.not_passed.len(),
        if release.worker.passed {
            ""
        } else {
            "; the worker failed its self-check"
        }
    );
    store.releases.retain(|r| r.version != version);
    store.releases.push(release);
    store
        .releases
        .sort_by_cached_key(|r| (super::stored::release_order(&r.version), r.version.clone()));
    std::fs::create_dir_all(&args.dir).map_err(|e| Fatal(format!("{}: {e}", shown_path(&args.dir))))?;
    store.write()?;
    eprintln!(
        "pad-conformance: {} {version} stored in {stored_at}: {summary}",
        runtime.name
    );
    Ok(ExitCode::SUCCESS)
}

/// How bad a stored result is, for choosing between copies of one content.
fn rank(result: &Option<Stored>) -> u8 {
    match result {
        None => 0,
        Some(Stored::Unsupported) => 1,
        Some(Stored::NotPassed(n)) if n.status == Status::Skipped => 2,
        Some(Stored::NotPassed(_)) => 3,
    }
}

/// What is stored of a data set that did not pass.
#[derive(Clone)]
enum Stored {
    Unsupported,
    NotPassed(NotPassed),
}

/// A data set's stored result: `None` when it passed.
fn not_passed(outcome: &Outcome) -> Option<Stored> {
    match outcome.status() {
        Status::Passed => None,
        Status::Unsupported => Some(Stored::Unsupported),
        status => Some(Stored::NotPassed(NotPassed {
            name: outcome.name(),
            status,
            gates: outcome.is_gating_failure(),
            group: GroupLine::of(outcome).map(|line| line.to_string()),
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
    let failed = report.outcomes.iter().find(|o| o.status() != Status::Passed);
    let check = WorkerCheck {
        data_set: report.outcomes.iter().map(Outcome::name).collect::<Vec<_>>().join(", "),
        passed: failed.is_none(),
        detail: failed.map_or_else(String::new, |o| {
            let message = o.message();
            let line = message.lines().next().unwrap_or_default();
            format!("{}: {}", o.status().name(), line.chars().take(300).collect::<String>())
        }),
    };
    Ok((check, report))
}

/// The content digest of every data set of a corpus, by name, and the corpus versions.
pub(super) struct CorpusDigests {
    pub digests: HashMap<String, String>,
    /// Data sets that could not be read: their results are not stored (said on standard
    /// error), the others' are.
    pub unreadable: HashSet<String>,
    pub versions: BTreeMap<String, u32>,
}

impl CorpusDigests {
    /// The corpus at `paths` (the default data when none).
    pub(super) fn read(paths: &[PathBuf]) -> Result<CorpusDigests, Fatal> {
        let (roots, cases) = corpus(paths)?;
        let mut read = CorpusDigests {
            digests: HashMap::new(),
            unreadable: HashSet::new(),
            versions: corpus_versions(&roots),
        };
        for case in &cases {
            for index in case.job_indices() {
                let name = case.data_set_name(index);
                match data_set_digest(case, index) {
                    Ok(digest) => {
                        read.digests.insert(name, digest);
                    }
                    Err(e) => {
                        eprintln!(
                            "pad-conformance: {name}: no content digest, not stored: {}",
                            crate::text::escape_text(&e.to_string())
                        );
                        read.unreadable.insert(name);
                    }
                }
            }
        }
        Ok(read)
    }
}

/// The roots and cases of the corpus at `paths` (the default data when none).
pub(super) fn corpus(paths: &[PathBuf]) -> Result<(Vec<DataRoot>, Vec<crate::case::TestCase>), Fatal> {
    let roots = DataRoot::resolve(paths)?;
    let cases = discover_until(&roots, &Patterns::new::<&str>(&[])?, &signals::cancel())?;
    Ok((roots, cases))
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
