//! The `ref` backend's computation: Pad at every version, CenterCropPad, com.microsoft Pad
//! and the helper ops of the CenterCropPad function body. docs/semantics.md is its specification.

mod budget;
mod center_crop_pad;
mod graph;
mod helper_ops;
mod pad;
// The kernel itself: for the tool's benchmarks.
pub(crate) mod pad_kernel;
mod stream_copy;
#[cfg(test)]
mod tests;

pub(crate) use graph::RunError;
pub(crate) use graph::run_model;
// For the cargo-fuzz targets (fuzz/): the reference within a small memory budget.
#[cfg(target_arch = "x86_64")]
pub(crate) use stream_copy::extend_streaming;
pub use {budget::Budget, graph::run_model_within};
#[cfg(test)]
use {center_crop_pad::run_center_crop_pad, graph::run_node, pad::run_pad};
