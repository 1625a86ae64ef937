//! pad-conformance: a file-based conformance suite and runner for ONNX's padding operators
//! (Pad 1–25, CenterCropPad 18, com.microsoft Pad).
//!
//! The data flow: [`case::discover`] finds test case directories; [`case::TestCase`] loads
//! their [`model::Model`] and the input and expected output [`Tensor`]s of each data set.
//!
//! A backend's own `cargo test` gates it with [`harness::Harness`], over the cases bundled
//! with this crate ([`data_dir`]).
#![warn(missing_docs)]

pub mod atomic_file;
pub mod backend;
pub mod baseline;
pub mod basis;
pub mod bench;
pub mod case;
pub mod case_info;
pub mod check;
pub mod compare;
pub mod constant_inputs;
pub mod corpus;
pub mod coverage;
pub mod data;
pub mod diff;
pub mod error;
pub mod failure_groups;
pub mod findings;
pub mod fuzz;
pub mod harness;
mod huge_pages;
pub mod json_file;
pub mod listing;
pub mod manifest;
pub mod matrix;
pub mod model;
pub mod operators;
pub mod opset;
pub mod profile;
pub mod proto;
pub mod reference;
pub mod report;
pub mod runner;
pub mod scoreboard;
pub mod selection;
pub mod shared_model;
pub mod tensor;
pub mod value_info;

pub use data::data_dir;
pub use error::Error;
// The crates whose types appear in the public API ([`Tensor`]'s storage, its element types),
// so a downstream crate uses the very versions this one does without pinning them.
pub use half;
pub use ndarray;
pub use num_complex;
pub use tensor::{DataType, Tensor};
