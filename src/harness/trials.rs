//! The wiring: one libtest trial per case and data set, each run in this process or a child
//! of the isolation's pool (retried after a crash), its outcome weighed against the baseline
//! into what libtest shows; and the trials that list stale or untracked baseline entries.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use libtest_mimic::{Completion, Trial};

use super::isolate;
use super::quiet_panics::check_quietly;
use super::reports;
use super::trial_result::TrialRef;
use super::{CONFIG_ENV, DEFAULT_TIME_LIMIT, Harness, HarnessError, WRITE_BASELINE_ENV};
use crate::case::shared_model::SharedModel;
use crate::case::{Patterns, TestCase, discover_in};
use crate::data::DataRoot;
use crate::gate::baseline::{Baseline, BaselineError};
use crate::gate::config::ConfigName;
use crate::gate::gate_result::GateResult;
use crate::gate::judging::Discovered;
use crate::judge::check::{Outcome, Status};
use crate::judge::retry::settle;
use crate::judge::survival::{self, Survival};
use crate::pipeline::gating::gate_once;

/// A trial's outcome and the gate result decided for it, kept beside it.
pub(super) type Gated = (Outcome, Option<GateResult>);

/// The trials, and what the run needs to judge and record them afterwards.
pub(super) struct Built {
    pub(super) trials: Vec<Trial>,
    /// Each trial's outcome and its gate result, as the trials finish.
    pub(super) results: Arc<Mutex<Vec<Gated>>>,
    pub(super) baseline: Arc<Baseline>,
    pub(super) discovered: Discovered,
    pub(super) roots: Vec<DataRoot>,
    /// The children of an isolated run, ended when its trials are done.
    pub(super) pool: Option<Arc<isolate::Pool>>,
    /// The retries asked for, checked.
    pub(super) retries: u32,
}

impl Harness {
    /// The time limit of data set `index` of `case`: its own, or else the gate's.
    fn limit_of(&self, case: &TestCase, index: usize, gate: Duration) -> Duration {
        let name = case.data_set_name(index);
        self.trial_limits
            .iter()
            .rev()
            .find(|(of, _)| *of == name || *of == case.id)
            .map_or(gate, |(_, limit)| *limit)
    }

    /// One trial per case and data set. Not-applicable cases are ignored trials; a case whose
    /// model cannot be read is a trial that fails with the reason.
    pub(crate) fn trials(&self) -> Result<Vec<Trial>, HarnessError> {
        Ok(self.build()?.trials)
    }

    fn read_baseline(&self, roots: &[DataRoot]) -> Result<Baseline, HarnessError> {
        let Some(path) = &self.baseline else {
            return Ok(Baseline::default());
        };
        if path.exists() {
            let baseline = Baseline::read(path)
                .and_then(|b| b.against(path, roots))
                .map_err(HarnessError::baseline)?;
            if let Some(warning) = baseline.unversioned_warning(path, &record_command(path)) {
                eprintln!("{warning}");
            }
            return Ok(baseline);
        }
        // The file about to be recorded, however its path is spelled (a gate names its
        // baseline by an absolute path, the command that records it by a relative one, which
        // may climb through `..` or a link): the same file in the same resolved directory.
        let resolved = |p: &Path| {
            let absolute = std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
            match (absolute.parent(), absolute.file_name()) {
                (Some(dir), Some(name)) => dir.canonicalize().map_or(absolute.clone(), |dir| dir.join(name)),
                _ => absolute,
            }
        };
        if self
            .write_baseline
            .as_deref()
            .is_some_and(|w| resolved(w) == resolved(path))
        {
            return Ok(Baseline::default());
        }
        Err(HarnessError::baseline(BaselineError::Missing {
            path: path.clone(),
            command: record_command(path),
        }))
    }

    /// The configuration's name, checked.
    pub(super) fn config_name(&self) -> Result<Option<ConfigName>, HarnessError> {
        let from = match std::env::var_os(CONFIG_ENV) {
            Some(_) => CONFIG_ENV,
            None => "Harness::config",
        };
        self.config
            .as_deref()
            .map(ConfigName::new)
            .transpose()
            .map_err(|source| HarnessError::Config { from, source })
    }

