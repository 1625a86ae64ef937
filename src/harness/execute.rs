//! Running the trials libtest's arguments select, between the pipeline's prepare and finish
//! (src/pipeline/): the files checked before anything runs, then the run judged, its reports
//! written and its baseline recorded; the harness's summary shown after libtest's.

use libtest_mimic::{Arguments, FormatSetting};

use super::trials::record_command;
use super::{Harness, HarnessError, HarnessRun, HarnessSummary, REQUIRE_VERIFIED_ENV, reports};
use crate::backend::Language;
use crate::judge::check::Outcome;
use crate::pipeline::error::PipelineError;
use crate::pipeline::finish::{Finish, RecordInto, Strictness, finish};
use crate::pipeline::prepare::{RunFiles, prepare};
use crate::pipeline::run_facts::run_facts;
use crate::report::RunReport;

impl Harness {
    /// Runs the trials `args` selects, prints the harness's summary after libtest's, and
    /// records the baseline if asked to.
    pub(crate) fn execute(mut self, args: &Arguments) -> Result<HarnessRun, HarnessError> {
        if !args.list && reports::under_nextest() {
            for (asked, what) in [
                (self.write_baseline.is_some(), "baseline"),
                (self.reports.any(), "report"),
            ] {
                if asked {
                    return Err(HarnessError::ProcessPerTrial { what });
                }
            }
        }
        // Before the run, not after it: a report over the baseline, a report that is a
        // directory, a target that is no baseline, or cannot be written; a profile that leaves
        // everything out.
        let config = self.config_name()?;
        self.reports.check_available()?;
        let require_verified = self
            .require_verified
            .clone()
            .map_err(|value| HarnessError::RequireVerified {
                from: REQUIRE_VERIFIED_ENV,
                value,
            })?;
        let files = RunFiles {
            reports: self.reports.named(),
            write_baseline: ("baseline to write", self.write_baseline.as_deref()),
            baseline: ("baseline", self.baseline.as_deref()),
            profile: ("profile", None),
        };
        prepare(&files, config.as_ref(), &mut self.options)?;
        let built = self.build()?;
        if self.strict_corpus
            && let Some(path) = &self.baseline
            && let Some(warning) = built.baseline.unversioned_warning(path, &record_command(path))
        {
            return Err(HarnessError::Unversioned(warning));
        }
        let start = std::time::Instant::now();
        let mut conclusion = libtest_mimic::run(args, built.trials);
        // Every trial is done: the run ends its children before it reports.
        if let Some(pool) = &built.pool {
            pool.end();
        }
        let mut results = std::mem::take(&mut *built.results.lock().unwrap_or_else(|e| e.into_inner()));
        // In the order of the trials' names, not the order threads finished them.
        results.sort_by(|(a, _), (b, _)| (a.id(), a.data_set()).cmp(&(b.id(), b.data_set())));
        // Each trial's gate result, decided once in the trial, kept beside its outcome.
        let gates = results
            .iter()
            .filter_map(|(o, gate)| Some((o.name(), gate.clone()?)))
            .collect();
        let results: Vec<Outcome> = results.into_iter().map(|(outcome, _)| outcome).collect();
        // What `merge` and `diff` check, as the command line records them: the harness runs
        // what libtest selected to its end (a process that dies writes no report).
        let names = results.iter().map(Outcome::name);
        let facts = run_facts(&self.options, &built.roots, names, config.as_ref(), built.retries, true);
        let report = RunReport {
            backend: self.backend.name().to_owned(),
            gates,
            baseline: None,
            outcomes: results,
            duration: start.elapsed(),
            runtime: self.backend.runtime(),
            shard: None,
            run: Some(facts),
        };
        // Not after a listing.
        let reports = match args.list {
            true => Vec::new(),
            false => self.reports.open().map_err(PipelineError::from)?,
        };
        let how = Finish {
            // Each trial was gated against it (an empty one without a file); the run is judged
            // against a baseline only when one was given.
            baseline: self.baseline.as_ref().map(|_| &*built.baseline),
            // What fails its trials: an outdated entry always (a trial of its own, or the data
            // set's), a change with the corpus, an untracked entry and a refusal not verified
            // when asked; its reports say the same.
            strictness: Some(Strictness {
                strict: true,
                strict_corpus: self.strict_corpus,
                require_tracking: self.require_tracking,
                require_verified,
            }),
            exists: &|name| built.discovered.contains(name),
            // A listing runs nothing: it records nothing either.
            record: self
                .write_baseline
                .as_deref()
                .filter(|_| !args.list)
                .map(|path| RecordInto {
                    path,
                    roots: &built.roots,
                    config: config.as_ref(),
                    discovered: &built.discovered,
                }),
            reports,
            failures_only: false,
            page: None,
            rerun: None,
            // A harness runs a Rust `Backend`.
            language: Some(Language::Rust),
        };
        let mut summary = None;
        let finished = finish(report, how, &mut |report| {
            let shown = HarnessSummary::new(report);
            // Not after a listing, and not into libtest's JSON, which a tool parses.
            if !args.list && args.format != Some(FormatSetting::Json) {
                println!("{shown}\n");
            }
            summary = Some(shown);
        })?;
        if let (Some(path), Some(recorded)) = (&self.write_baseline, &finished.recorded) {
            println!("pad-conformance: {}\n", recorded.describe(path));
        }
        let summary = summary.unwrap_or_default();
        // Decided after the trials ended ok: they fail the run here, counted with libtest's
        // failures. A listing ran nothing, and a recording fails on nothing.
        let unverified = summary.not_verified.len();
        if require_verified && unverified > 0 && !args.list && self.write_baseline.is_none() {
            conclusion.num_passed = conclusion.num_passed.saturating_sub(unverified as u64);
            conclusion.num_failed += unverified as u64;
            if args.format != Some(FormatSetting::Json) {
                println!(
                    "pad-conformance: {unverified} refusals not verified by their twins fail the run (require_verified)\n"
                );
            }
        }
        Ok(HarnessRun {
            conclusion,
            summary,
            results: finished.report.outcomes,
        })
    }
}
