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
#![deny(missing_docs)]
#![warn(unreachable_pub)]
// What only the command line uses is dead in the library a gate compiles (no `cli` feature).
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

// Every module is private: the gate's API is what the crate root re-exports below, one path
// per item, and the compiler holds that line (`unreachable_pub`).
mod backend;
mod cancel;
mod case;
#[cfg(feature = "cli")]
mod cli;
mod data;
mod fuzz;
mod gate;
mod harness;
mod judge;
mod model;
mod operators;
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
    Backend, BackendError, BackendFailure, BackendUnsupported, CodedError, RefBackend, Refusal, RuntimeInfo,
    ServeError, Worker,
};
pub use data::basis::{Basis, Gating, GatingError};
pub use data::data_dir;
pub use harness::{Harness, HarnessError as Error};
pub use judge::compare::Tolerance;
pub use judge::profile::{InputLimits, InputRole, Profile, ProfileError};
pub use model::value_info::{Dim, ValueInfo};
pub use model::{Attribute, AttributeValue, Graph, Model, Node};
pub use operators::{ModeAttribute, OpVersion, PadMode, PadOp, Rule};
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
mod layers {
    use std::path::Path;

    /// Each layer's rank: a module may use its own rank and those below, never above.
    const RANKS: [(&str, u8); 19] = [
        ("text", 0),
        ("cancel", 0),
        ("data", 0),
        ("proto", 0),
        ("platform", 0),
        ("tensor", 1),
        ("model", 2),
        ("operators", 2),
        ("case", 3),
        ("reference", 4),
        ("backend", 4),
        ("judge", 5),
        ("gate", 6),
        ("report", 7),
        ("harness", 8),
        ("run", 8),
        ("fuzz", 9),
        ("testing", 10),
        ("cli", 10),
    ];

    fn rank(module: &str) -> Option<u8> {
        RANKS.iter().find(|(name, _)| *name == module).map(|(_, rank)| *rank)
    }

    /// Every `crate::layer` a file's code (not its comments, not its tests) names.
    fn uses(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        for line in text.lines() {
            let line = line.trim_start();
            if line.starts_with("#[cfg(test)]") {
                break;
            }
            if line.starts_with("//") {
                continue;
            }
            for (start, _) in line.match_indices("crate::") {
                let rest = &line[start + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                found.push(name);
            }
        }
        found
    }

    #[test]
    fn no_file_uses_a_layer_above_its_own() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut upward = Vec::new();
        let mut checked = 0;
        for entry in walkdir::WalkDir::new(&src) {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            // Windows separates with a backslash.
            let relative = relative.replace(std::path::MAIN_SEPARATOR, "/");
            let top = relative.split('/').next().unwrap().trim_end_matches(".rs");
            let Some(own) = rank(top) else { continue };
            if !relative.ends_with(".rs") || relative.ends_with("tests.rs") || relative.contains("/tests/") {
                continue;
            }
            checked += 1;
            for used in uses(&std::fs::read_to_string(entry.path()).unwrap()) {
                if rank(&used).is_some_and(|r| r > own) {
                    upward.push(format!("{relative} uses crate::{used}"));
                }
            }
        }
        assert!(checked > 50, "{checked} files checked");
        assert!(upward.is_empty(), "arrows pointing up:\n{}", upward.join("\n"));
        // The check itself sees an arrow when there is one.
        assert_eq!(uses("use crate::gate::baseline::Baseline;\n// crate::fuzz\n"), ["gate"]);
    }
}
