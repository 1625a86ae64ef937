//! pad-conformance: a file-based conformance suite and runner for ONNX's padding operators
//! (Pad 1–25, CenterCropPad 18, com.microsoft Pad).
//!
//! The data flow: [`case::discover`] finds test case directories; [`case::TestCase`] loads
//! their [`model::Model`] and the input and expected output [`Tensor`]s of each data set.
#![warn(missing_docs)]

pub mod atomic_file;
pub mod backend;
pub mod baseline;
pub mod bench;
pub mod case;
pub mod check;
pub mod compare;
pub mod coverage;
pub mod error;
pub mod harness;
pub mod json_file;
pub mod listing;
pub mod matrix;
pub mod model;
pub mod operators;
pub mod opset;
pub mod proto;
pub mod reference;
pub mod report;
pub mod runner;
pub mod selection;
pub mod shared_model;
pub mod tensor;

pub use error::Error;
pub use tensor::{DataType, Tensor};
