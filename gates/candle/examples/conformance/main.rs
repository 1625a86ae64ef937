//! The regression gate of candle-onnx: every vendored data set through it, judged by
//! pad-conformance's harness within candle.profile.toml against candle.known-failures.json, in the
//! layout of docs/gating.md (an example that `cargo test` runs).
//!
//! `cargo test -p gate-candle` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=candle.known-failures.json cargo test -p gate-candle`.
//! Given `worker`, it serves the backend to the command line
//! (`exec:target/debug/examples/conformance-candle worker`).

mod backend; // candle-onnx as a `Backend`

use pad_conformance::{Harness, Profile, Worker};

fn main() {
    let dir = env!("CARGO_MANIFEST_DIR");
    if std::env::args().nth(1).as_deref() == Some("worker") {
        return Worker::new(backend::Candle).serve().unwrap_or_else(|e| panic!("{e}"));
    }
    let profile = Profile::read(format!("{dir}/candle.profile.toml").as_ref()).unwrap_or_else(|e| panic!("{e}"));
    Harness::new(backend::Candle)
        .isolate()
        .profile(profile)
        .strict_rules()
        .baseline(format!("{dir}/candle.known-failures.json"))
        .run();
}
