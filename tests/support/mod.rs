//! Helpers shared by the integration tests; each test file that uses them says `mod support;`.
// Every test crate compiles all of the helpers and uses some.
#![allow(dead_code)]

pub mod files;
pub mod manifest;
pub mod python;
pub mod trials;
