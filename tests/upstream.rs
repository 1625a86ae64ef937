//! Every vendored case, upstream and extended, as its own test against the reference backend,
//! which must reproduce each expected output bit for bit.

use pad_conformance::backend::RefBackend;
use pad_conformance::harness::Harness;
use pad_conformance::judge::compare::Tolerance;

fn main() {
    let exact = Tolerance {
        exact: true,
        ..Tolerance::default()
    };
    Harness::new(RefBackend)
        .root(concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata"))
        .tolerance(exact)
        .run();
}