    pub(super) fn build(&self) -> Result<Built, HarnessError> {
        // The same resolver as the command line's: the same data gives the same corpus.
        let roots = DataRoot::resolve(&self.roots).map_err(HarnessError::cases)?;
        let patterns = Patterns::new(&self.patterns).map_err(HarnessError::cases)?;
        // Checked first: a bad name is the gate's own mistake, whatever the data.
        self.config_name()?;
        let cases = discover_in(&roots, &patterns).map_err(HarnessError::cases)?;
        // The command line's warnings: a copy of a bundled data set that said otherwise.
        for disagreement in cases.iter().flat_map(TestCase::disagreements) {
            eprintln!(
                "pad-conformance: warning: {}",
                crate::text::escape_line(&disagreement.to_string())
            );
        }
        let baseline = Arc::new(self.read_baseline(&roots)?.for_config(self.config_name()?));
        let results = Arc::new(Mutex::new(Vec::new()));
        let retries = match &self.retries {
            Ok(n) => *n,
            Err(HarnessError::Retries { from, value }) => {
                return Err(HarnessError::Retries {
                    from,
                    value: value.clone(),
                });
            }
            Err(_) => 0,
        };
        // cargo-nextest runs each trial in a process of its own already.
        let pool = self
            .isolation
            .filter(|_| !reports::under_nextest())
            .map(|limit| Arc::new(isolate::Pool::new(limit)));
        let mut trials = Vec::new();
        let discovered = Discovered::new(&cases, !self.patterns.is_empty());
        for case in cases {
            let case = Arc::new(case);
            let operator = self.describe(&case);
            // The model, decoded once for all its data sets.
            let model = Arc::new(SharedModel::new(case.job_indices().len()));
            for index in case.job_indices() {
                let name = case.data_set_name(index);
                // Known before it runs: whether an answer gates. A crash gates on every basis
                // (docs/semantics.md#basis), which only the run can tell.
                let basis = case.basis_of(index).kind;
                let answers_gate = survival::gates(&self.options.gating, basis, Survival::Answered);
                // What is known of the trial before it runs, shown beside its name as known
                // failures are: the baseline lists it, its basis does not gate, or the corpus
                // changed its expected result since the baseline was written.
                let mut kind = operator.clone();
                let marks = [
                    (baseline.in_force(&name).is_some(), "known failure".to_owned()),
                    (!answers_gate, format!("answers not gating: {basis} basis")),
                    (
                        baseline.changed_with_corpus.contains_key(&name),
                        "changed with the corpus".to_owned(),
                    ),
                ];
                for (_, mark) in marks.into_iter().filter(|(applies, _)| *applies) {
                    if !kind.is_empty() {
                        kind.push_str(", ");
                    }
                    kind.push_str(&mark);
                }
                let run = self.runner(Arc::clone(&case), index, Arc::clone(&model), pool.clone(), retries);
                let (baseline, results) = (Arc::clone(&baseline), Arc::clone(&results));
                let strict_corpus = self.strict_corpus;
                let recording = self.write_baseline.is_some();
                let trial = Trial::ignorable_test(name, move || {
                    let outcome = run();
                    let gate = gate_once(Some(&baseline), &outcome);
                    let completion = match completion(&outcome, gate.as_ref(), strict_corpus) {
                        // Recorded, not failed: the run's purpose is to list it.
                        Err(_) if recording => Ok(Completion::Completed),
                        judged => judged,
                    };
                    results.lock().unwrap_or_else(|e| e.into_inner()).push((outcome, gate));
                    completion
                });
                trials.push(trial.with_kind(kind));
            }
        }
        // Entries naming no data set (renamed or removed since): one trial that lists them,
        // unless this run records the baseline, which drops them.
        let stale = baseline.stale(|name| discovered.contains(name));
        if !stale.is_empty() && self.write_baseline.is_none() {
            trials.push(Trial::test("baseline: entries for no data set", move || {
                Err(format!("remove them from the baseline:\n  {}", stale.join("\n  ")).into())
            }));
        }
        let untracked = baseline.untracked(|name| discovered.contains(name));
        if self.require_tracking && !untracked.is_empty() && self.write_baseline.is_none() {
            trials.push(Trial::test(
                "baseline: known failures without a tracking link",
                move || {
                    Err(format!(
                        "give each a \"tracking\" link to its bug (require_tracking):\n  {}",
                        untracked.join("\n  ")
                    )
                    .into())
                },
            ));
        }
        Ok(Built {
            trials,
            results,
            baseline,
            discovered,
            roots,
            pool,
            retries,
        })
    }

