//! The memory one evaluation may take: every value a node produces is sized from its inputs'
//! shapes and checked against the per-value limits and what is left of the run's budget
//! *before* it is allocated, for every op the evaluator runs (docs/semantics.md#limits).

use super::pad_kernel::{MAX_OUTPUT_BYTES, MAX_OUTPUT_ELEMENTS, nonzero_extents_fit};
use crate::model::Node;
use crate::operators::OpError;
use crate::operators::Rule;
use crate::tensor::Tensor;

/// The most memory, in bytes, all the values one run of a model produces may take together
/// (each one is also held to [`MAX_OUTPUT_BYTES`] and [`MAX_OUTPUT_ELEMENTS`]).
pub(crate) const MAX_RUN_BYTES: usize = 1 << 32;

/// What is left of one run's memory.
#[derive(Clone, Debug)]
pub struct Budget {
    remaining: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            remaining: MAX_RUN_BYTES,
        }
    }
}

impl Budget {
    /// A budget of `bytes` for a whole run.
    pub fn new(bytes: usize) -> Budget {
        Budget { remaining: bytes }
    }

    /// What is left.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Checks, before allocating, that `node` may produce a value of `shape` at
    /// `element_bytes` an element. `from` says which inputs the size comes from, for the
    /// message (`input 0 (data) [2, 3] and input 1 (indices) [1048576]`). A shape whose size
    /// overflows is refused the same way.
    pub fn check(&self, node: &Node, shape: &[usize], element_bytes: usize, from: &str) -> Result<(), OpError> {
        let elements = shape.iter().try_fold(1u128, |n, &d| n.checked_mul(d as u128));
        let bytes = elements.and_then(|n| n.checked_mul(element_bytes.max(1) as u128));
        let limit = self.remaining.min(MAX_OUTPUT_BYTES);
        let describe = |n: Option<u128>| n.map_or_else(|| "more than 2^128".to_owned(), |n| n.to_string());
        match (elements, bytes) {
            (Some(e), Some(b))
                if e <= MAX_OUTPUT_ELEMENTS as u128 && b <= limit as u128 && nonzero_extents_fit(shape) =>
            {
                Ok(())
            }
            (e, b) => Err(OpError::new(
                node,
                Rule::Limit,
                format!(
                    "output shape {shape:?} from {from} has {} elements taking {} bytes, over the limit of {} elements and {limit} bytes{}",
                    describe(e),
                    describe(b),
                    MAX_OUTPUT_ELEMENTS,
                    if limit < MAX_OUTPUT_BYTES {
                        " (what is left of the run's memory budget)"
                    } else {
                        ""
                    },
                ),
            )),
        }
    }

    /// Records a value a node produced.
    pub fn spend(&mut self, tensor: &Tensor) {
        let bytes = tensor.len().saturating_mul(tensor.max_element_bytes());
        self.remaining = self.remaining.saturating_sub(bytes);
    }
}
