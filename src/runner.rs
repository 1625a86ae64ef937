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

/// Runs `jobs` on `threads` threads (at least one); outcomes come back in job order.
pub fn run_jobs(backend: &dyn Backend, jobs: &[Job<'_>], options: &CheckOptions, threads: usize) -> RunReport {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let outcome = check_data_set(backend, job.case, job.data_set, options);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(outcome);
                }
            });
        }
    });
    let outcomes = results.into_inner().unwrap_or_else(|e| e.into_inner());
    RunReport {
        backend: backend.name().to_owned(),
        outcomes: outcomes.into_iter().map(|o| o.expect("every job ran")).collect(),
        duration: start.elapsed(),
    }
}
