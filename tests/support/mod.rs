//! Helpers shared by the integration tests: tests/it/main.rs and each test binary of its own
//! that uses them say `mod support;`.
// Every test crate compiles all of the helpers and uses some.
#![allow(dead_code)]

pub mod files;
// The fuzzer's shapes: the fuzzer is the command line's (feature `cli`).
#[cfg(feature = "cli")]
pub mod fuzz_shape;
pub mod good_case;
pub mod hanging_worker;
pub mod manifest;
pub mod python;
pub mod sh_worker;
pub mod trials;
pub mod untimed;
