//! Every vendored case, upstream and extended, as its own test against the reference backend,
//! which must reproduce each expected output bit for bit.

use pad_conformance::{Harness, RefBackend};

fn main() {
    // Every bit, NaN payloads included.
    Harness::new(RefBackend)
        .root(concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata"))
        .exact()
        .run();
}
