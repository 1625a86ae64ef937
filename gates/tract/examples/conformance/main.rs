//! The regression gate of tract-onnx: every vendored data set through it, judged by
//! pad-conformance's harness within tract.profile.toml against tract.known-failures.json, in the
//! layout of docs/gating.md (an example that `cargo test` runs).
//!
//! `cargo test -p gate-tract` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=tract.known-failures.json cargo test -p gate-tract`.
//! Given `worker`, it serves the backend to the command line
//! (`exec:target/debug/examples/conformance-tract worker`).

mod backend; // tract-onnx as a `Backend`

use pad_conformance::{Harness, Profile, Worker};

fn main() {
    let dir = env!("CARGO_MANIFEST_DIR");
    if std::env::args().nth(1).as_deref() == Some("worker") {
        return Worker::new(backend::Tract)
            .inputs_as_constants()
            .serve()
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let profile = Profile::read(format!("{dir}/tract.profile.toml").as_ref()).unwrap_or_else(|e| panic!("{e}"));
    Harness::new(backend::Tract)
        .isolate()
        .profile(profile)
        .strict_rules()
        .baseline(format!("{dir}/tract.known-failures.json"))
        .run();
}
