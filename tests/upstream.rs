//! Every vendored case, upstream and extended, as its own test against the reference backend,
//! which must reproduce each expected output bit for bit.

use pad_conformance::backend::RefBackend;
use pad_conformance::gate::harness::Harness;
use pad_conformance::judge::check::CheckOptions;
use pad_conformance::judge::compare::Tolerance;

fn main() {
    let exact = CheckOptions {
        tolerance: Tolerance {
            exact: true,
            ..Tolerance::default()
        },
        ..CheckOptions::default()
    };
    Harness::new(RefBackend)
        .root(concat!(env!("CARGO_MANIFEST_DIR"), "/onnx-testdata"))
        .options(exact)
        .run();
}
