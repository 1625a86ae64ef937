//! pad-conformance: a file-based conformance suite and runner for ONNX's padding operators
//! (Pad 1–25, CenterCropPad 18, com.microsoft Pad), and the regression gate of any backend.
//!
//! A backend's own `cargo test` gates it: implement [`Backend`] (a name and one `run`), hand it
//! to a [`Harness`], and every bundled data set ([`data_dir`]) becomes a trial, judged against
//! a baseline of known failures (docs/gating.md):
//!
//! ```no_run
//! use pad_conformance::{Backend, BackendError, Harness, Model, Tensor};
//!
//! struct MyRuntime;
//!
//! impl Backend for MyRuntime {
//!     fn name(&self) -> &str {
//!         "my-runtime 0.1"
//!     }
//!     fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
//!         // Load `model.path` (or read `model.graph`), run it on `inputs`, return the outputs.
//!         # let _ = (model, inputs);
//!         Err("not implemented yet".into())
//!     }
//! }
//!
//! Harness::new(MyRuntime).baseline("my-runtime.known-failures.json").run();
//! ```
//!
//! What a gate uses is here at the crate root, one path per item: the backend side
//! ([`Backend`], [`Refusal`] by a [`Rule`], [`Worker`] to serve a backend to the command
//! line), the data ([`Tensor`], [`DataType`], [`Model`]), and the harness with what narrows
//! or judges a run ([`Profile`], [`Tolerance`], [`Gating`]). The command line, the runner
//! and the judge behind them are the crate's own.
//!
//! Features: a gate depends with `default-features = false` and turns on what it uses —
//! `junit`, the harness's JUnit XML report (`Harness::junit_report`); `embedded-corpus`, the
//! corpus inside the library. The default `cli` is the `pad-conformance` binary and its
//! fuzzer, and turns on both.
#![deny(missing_docs)]
#![warn(unreachable_pub)]
// The layers hold helpers that only the command line calls (the per-case backend, the report
// reader, `--filter`, baseline upgrades, …): dead in the library a gate compiles (no `cli`).
// What needs a dependency of its own is behind a feature instead (src/fuzz/, JUnit).
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

// Every module is private: the gate's API is what the crate root re-exports below, one path
// per item, and the compiler holds that line (`unreachable_pub`).
mod backend;
mod cancel;
mod case;
#[cfg(feature = "cli")]
mod cli;
mod data;
mod family;
// The differential fuzzer: only the command line's `fuzz` and `promote` run it.
#[cfg(feature = "cli")]
mod fuzz;
mod gate;
mod harness;
mod judge;
mod model;
mod operators;
mod pipeline;
mod platform;
pub(crate) mod proto;
mod reference;
mod report;
mod run;
mod tensor;
#[doc(hidden)]
pub mod testing;
mod text;

pub use backend::{
    Backend, BackendError, BackendFailure, BackendUnsupported, CodedError, ErrorKind, RefBackend, Refusal, RuntimeInfo,
    ServeError, Worker,
};
pub use data::basis::{Basis, Gating, GatingError};
pub use data::data_dir;
pub use data::parse_error::ParseError;
pub use family::{ModeAttribute, PadMode, PadOp};
pub use gate::config::ConfigNameError;
pub use harness::{BaselineError, CasesError, Harness, HarnessError as Error};
pub use judge::compare::Tolerance;
pub use judge::profile::{InputLimits, InputRole, Profile, ProfileError};
pub use model::value_info::{Dim, ValueInfo};
pub use model::{Attribute, AttributeValue, Graph, Model, Node};
pub use operators::{OpVersion, Rule};
pub use tensor::{
    ConversionError, DataType, Element, Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ,
    Float8E8M0, Int2, Int4, Overflow, Tensor, TensorError, Uint2, Uint4,
};
// The crates whose types a gate handles ([`Tensor`]'s storage and its element types), so it
// uses the very versions this one does without pinning them.
pub use half;
pub use ndarray;
pub use num_complex;

/// The `pad-conformance` command (feature `cli`): the binary's whole `main`.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn cli_main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(test)]
mod layers;
