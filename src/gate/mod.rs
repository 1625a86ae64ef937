//! The gate: known failures ([`baseline`]) and the libtest harness a backend's own
//! `cargo test` runs ([`harness`]).

pub mod baseline;
pub mod harness;
