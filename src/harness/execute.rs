//! Running the trials libtest's arguments select and finishing the run: the outputs checked
//! before anything runs, then the harness's summary, the reports and the baseline recorded.

use libtest_mimic::Arguments;

use super::trials::record_command;
use super::{Harness, HarnessError, HarnessRun, HarnessSummary, reports};
use crate::data::corpus_versions;
use crate::data::digest::selection_digest;
use crate::data::output_paths::{OutputPathError, check_outputs};
use crate::gate::baseline::Baseline;
use crate::gate::recording::Ran;
use crate::gate::refused_operator::refused_operators;
use crate::judge::check::Outcome;
use crate::report::{RunFacts, RunReport};

impl Harness {
    /// Runs the trials `args` selects, prints the harness's summary after libtest's, and
    /// records the baseline if asked to.
    pub(crate) fn execute(self, args: &Arguments) -> Result<HarnessRun, HarnessError> {
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
        // directory, a target that is no baseline, or cannot be written.
        self.check_outputs()?;
        self.options.profile.check_built()?;
        if let Some(path) = &self.write_baseline {
            Baseline::check_recordable(path, self.config_name()?.as_ref())?;
        }
        let built = self.build()?;
        if self.strict_corpus
            && let Some(path) = &self.baseline
            && let Some(warning) = built.baseline.unversioned_warning(path, &record_command(path))
        {
            return Err(HarnessError::Unversioned(warning));
        }
        let start = std::time::Instant::now();
        let conclusion = libtest_mimic::run(args, built.trials);
        // Every trial is done: the run ends its children before it reports.
        if let Some(pool) = &built.pool {
            pool.end();
        }
        let mut results = std::mem::take(&mut *built.results.lock().unwrap_or_else(|e| e.into_inner()));
        // In the order of the trials' names, not the order threads finished them.
        results.sort_by(|a, b| (a.id(), a.data_set()).cmp(&(b.id(), b.data_set())));
        let report = RunReport {
            backend: self.backend.name().to_owned(),
            gates: results.iter().map(|o| (o.name(), built.baseline.gate(o))).collect(),
            baseline: self
                .baseline
                .as_ref()
                .map(|_| built.baseline.judge(&results, |name| built.discovered.contains(name))),
            outcomes: results,
            duration: start.elapsed(),
            runtime: self.backend.runtime(),
            shard: None,
            run: None,
        };
        // What `merge` and `diff` check, as the command line records them: the harness runs
        // what libtest selected to its end (a process that dies writes no report).
        let run = RunFacts {
            complete: true,
            gating: self.options.gating.names(),
            tolerance: self.options.tolerance.to_string(),
            profile: self.options.profile.digest.0.clone(),
            inputs_as_constants: self.options.inputs_as_constants,
            strict_rules: self.options.strict_rules,
            corpora: corpus_versions(&built.roots),
            selection: selection_digest(report.outcomes.iter().map(Outcome::name)),
            config: built.baseline.config.as_ref().map(ToString::to_string),
            retries: built.retries,
        };
        let report = RunReport {
            run: Some(run),
            ..report
        };
        let summary = HarnessSummary::new(&report);
        // Not after a listing, and not into libtest's JSON, which a tool parses.
        if !args.list && args.format != Some(libtest_mimic::FormatSetting::Json) {
            println!("{summary}\n");
        }
        // The command line's warning, from the same decision.
        let refused_operators = refused_operators(&report.outcomes);
        for operator in &refused_operators {
            eprintln!("pad-conformance: {operator}");
        }
        if !args.list {
            self.reports.write(&report)?;
        }
        if let Some(path) = &self.write_baseline {
            // The command line's rules: only a baseline is replaced, merged under a lock.
            let names: Vec<String> = report.outcomes.iter().map(Outcome::name).collect();
            let config = built.baseline.config.as_ref();
            let recorded = Baseline::record_into(path, Some(&built.baseline), config, |previous| {
                let ran = report.outcomes.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
                Baseline::record(self.backend.name(), &built.roots, ran, previous, config, |name| {
                    built.discovered.contains(name)
                })
            })?;
            println!("pad-conformance: {}\n", recorded.describe(path));
        }
        Ok(HarnessRun {
            conclusion,
            summary,
            results: report.outcomes,
            refused_operators,
        })
    }

    /// Refuses reports that would replace the baseline (or each other), or that are
    /// directories; the baseline written in place of the one read stays allowed (atomic).
    fn check_outputs(&self) -> Result<(), HarnessError> {
        let outputs = [
            ("JSON report", self.reports.json.as_deref()),
            ("JUnit report", self.reports.junit.as_deref()),
            ("baseline to write", self.write_baseline.as_deref()),
        ];
        let inputs = [
            ("baseline", self.baseline.as_deref()),
            ("baseline to write", self.write_baseline.as_deref()),
        ];
        let in_place = [
            ("baseline to write", "baseline"),
            ("baseline to write", "baseline to write"),
        ];
        check_outputs(&outputs, &inputs, &in_place).map_err(|e| {
            let path = match &e {
                OutputPathError::OverInput { path, .. }
                | OutputPathError::TwoOutputs { path, .. }
                | OutputPathError::Directory { path, .. } => path.clone(),
            };
            HarnessError::Write {
                path,
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e),
            }
        })
    }
}
