//! A downstream backend's conformance gate, as a crate would write it in tests/ with
//! `harness = false`: implement `Backend`, point the harness at the data and a baseline of
//! known failures, and every case becomes a trial of `cargo test`.
//!
//! The toy backend pads in constant mode only (borrowing the reference kernel, on tensors held
//! in its own few element types) and refuses the other modes; toy_backend.baseline.json lists those refusals, so the gate passes, and
//! fails as soon as a listed case starts passing or an unlisted one fails.
//!
//! Given the argument `worker`, the same program serves the backend as an external worker,
//! so the command line's verbs run it from a path that does not change
//! (docs/gating.md#the-command-line-against-your-backend):
//!
//! ```sh
//! cargo build --example toy_backend
//! pad-conformance --backend "exec:target/debug/examples/toy_backend worker" onnx-testdata/onnx-1.22.0 \
//!     --baseline examples/toy_backend.baseline.json
//! ```

use pad_conformance::{
    AttributeValue, Backend, BackendError, ConversionError, DataType, Harness, Model, Profile, RefBackend, Tensor,
    Worker,
};

struct ConstantOnly;

impl Backend for ConstantOnly {
    fn name(&self) -> &str {
        "constant-only"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        for node in &model.graph.nodes {
            if let Some(AttributeValue::String(mode)) = node.attribute("mode")
                && mode != b"constant"
            {
                return Err(format!("mode {} is not implemented", String::from_utf8_lossy(mode)).into());
            }
        }
        let held = inputs.iter().map(held).collect::<Result<Vec<_>, _>>()?;
        RefBackend.run(model, &held)
    }
}

/// The toy holds tensors in the few element types a small runtime has: int64 as int32,
/// double as float, anything else but int32, uint8 and bool as float. `Tensor::cast` narrows
/// and widens back; an element type with no conversion (float8, string) makes the data set
/// unsupported, never a refusal. The profile in `main` declares the two narrowings, so a data
/// set holding an int64 beyond int32 or a double that is no float is unsupported before the
/// toy runs, and every other one loses nothing here.
fn held(input: &Tensor) -> Result<Tensor, ConversionError> {
    let own = match input.data_type() {
        DataType::Int64 | DataType::Int32 => DataType::Int32,
        DataType::Uint8 | DataType::Bool => input.data_type(),
        _ => DataType::Float,
    };
    input.cast(own)?.cast(input.data_type())
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("worker") {
        if let Err(e) = Worker::new(ConstantOnly).serve() {
            eprintln!("{e}");
            std::process::exit(3);
        }
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let storage = Profile::everything()
        .storage(DataType::Int64, DataType::Int32)
        .storage(DataType::Double, DataType::Float);
    Harness::new(ConstantOnly)
        .root(format!("{root}/onnx-testdata/onnx-1.22.0"))
        .profile(storage)
        .baseline(format!("{root}/examples/toy_backend.baseline.json"))
        .run();
}
