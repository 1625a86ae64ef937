//! The `ref` backend: this project's reference implementation (docs/semantics.md).

use super::{Backend, BackendError, RuntimeInfo};
use crate::model::Model;
use crate::reference::run_model;
use crate::tensor::Tensor;

/// Evaluates models with the crate's reference evaluation (docs/semantics.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct RefBackend;

impl Backend for RefBackend {
    fn name(&self) -> &str {
        "ref"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        Ok(run_model(model, inputs)?)
    }

    fn reads_model_file(&self) -> bool {
        false
    }

    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(RuntimeInfo::new("pad-conformance reference").version(env!("CARGO_PKG_VERSION")))
    }
}
