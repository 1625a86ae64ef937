//! Running a backend over many cases, in parallel, into a [`RunReport`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Instant;

use crate::backend::Driven;
use crate::cancel::Cancel;
use crate::case::TestCase;
use crate::case::shared_model::SharedModel;
use crate::judge::check::{CheckOptions, Outcome, check_data_set_with};
use crate::judge::retry::{retryable, settle};
use crate::judge::verdict::{Failure, Verdict};
use crate::report::RunReport;

/// One unit of work: a case and the index of one of its data sets.
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    /// The case.
    pub case: &'a TestCase,
    /// An index into the case's `data_sets` (0 for a case without any).
    pub data_set: usize,
}

impl Job<'_> {
    /// `onnx-1.22.0/node/test_wrap_pad/0`.
    pub fn name(&self) -> String {
        self.case.data_set_name(self.data_set)
    }
}

/// The threads a run uses by default: one per core.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, Into::into)
}

/// Every case's data sets (a case without any still gets one job, which reports why).
pub fn jobs(cases: &[TestCase]) -> Vec<Job<'_>> {
    cases
        .iter()
        .flat_map(|case| case.job_indices().map(move |data_set| Job { case, data_set }))
        .collect()
}

/// Runs `jobs` on `threads` threads (at least one); outcomes come back in job order. Each
/// outcome is also handed to `finished`, on the calling thread, as soon as it and every job
/// before it are done: a report can be written while the run goes on, in order, and a slow
/// writer holds up no worker thread.
///
/// Once `cancel` trips, no further job starts and the run returns the outcomes of the jobs
/// that finished before it did: a job under way then (its worker killed, for a backend
/// stopped by the same token) is dropped, never reported as the backend's failure.
pub fn run_jobs(
    backend: &dyn Driven,
    jobs: &[Job<'_>],
    options: &CheckOptions,
    threads: usize,
    cancel: &Cancel,
    finished: &mut dyn FnMut(&Outcome),
) -> RunReport {
    run_jobs_retrying(backend, jobs, options, threads, cancel, None, finished)
}

/// Starts a backend of its own, a fresh process for an external worker: what a retry runs on.
pub(crate) type FreshBackend<'a> = &'a (dyn Fn() -> Result<Box<dyn Driven>, String> + Sync);

/// How a run retries a data set whose backend crashed or timed out: up to `max` more tries,
/// each on a backend `fresh` starts for that data set alone ([`settle`]).
#[derive(Clone, Copy)]
pub(crate) struct Retries<'a> {
    /// The most retries of one data set, at most [`MAX_RETRIES`](crate::judge::retry::MAX_RETRIES).
    pub(crate) max: u32,
    /// Starts the backend of one retry.
    pub(crate) fresh: FreshBackend<'a>,
}

/// [`run_jobs`], retrying crashed and timed-out data sets as `retries` says.
pub(crate) fn run_jobs_retrying(
    backend: &dyn Driven,
    jobs: &[Job<'_>],
    options: &CheckOptions,
    threads: usize,
    cancel: &Cancel,
    retries: Option<Retries<'_>>,
    finished: &mut dyn FnMut(&Outcome),
) -> RunReport {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    // One model per case directory, read once for all of the case's jobs.
    let mut slot_of_dir = HashMap::new();
    let slot_of_job: Vec<usize> = jobs
        .iter()
        .map(|job| {
            let next_slot = slot_of_dir.len();
            *slot_of_dir.entry(job.case.dir.as_path()).or_insert(next_slot)
        })
        .collect();
    let mut uses = vec![0; slot_of_dir.len()];
    for &slot in &slot_of_job {
        uses[slot] += 1;
    }
    let models: Vec<SharedModel> = uses.into_iter().map(SharedModel::new).collect();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        let (sender, done) = channel();
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            let (sender, next, models, slot_of_job) = (sender.clone(), &next, &models, &slot_of_job);
            scope.spawn(move || {
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let model =
                        models[slot_of_job[i]].get(job.case, &job.case.decode_options(options.max_tensor_bytes));
                    let mut outcome = check_data_set_with(backend, job.case, job.data_set, &model, options);
                    if let Some(retries) = retries.filter(|_| retryable(&outcome).is_some()) {
                        outcome = retry(backend.name(), job, &model, options, retries, outcome);
                    }
                    if cancel.is_cancelled() || sender.send((i, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut announced = 0;
        for (i, outcome) in done {
            outcomes[i] = Some(outcome);
            while let Some(Some(outcome)) = outcomes.get(announced) {
                finished(outcome);
                announced += 1;
            }
        }
        // Cancelled: the outcomes past a gap (a job dropped or never started) are kept but
        // were not streamed; they are reported with the rest.
        for outcome in outcomes.iter().skip(announced).flatten() {
            finished(outcome);
        }
    });
    RunReport {
        backend: backend.name().to_owned(),
        // Every job ran, unless the run was cancelled: then the ones that finished.
        outcomes: outcomes.into_iter().flatten().collect(),
        gates: Default::default(),
        duration: start.elapsed(),
        baseline: None,
        runtime: backend.runtime(),
        shard: None,
        run: None,
    }
}

/// The outcome of `job` after `first` crashed or timed out: each retry on a fresh backend,
/// its outputs' digest kept to compare tries.
fn retry(
    name: &str,
    job: &Job<'_>,
    model: &Result<crate::model::Model, crate::case::CaseError>,
    options: &CheckOptions,
    retries: Retries<'_>,
    first: Outcome,
) -> Outcome {
    let options = CheckOptions {
        digest_answers: true,
        ..options.clone()
    };
    settle(first, retries.max, &options.gating, || match (retries.fresh)() {
        Ok(fresh) => check_data_set_with(fresh.as_ref(), job.case, job.data_set, model, &options),
        Err(e) => {
            let verdict = Verdict::Failed {
                failure: Failure::Runner,
                detail: format!("starting a fresh backend to retry the data set: {e}"),
                must_refuse: false,
            };
            Outcome::unanswered(job.case, job.data_set, verdict, &options.gating, name)
        }
    })
}
