//! The integration tests that can share a process, as modules of one test binary: libtest
//! runs them all in parallel on every core, and a build links one binary instead of twenty.
//!
//! A test file joins as tests/it/NAME.rs with a `mod NAME;` line below (and `use
//! crate::support;` for the shared helpers). A test needs a binary of its own (tests/*.rs) only
//! when it cannot share the process: `harness = false` (upstream.rs, and processes/: main() is
//! also a worker or a gate), or process-wide state (kill_workers.rs:
//! `kill_worker_groups` ends every worker of the process). Select a file's tests by its module:
//! `cargo test --test it -- signals::`.

#[path = "../support/mod.rs"]
mod support;

mod adversarial;
mod baseline_upgrade;
mod bridging;
mod cli;
mod constant_inputs;
mod corpus;
mod decode;
mod discovery;
mod docs;
mod escaping;
mod example_worker;
mod extended_generator;
mod fuzz;
mod fuzz_encodings;
mod harness;
mod history;
// FIFOs, devices, sparse files, modes and names that are not UTF-8: Unix only.
#[cfg(unix)]
mod hostile_files;
mod manifest;
mod matrix_from_reports;
mod merge_profile;
mod onnx_export;
mod promote;
mod python_backends;
mod refusal_judgement;
// Its workers are sh scripts: Unix only.
#[cfg(unix)]
mod retries;
mod scoreboard_cli;
mod several_reports;
mod shards;
// Its worker is an sh script: Unix only.
#[cfg(unix)]
mod storage;
mod twins;
// SIGINT, SIGTERM and SIGHUP sent to the binary: Unix only (docs/development.md says what
// stands for it on Windows).
#[cfg(unix)]
mod signals;
