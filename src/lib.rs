//! pad-conformance: a file-based conformance suite and runner for ONNX's padding operators
//! (Pad 1–25, CenterCropPad 18, com.microsoft Pad), and the regression gate of any backend.
//!
//! The layers, lowest first; each uses only those below it:
//! - `text`, [`data`], `proto`, [`cancel`]: safe text for reports; data roots, corpora,
//!   manifests and bases; the ONNX protobuf messages; the token that stops a run.
//! - [`tensor`]: ONNX's element types, tensor files decoded and encoded.
//! - [`model`], [`operators`]: model.onnx read, and the table of Pad-family operators.
//! - [`case`]: test cases discovered ([`case::discover`]) and loaded.
//! - [`reference`](mod@reference), [`backend`]: the reference evaluation, and what runs a model.
//! - [`judge`]: a data set checked against a backend ([`judge::check::check_data_set`]).
//! - [`gate`]: baselines of known failures, weighing each verdict into a gate result.
//! - [`report`]: reports of a run, every format written from one [`report::RunReport`].
//! - [`harness`], `run`: the libtest harness a backend's own `cargo test` runs
//!   ([`harness::Harness`]); many data sets checked on worker threads.
//! - [`fuzz`]: differential fuzzing with the reference as the oracle.
//!
//! A backend's own `cargo test` gates it with [`harness::Harness`], over the cases
//! bundled with this crate ([`data_dir`]).
#![deny(missing_docs)]

pub mod backend;
pub mod cancel;
pub mod case;
pub mod data;
pub mod fuzz;
pub mod gate;
pub mod harness;
pub mod judge;
pub mod model;
pub mod operators;
// The ONNX protobuf messages: for the tool, the tests and the fuzz targets, not the gate.
#[doc(hidden)]
pub mod proto;
pub mod reference;
pub mod report;
// Running many data sets on worker threads, and escaping text for terminals and tables: the
// machinery under the harness and the report writers, which the `pad-conformance` binary
// shares; not part of the gate's API.
#[doc(hidden)]
pub mod run;
pub mod tensor;
#[doc(hidden)]
pub mod text;

pub use backend::Backend;
pub use case::error::Error;
pub use data::data_dir;
pub use harness::Harness;
// The crates whose types appear in the public API ([`Tensor`]'s storage, its element types;
// the harness's trials and arguments), so a downstream crate uses the very versions this one
// does without pinning them. (Error sources from other crates are read through
// `std::error::Error`, never named.)
pub use half;
pub use libtest_mimic;
pub use ndarray;
pub use num_complex;
pub use tensor::{DataType, Tensor};

#[cfg(test)]
mod layers {
    use std::path::Path;

    /// Each layer's rank: a module may use its own rank and those below, never above.
    const RANKS: [(&str, u8); 16] = [
        ("text", 0),
        ("cancel", 0),
        ("data", 0),
        ("proto", 0),
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
