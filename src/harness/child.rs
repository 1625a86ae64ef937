//! The child side of [`Harness::isolate`]: a child process re-enters the gate's `main`, builds
//! the same harness, and serves the parent's requests, each case listed alone and its model
//! read once.

use std::path::PathBuf;
use std::sync::Mutex;

use super::quiet_panics::check_quietly;
use super::{Harness, isolate};
use crate::case::error::Error;
use crate::case::{Patterns, TestCase, discover, discover_in};
use crate::data::DataRoot;
use crate::judge::check::CheckOptions;
use crate::report::json_case::JsonCase;

impl Harness {
    /// The child side of [`isolate`](Harness::isolate): serves the parent's requests, each
    /// case listed alone and its model read once.
    pub(super) fn serve_child(&self) -> ! {
        let cases = Mutex::new(isolate::ChildCases::new());
        // The run's cases, discovered once as the parent did (a case listed alone would pay
        // for reading its corpus each time), by directory.
        let discovered: std::sync::OnceLock<std::collections::HashMap<PathBuf, TestCase>> = std::sync::OnceLock::new();
        let discover_all = || {
            let found = DataRoot::resolve(&self.roots)
                .map_err(Error::from)
                .and_then(|roots| discover_in(&roots, &Patterns::new(&self.patterns)?));
            found
                .unwrap_or_default()
                .into_iter()
                .map(|c| (c.dir.clone(), c))
                .collect()
        };
        let prepare = || {
            discovered.get_or_init(discover_all);
        };
        isolate::serve(prepare, |request| {
            let listed = cases
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&request.case_dir, || {
                    let all = discovered.get_or_init(discover_all);
                    let case = match all.get(&request.case_dir) {
                        Some(case) => case.clone(),
                        None => discover(std::slice::from_ref(&request.case_dir), &Patterns::new(&self.patterns)?)?
                            .into_iter()
                            .next()
                            .ok_or_else(|| Error::NoCases {
                                roots: vec![request.case_dir.clone()],
                            })?,
                    };
                    let model = case.runnable_model(&case.decode_options(self.options.max_tensor_bytes));
                    Ok::<_, Error>((case, model))
                });
            let (case, model) = match listed.as_deref() {
                Ok(listed) => listed,
                Err(e) => {
                    return isolate::Reply::NotFound(format!("the child process could not list the case: {e}"));
                }
            };
            if !case.job_indices().contains(&request.data_set) {
                return isolate::Reply::NotFound(format!(
                    "the child process found no data set {} in {}",
                    request.data_set,
                    request.case_dir.display()
                ));
            }
            let options = CheckOptions {
                digest_answers: request.digest,
                ..self.options.clone()
            };
            let outcome = check_quietly(self.backend.as_ref(), case, request.data_set, model, &options);
            isolate::Reply::Outcome {
                outcome: Box::new(JsonCase::of(&outcome, None)),
                panicked_at: outcome.panicked_at().map(str::to_owned),
            }
        })
    }
}