    /// What a trial runs: the check in this process, panics quiet, or in a child of `pool`,
    /// retried `retries` times after a crash or time-out.
    fn runner(
        &self,
        case: Arc<TestCase>,
        index: usize,
        model: Arc<SharedModel>,
        pool: Option<Arc<isolate::Pool>>,
        retries: u32,
    ) -> impl FnOnce() -> Outcome + Send + 'static {
        let (backend, options) = (Arc::clone(&self.backend), self.options.clone());
        let limit = pool.as_ref().map_or(DEFAULT_TIME_LIMIT, |pool| {
            self.limit_of(&case, index, pool.time_limit())
        });
        move || match pool {
            Some(pool) => {
                let trial = TrialRef {
                    case: &case,
                    index,
                    gating: &options.gating,
                    backend: backend.name(),
                };
                // A crash in a child that served others is this trial's first try all the
                // same: the retry rule alone may run it again, so no pass hides a crash.
                let first = pool.run(&trial, limit);
                settle(first, retries, &options.gating, || pool.run_alone(&trial, limit))
            }
            None => {
                let model = model.get(&case, &case.decode_options(options.max_tensor_bytes));
                check_quietly(backend.as_ref(), &case, index, &model, &options)
            }
        }
    }

    /// The trial kind: the operator the case checks (`Pad-19`), when its model reads.
    fn describe(&self, case: &TestCase) -> String {
        let Ok(model) = case.load_model(&case.decode_options(self.options.max_tensor_bytes)) else {
            return String::new();
        };
        model.pad_nodes().next().map(|(n, _)| n.label()).unwrap_or_default()
    }
}

/// What libtest shows of a trial: a function of its gate result. Not applicable and
/// unsupported data sets the baseline does not list are ignored trials saying why (one it
/// lists fails, as the command line's `--strict` fails it); known failures, non-gating failures
/// and changes with the corpus pass (their kind says so); anything else the baseline does
/// not expect fails the trial.
fn completion(
    outcome: &Outcome,
    gate: Option<&GateResult>,
    strict_corpus: bool,
) -> Result<Completion, libtest_mimic::Failed> {
    // Every trial's outcome is gated, against an empty baseline without a file.
    let Some(gate) = gate else {
        return Err("the trial's outcome was not weighed against the baseline".into());
    };
    match gate {
        GateResult::ChangedWithCorpus { why, .. } if strict_corpus => Err(format!(
            "changed with the corpus ({why}); the baseline must be re-recorded\n{}",
            outcome.message()
        )
        .into()),
        GateResult::Fixed { reason, .. } => Err(format!(
            "listed as a known failure ({reason}) but {}: remove it from the baseline",
            outcome.status().name()
        )
        .into()),
        // Outside the profile or not applicable, and not listed: nothing to judge.
        _ if matches!(outcome.status(), Status::Skipped | Status::Unsupported) => {
            Ok(Completion::ignored_with(outcome.message()))
        }
        // A refusal is weighed by its twin after every trial ran (a trial that refused passed):
        // the harness's summary and reports carry what that decides.
        GateResult::Agrees
        | GateResult::NotGating
        | GateResult::KnownFailure { .. }
        | GateResult::ChangedWithCorpus { .. }
        | GateResult::NotVerified => Ok(Completion::Completed),
        GateResult::NewFailure => Err(outcome.message().into()),
        GateResult::ChangedStatus { was, reason } => Err(format!(
            "listed as {} ({reason}) but {} now: update the baseline\n{}",
            was.name(),
            outcome.status().name(),
            outcome.message()
        )
        .into()),
    }
}

