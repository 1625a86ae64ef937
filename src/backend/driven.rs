//! A backend as the runner drives it: besides [`Backend`]'s name, run and runtime, two facts
//! that only this crate's own backends state — the reference reads no model file, an exec
//! worker may answer with a rewritten model — kept off the gate's trait. A gate's backend is
//! driven through [`Gate`], with the defaults.

use super::{Backend, BackendError, RuntimeInfo};
use crate::model::Model;
use crate::tensor::Tensor;

/// A backend as the runner, the judge and the fuzzer drive it. Not the gate's API (hidden, as
/// the `testing` module that reaches it is): the crate's backends implement it, and [`Gate`]
/// for any other.
#[doc(hidden)]
pub trait Driven: Backend {
    /// Whether the backend reads the file at `model.path` rather than only the loaded
    /// model: the fuzzer writes each generated model to disk only for backends that do.
    fn reads_model_file(&self) -> bool {
        true
    }

    /// Whether the outputs are the reference's evaluation of a model the backend rewrote (a
    /// graph optimizer served through the worker protocol's model replies): a mismatch is
    /// then the rewrite's. `false` (the default) for a backend that computes its outputs.
    fn answers_with_rewritten_model(&self) -> bool {
        false
    }
}

/// A gate's backend, driven with the defaults: it may read the model file, and it computes
/// its outputs.
pub(crate) struct Gate<B: ?Sized>(pub(crate) B);

impl<B: Backend + ?Sized> Backend for Gate<B> {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        self.0.run(model, inputs)
    }

    fn runtime(&self) -> Option<RuntimeInfo> {
        self.0.runtime()
    }
}

impl<B: Backend + ?Sized> Driven for Gate<B> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::RefBackend;

    /// The reference's facts survive being driven through a pointer; a gate's backend,
    /// even the reference handed to a harness, takes the defaults.
    #[test]
    fn a_gates_backend_takes_the_defaults_and_the_crates_own_keep_theirs() {
        let reference: Box<dyn Driven> = Box::new(RefBackend);
        assert!(!reference.reads_model_file());
        let borrowed: &dyn Driven = &&reference;
        assert!(!borrowed.reads_model_file());
        let gate = Gate(RefBackend);
        assert_eq!(gate.name(), "ref");
        assert!(gate.reads_model_file());
        assert!(!gate.answers_with_rewritten_model());
        assert_eq!(gate.runtime().map(|r| r.name), RefBackend.runtime().map(|r| r.name));
    }
}
