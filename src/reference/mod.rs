//! The `ref` backend's computation: Pad at every version, CenterCropPad, com.microsoft Pad
//! and the helper ops of the CenterCropPad function body. docs/semantics.md is its specification.

mod budget;
mod center_crop_pad;
mod graph;
mod helper_ops;
mod pad;
pub mod pad_kernel;
mod stream_copy;
#[cfg(test)]
mod tests;

pub use budget::{Budget, MAX_RUN_BYTES};
pub use center_crop_pad::run_center_crop_pad;
pub use graph::{RunError, run_model, run_model_within, run_node};
pub use pad::{pad_tensor, run_pad};
#[cfg(target_arch = "x86_64")]
pub use stream_copy::{StreamWriter, extend_streaming};
