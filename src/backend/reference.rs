//! The `ref` backend: this project's reference implementation (docs/semantics.md).

use super::{Backend, BackendError, Driven, RuntimeInfo, Says};
use crate::model::Model;
use crate::reference::{RunError, run_model};
use crate::tensor::Tensor;

/// Evaluates models with the crate's reference evaluation (docs/semantics.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct RefBackend;

impl Backend for RefBackend {
    fn name(&self) -> &str {
        "ref"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        run_model(model, inputs).map_err(refusal)
    }

    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(RuntimeInfo::new("pad-conformance reference").version(env!("CARGO_PKG_VERSION")))
    }
}

impl Driven for RefBackend {
    /// It evaluates the loaded model.
    fn reads_model_file(&self) -> bool {
        false
    }
}

/// The reference's refusal: a node's names every rule it breaks, the first the one its
/// message states; a graph it cannot evaluate names none.
fn refusal(error: RunError) -> BackendError {
    let rules = match &error {
        RunError::Op(op) => op.rules(),
        _ => Vec::new(),
    };
    BackendError::new(Says::Refused { rules }, error.to_string())
}
