//! Where a run is decided, for both faces: each refusal weighed by its valid twin's outcome
//! ([`verify_refusals`]), the outcomes it changes gated again; the outcomes, each gated once
//! ([`gate_once`]) as it arrived, summed up against the baseline; every report written from
//! that one judged report; the run's failures recorded as a baseline. What the faces do differently on purpose comes in as
//! [`Finish`]: the command line streams its human lines before and maps the result to an exit
//! code after; the harness shows its summary after libtest's and failed its trials already.

use std::collections::HashSet;
use std::path::Path;

use super::error::PipelineError;
use super::gating::gate_once;
use super::reports::{PageWriter, ReportOut, write_reports};
use crate::backend::Language;
use crate::data::DataRoot;
use crate::gate::baseline::Baseline;
use crate::gate::config::ConfigName;
use crate::gate::judging::{Discovered, GateSummary};
use crate::gate::recording::{Ran, Recording};
use crate::judge::check::Outcome;
use crate::judge::twin_check::verify_refusals;
use crate::report::{Rerun, RunReport};

/// How a run ends, as its face sets it from its own options.
pub(crate) struct Finish<'a> {
    /// The baseline the run is judged against, when it is judged against one.
    pub baseline: Option<&'a Baseline>,
    /// What fails the run besides a regression, recorded in its report with the known failures
    /// that ran without a tracking link (the command line's); `None` records the sums alone
    /// (the harness's reports, which have never recorded them: to keep them as they were).
    pub strictness: Option<Strictness>,
    /// Whether a data set of that name exists, so that an entry for it is not stale.
    pub exists: &'a dyn Fn(&str) -> bool,
    /// Where the run's failures are recorded, when they are.
    pub record: Option<RecordInto<'a>>,
    /// The reports, opened (a human one holds the lines streamed while the run went on).
    pub reports: Vec<ReportOut>,
    /// Human and Markdown: only the data sets that failed or errored are listed.
    pub failures_only: bool,
    /// How the face writes an HTML report, when it writes one.
    pub page: Option<PageWriter<'a>>,
    /// The command that runs one data set again, for the human report's recap, when the face
    /// knows how it ran.
    pub rerun: Option<Rerun<'a>>,
    /// How the backend's author speaks — a Rust backend, a Python function, a worker, a
    /// per-case command — for the words of the human recap's hint, when the face knows.
    pub language: Option<Language>,
}

/// What fails a run judged against a baseline besides a regression, as its report records.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Strictness {
    /// An outdated entry (a listed data set that passes, or fails otherwise, or is gone).
    pub strict: bool,
    /// A verdict that changed with the corpus.
    pub strict_corpus: bool,
    /// A known failure without a tracking link.
    pub require_tracking: bool,
    /// A refusal its twin does not verify.
    pub require_verified: bool,
}

/// A baseline to record a run's failures into.
pub(crate) struct RecordInto<'a> {
    /// Its file.
    pub path: &'a Path,
    /// The data the run read, whose corpus versions the baseline records.
    pub roots: &'a [DataRoot],
    /// The configuration whose entries the recording writes.
    pub config: Option<&'a ConfigName>,
    /// The data sets under the roots: entries for others are dropped.
    pub discovered: &'a Discovered,
}

/// A finished run.
pub(crate) struct Finished {
    /// Its report, judged.
    pub report: RunReport,
    /// The baseline recorded, when one was.
    pub recorded: Option<Recording>,
}

/// Finishes `report`, whose outcomes are gated and whose facts are set, as `how` says;
/// `shown` is what the face shows of the judged run once its reports are written.
pub(crate) fn finish(
    mut report: RunReport,
    how: Finish<'_>,
    shown: &mut dyn FnMut(&RunReport),
) -> Result<Finished, PipelineError> {
    settle_refusals(&mut report, how.baseline);
    // Judged before any report is written, so that every report shows the gate, per data set
    // and in sum.
    if let Some(baseline) = how.baseline {
        report.baseline = Some(judged(&report, baseline, how.strictness, how.exists));
    }
    write_reports(
        how.reports,
        &report,
        how.failures_only,
        (how.page, how.rerun, how.language),
    )?;
    shown(&report);
    let recorded = match &how.record {
        Some(into) => Some(record(&report, how.baseline, into)?),
        None => None,
    };
    Ok(Finished { report, recorded })
}

