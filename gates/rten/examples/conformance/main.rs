//! The regression gate of rten: every vendored data set through rten, judged by
//! pad-conformance's harness within rten.profile.toml against rten.known-failures.json, in the
//! layout of docs/gating.md (an example that `cargo test` runs).
//!
//! `cargo test -p gate-rten` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=rten.known-failures.json cargo test -p gate-rten`.
//! Given `worker`, it serves the backend to the command line
//! (`exec:target/debug/examples/conformance-rten worker`).

mod backend; // rten as a `Backend`

use pad_conformance::{Harness, Profile, Worker};

fn main() {
    let dir = env!("CARGO_MANIFEST_DIR");
    if std::env::args().nth(1).as_deref() == Some("worker") {
        return Worker::new(backend::Rten).serve().unwrap_or_else(|e| panic!("{e}"));
    }
    let profile = Profile::read(format!("{dir}/rten.profile.toml").as_ref()).unwrap_or_else(|e| panic!("{e}"));
    Harness::new(backend::Rten)
        .isolate()
        .profile(profile)
        .strict_rules()
        .baseline(format!("{dir}/rten.known-failures.json"))
        .run();
}
