//! The regression gate of onnxruntime through the `ort` crate: every vendored data set through
//! it, judged by pad-conformance's harness against ort.known-failures.json, in the layout of
//! docs/gating.md (an example that `cargo test` runs). It runs within the Python worker's
//! profile, baselines/onnxruntime.profile.toml, so that the two baselines can be compared line
//! for line (tests/agrees_with_worker.rs).
//!
//! `cargo test -p gate-ort` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=ort.known-failures.json cargo test -p gate-ort --example conformance-ort`.
//! Given `worker`, it serves the backend to the command line
//! (`exec:target/debug/examples/conformance-ort worker`).

mod backend; // onnxruntime through ort as a `Backend`

use pad_conformance::{Harness, Profile, Worker};

fn main() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let onnxruntime = backend::Onnxruntime::load();
    if std::env::args().nth(1).as_deref() == Some("worker") {
        return Worker::new(onnxruntime).serve().unwrap_or_else(|e| panic!("{e}"));
    }
    let profile = Profile::read(format!("{dir}/../../baselines/onnxruntime.profile.toml").as_ref())
        .unwrap_or_else(|e| panic!("{e}"));
    Harness::new(onnxruntime)
        .isolate()
        .profile(profile)
        .strict_rules()
        .baseline(format!("{dir}/ort.known-failures.json"))
        .run();
}
