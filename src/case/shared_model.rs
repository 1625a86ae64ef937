//! A case's model, decoded once and shared by the data sets of the case: a model of many
//! megabytes with thousands of data sets is read once, not once per data set, and dropped
//! once its last data set has taken it.

use std::sync::{Arc, Mutex};

use crate::case::{CaseError, TestCase};
use crate::model::Model;
use crate::tensor::DecodeOptions;

/// What [`TestCase::runnable_model`] gave, shared.
pub(crate) type ModelResult = Arc<Result<Model, CaseError>>;

/// One case's model, read on first use and kept for a known number of uses.
#[derive(Debug)]
pub(crate) struct SharedModel {
    slot: Mutex<Slot>,
}

#[derive(Debug)]
struct Slot {
    model: Option<ModelResult>,
    uses_left: usize,
    reads: usize,
}

impl SharedModel {
    /// A model that `uses` data sets will take; after the last, it is dropped (a later use
    /// reads it again).
    pub(crate) fn new(uses: usize) -> SharedModel {
        SharedModel {
            slot: Mutex::new(Slot {
                model: None,
                uses_left: uses,
                reads: 0,
            }),
        }
    }

    /// The case's model, read with `options` on the first call. Concurrent callers wait for
    /// that one read instead of each reading the file.
    pub(crate) fn get(&self, case: &TestCase, options: &DecodeOptions) -> ModelResult {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let model = match &slot.model {
            Some(model) => Arc::clone(model),
            None => {
                slot.reads += 1;
                Arc::new(case.runnable_model(options))
            }
        };
        slot.uses_left = slot.uses_left.saturating_sub(1);
        slot.model = (slot.uses_left > 0).then(|| Arc::clone(&model));
        model
    }

    /// How many times model.onnx was read: 1 for a case whose data sets all ran.
    #[cfg(test)]
    pub(crate) fn reads(&self) -> usize {
        self.slot.lock().unwrap_or_else(|e| e.into_inner()).reads
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::case::ListingProblem;

    #[test]
    fn a_model_is_read_once_for_all_its_uses_then_dropped() {
        let case = TestCase {
            id: "c".into(),
            dir: PathBuf::from("/nonexistent/c"),
            data_sets: Vec::new(),
            problem: Some(ListingProblem::Unreadable {
                path: PathBuf::from("/nonexistent/c"),
                source: Arc::new(std::io::Error::other("gone")),
            }),
            basis: crate::data::basis::BasisNote::upstream(),
            info: None,
            twin: None,
        };
        let shared = SharedModel::new(3);
        let options = DecodeOptions::default();
        let first = shared.get(&case, &options);
        let second = shared.get(&case, &options);
        let third = shared.get(&case, &options);
        assert!(Arc::ptr_eq(&first, &second) && Arc::ptr_eq(&second, &third));
        assert_eq!(shared.reads(), 1);
        assert!(matches!(&*first, Err(CaseError::Listing(_))));
        // Past its uses the slot holds nothing: only the callers' copies keep it alive.
        assert_eq!(Arc::strong_count(&first), 3);
        let fourth = shared.get(&case, &options);
        assert!(!Arc::ptr_eq(&first, &fourth));
        assert_eq!(shared.reads(), 2);
    }
}
