//! The `ref` backend's computation: Pad at every version, CenterCropPad, com.microsoft Pad
//! and the helper ops of the CenterCropPad function body. SEMANTICS.md is its specification.

mod center_crop_pad;
mod graph;
mod helper_ops;
mod pad;
pub mod pad_kernel;
mod regions;
mod stream_copy;
#[cfg(test)]
mod tests;

use std::fmt;

use crate::model::Node;

pub(crate) use center_crop_pad::centered_pads;
pub use center_crop_pad::{plan_center_crop_pad, run_center_crop_pad};
pub use graph::{RunError, run_model, run_node};
pub use pad::{PlannedPad, accepts_type, pad_tensor, plan_pad, run_pad};
pub use regions::pad_regions;

/// A node refused its inputs or attributes: names the node, the input and the value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct OpError {
    /// The node as messages name it: `Pad-19 "pad_node"`.
    pub node: String,
    pub message: String,
}

impl OpError {
    pub fn new(node: &Node, message: String) -> OpError {
        OpError {
            node: node.to_string(),
            message,
        }
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.node, self.message)
    }
}