/// Weighs every refusal of `report` by its twin's outcome in the same report (a run's, or the
/// union of a run's parts), and weighs each outcome whose verdict that changed against
/// `baseline` again, as its gate result was weighed when it arrived (a run gated against no
/// file, the harness's, against an empty baseline). Deciding it again changes nothing.
pub(crate) fn settle_refusals(report: &mut RunReport, baseline: Option<&Baseline>) {
    let empty = Baseline::default();
    for index in verify_refusals(&mut report.outcomes) {
        let outcome = &report.outcomes[index];
        let weighed = gate_once(Some(baseline.unwrap_or(&empty)), outcome);
        if let (Some(gate), Some(weighed)) = (report.gates.get_mut(&outcome.name()), weighed) {
            *gate = weighed;
        }
    }
}

/// The sum of the gate results kept beside `report`'s outcomes against `baseline`, with its
/// stale entries, and under `strictness` its untracked ones.
fn judged(
    report: &RunReport,
    baseline: &Baseline,
    strictness: Option<Strictness>,
    exists: &dyn Fn(&str) -> bool,
) -> GateSummary {
    let outcomes = &report.outcomes;
    let gated = outcomes.iter().filter_map(|o| Some((o, report.gate_of(o)?)));
    let summed = GateSummary::of(gated, baseline.stale(exists));
    let Some(strictness) = strictness else {
        return summed;
    };
    let ran: HashSet<String> = outcomes.iter().map(Outcome::name).collect();
    GateSummary {
        strict: strictness.strict,
        strict_corpus: strictness.strict_corpus,
        require_tracking: strictness.require_tracking,
        require_verified: strictness.require_verified,
        untracked: baseline.untracked(|name| ran.contains(name)),
        ..summed
    }
}

/// Records the failures of `report` into `into`, merged under a lock with what is there (or
/// else `baseline`'s reasons): only a baseline is replaced.
fn record(report: &RunReport, baseline: Option<&Baseline>, into: &RecordInto<'_>) -> Result<Recording, PipelineError> {
    let names: Vec<String> = report.outcomes.iter().map(Outcome::name).collect();
    let recorded = Baseline::record_into(into.path, baseline, into.config, |previous| {
        let ran = report.outcomes.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
        Baseline::record(&report.backend, into.roots, ran, previous, into.config, |name| {
            into.discovered.contains(name)
        })
    })?;
    Ok(recorded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::gate_result::GateResult;
    use crate::judge::status::Status;

    /// The summary is the sum of the gate results kept beside the outcomes, decided once as
    /// they arrived: finishing weighs nothing again (here the baseline, empty, would call the
    /// failure new).
    #[test]
    fn the_run_is_judged_by_the_gate_results_kept_beside_its_outcomes() {
        let known = GateResult::KnownFailure {
            reason: "listed".into(),
            tracking: None,
        };
        let mut report = RunReport::of(
            "b",
            vec![
                Outcome::example("a", Status::Failed),
                Outcome::example("b", Status::Passed),
            ],
        );
        report.gates = [("a/0".to_owned(), known), ("b/0".to_owned(), GateResult::Agrees)].into();
        let baseline = Baseline::default();
        let how = Finish {
            baseline: Some(&baseline),
            strictness: Some(Strictness {
                strict_corpus: true,
                ..Strictness::default()
            }),
            exists: &|_| true,
            record: None,
            reports: Vec::new(),
            failures_only: false,
            page: None,
            rerun: None,
            language: None,
        };
        let mut shown = Vec::new();
        let finished = finish(report, how, &mut |report| shown.push(report.baseline.clone())).unwrap();
        let judged = finished.report.baseline.unwrap();
        assert_eq!(judged.expected_failures, ["a/0"]);
        assert!(judged.regressions.is_empty() && judged.agreeing == 1, "{judged:?}");
        assert!(judged.strict_corpus && !judged.strict);
        // The face sees the judged run once, after its reports.
        assert_eq!(shown, [Some(judged)]);
        assert!(finished.recorded.is_none());
    }
}
