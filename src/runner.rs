//! Running a backend over many cases, in parallel, into a [`RunReport`].

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::backend::Backend;
use crate::case::TestCase;
use crate::check::{CheckOptions, Outcome, check_data_set};
use crate::report::RunReport;

/// One unit of work: a case and the index of one of its data sets.
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    pub case: &'a TestCase,
    pub data_set: usize,
}

impl Job<'_> {
    /// `onnx-1.22.0/node/test_wrap_pad/0`.
    pub fn name(&self) -> String {
        match self.case.data_sets.get(self.data_set) {
            Some(d) => format!("{}/{}", self.case.id, d.index),
            None => self.case.id.clone(),
        }
    }
}

/// Every case's data sets (a case without any still gets one job, which reports why).
pub fn jobs(cases: &[TestCase]) -> Vec<Job<'_>> {
    cases
        .iter()
        .flat_map(|case| (0..case.data_sets.len().max(1)).map(move |data_set| Job { case, data_set }))
        .collect()
}

/// Runs `jobs` on `threads` threads (at least one); outcomes come back in job order. Each
/// outcome is also handed to `finished` as soon as it and every job before it are done, so a
/// report can be written while the run goes on, in the same order.
pub fn run_jobs(
    backend: &dyn Backend,
    jobs: &[Job<'_>],
    options: &CheckOptions,
    threads: usize,
    finished: &(dyn Fn(&Outcome) + Sync),
) -> RunReport {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    // The outcomes so far, and how many of them, in order, `finished` has seen.
    let results: Mutex<(Vec<Option<Outcome>>, usize)> = Mutex::new((vec![None; jobs.len()], 0));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let outcome = check_data_set(backend, job.case, job.data_set, options);
                    let mut guard = results.lock().unwrap_or_else(|e| e.into_inner());
                    let (outcomes, announced) = &mut *guard;
                    outcomes[i] = Some(outcome);
                    while let Some(Some(outcome)) = outcomes.get(*announced) {
                        finished(outcome);
                        *announced += 1;
                    }
                }
            });
        }
    });
    let (outcomes, _) = results.into_inner().unwrap_or_else(|e| e.into_inner());
    RunReport {
        backend: backend.name().to_owned(),
        outcomes: outcomes.into_iter().map(|o| o.expect("every job ran")).collect(),
        duration: start.elapsed(),
    }
}