/// The command that records a missing baseline for the running gate:
/// `PAD_CONFORMANCE_WRITE_BASELINE=known-failures.json cargo test --test my_gate`.
pub(super) fn record_command(path: &Path) -> String {
    let exe = std::env::current_exe().ok();
    let target = exe.as_deref().and_then(|exe| {
        // cargo names test binaries NAME-HASH, in deps/ for tests and examples/ for examples.
        let stem = exe.file_stem()?.to_str()?;
        let name = stem.rsplit_once('-').map_or(stem, |(name, _)| name);
        let kind = match exe.parent()?.file_name()?.to_str()? {
            "examples" => "--example",
            _ => "--test",
        };
        Some(format!(" {kind} {name}"))
    });
    format!(
        "{WRITE_BASELINE_ENV}={} cargo test{}",
        path.display(),
        target.unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::backend::RefBackend;
    use crate::case::discover;

    /// A baseline entry for a data set now outside the profile is outdated: its trial fails,
    /// where an unlisted one is ignored.
    #[test]
    fn an_entry_for_an_unsupported_data_set_fails_its_trial_and_an_unlisted_one_is_ignored() {
        use crate::data::basis::BasisNote;
        use crate::judge::verdict::{UnsupportedBy, Verdict};
        let verdict = Verdict::Unsupported {
            by: UnsupportedBy::Profile,
            detail: "dtypes: element type int4".into(),
        };
        let outcome = Outcome::judged("test_x".into(), 0, BasisNote::upstream(), verdict, "b");
        let fixed = GateResult::Fixed {
            was: Status::Failed,
            reason: "wrong values".into(),
        };
        let Err(failed) = completion(&outcome, Some(&fixed), false) else {
            panic!("a listed entry for an unsupported data set passed its trial");
        };
        assert!(
            failed
                .message()
                .unwrap()
                .contains("listed as a known failure (wrong values) but unsupported"),
            "{failed:?}"
        );
        let ignored = completion(&outcome, Some(&GateResult::Agrees), false);
        assert!(
            matches!(ignored, Ok(Completion::Ignored { .. })),
            "an unlisted one is not ignored"
        );
    }

    #[test]
    fn a_trial_s_own_limit_is_its_data_set_s_or_its_case_s_the_last_given_winning() {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata/onnx-1.22.0/node"));
        let cases = discover(
            &[root],
            &Patterns::new(&["test_edge_pad", "test_reflect_pad", "test_wrap_pad"]).unwrap(),
        )
        .unwrap();
        let case = |id: &str| cases.iter().find(|c| c.id == id).unwrap();
        let secs = Duration::from_secs;
        let harness = Harness::new(RefBackend)
            .time_limit_for("test_edge_pad", secs(5))
            .time_limit_for("test_edge_pad/0", secs(7))
            .time_limit_for("test_wrap_pad/0", secs(9));
        let limits = |harness: &Harness| {
            ["test_edge_pad", "test_reflect_pad", "test_wrap_pad"].map(|id| harness.limit_of(case(id), 0, secs(60)))
        };
        assert_eq!(limits(&harness), [secs(7), secs(60), secs(9)]);
        // A data set of another number is not the case's data set 0.
        assert_eq!(harness.limit_of(case("test_wrap_pad"), 1, secs(60)), secs(60));
        let harness = harness.time_limit_for("test_edge_pad", secs(3));
        assert_eq!(limits(&harness), [secs(3), secs(60), secs(9)]);
        // Isolated, with the default limit for the rest.
        assert_eq!(harness.isolation, Some(DEFAULT_TIME_LIMIT));
    }
}
