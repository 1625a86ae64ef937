//! The regression gate of rten: every vendored data set through rten, which reads .onnx files
//! itself, judged by pad-conformance's harness against rten.known-failures.json.
//!
//! rten computes in four element types only (f32, i32, i8, u8). Its ONNX loader converts the
//! others it accepts as it loads a model — double and float16 to f32, int64 (saturating) and
//! bool to i32 — and declares the graph's inputs of those types as f32 and i32. Its profile
//! declares that narrowing (`[storage]`), so a data set holding a double beyond f32 or an
//! int64 beyond i32 is unsupported (value range) before rten runs. This gate feeds every
//! other data set's inputs converted by the same rules, as an application using rten must
//! (which loses nothing then), and reads each output back as the element type the graph
//! declares.
//!
//! `cargo test -p gate-rten` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=rten.known-failures.json cargo test -p gate-rten`.

use pad_conformance::half::f16;
use pad_conformance::{
    Backend, BackendError, BackendFailure, BackendUnsupported, DataType, Element, Harness, Model, Profile, RuntimeInfo,
    Tensor, Worker,
};
use rten::{Value, ValueOrView};
use rten_tensor::{AsView, Layout};

struct Rten;

impl Backend for Rten {
    fn name(&self) -> &str {
        concat!("rten ", env!("RUNTIME_CRATE_VERSION"))
    }

    /// The crate's version as Cargo.lock pins it (build.rs).
    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(
            RuntimeInfo::new("rten")
                .version(env!("RUNTIME_CRATE_VERSION"))
                .device("CPU"),
        )
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let loaded = rten::Model::load_file(&model.path).map_err(|e| refusal(&e))?;
        let node = |name: &str| {
            loaded
                .find_node(name)
                .ok_or_else(|| -> BackendError { BackendFailure(format!("rten has no node {name:?}")).into() })
        };
        let mut fed: Vec<(rten::NodeId, ValueOrView)> = Vec::new();
        for (name, tensor) in model.graph.inputs.iter().zip(inputs) {
            fed.push((node(name)?, to_rten(tensor)?.into()));
        }
        let wanted = model
            .graph
            .outputs
            .iter()
            .map(|name| node(name))
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = loaded.run(fed, &wanted, None).map_err(|e| refusal(&e))?;
        outputs
            .into_iter()
            .zip(&model.graph.output_types)
            .map(|(value, declared)| from_rten(value, declared.data_type))
            .collect()
    }
}

/// rten's errors — a model it does not load, a run it fails — are refusals; its panics are
/// caught by the harness and are errors.
fn refusal(error: &dyn std::fmt::Display) -> BackendError {
    error.to_string().into()
}

fn failure(message: String) -> BackendError {
    BackendFailure(message).into()
}

fn value<T>(shape: &[usize], data: Vec<T>) -> Result<Value, BackendError>
where
    Value: From<rten_tensor::Tensor<T>>,
{
    Value::from_shape(shape, data).map_err(|e| failure(e.to_string()))
}

/// A data set's tensor as rten takes it: by the conversions rten's loader makes for the same
/// element type in a model.
fn to_rten(tensor: &Tensor) -> Result<Value, BackendError> {
    fn read<T: Element>(tensor: &Tensor) -> Result<Vec<T>, BackendError> {
        Ok(tensor.to_vec::<T>()?)
    }
    let shape = tensor.shape();
    match tensor.data_type() {
        DataType::Float => value(shape, read::<f32>(tensor)?),
        DataType::Double => value(shape, read::<f64>(tensor)?.into_iter().map(|x| x as f32).collect()),
        DataType::Float16 => value(shape, read::<f16>(tensor)?.into_iter().map(f32::from).collect()),
        DataType::Int32 => value(shape, read::<i32>(tensor)?),
        DataType::Int64 => value(
            shape,
            read::<i64>(tensor)?
                .into_iter()
                .map(|x| x.clamp(i32::MIN.into(), i32::MAX.into()) as i32)
                .collect(),
        ),
        DataType::Bool => value(shape, read::<bool>(tensor)?.into_iter().map(i32::from).collect()),
        DataType::Int8 => value(shape, read::<i8>(tensor)?),
        DataType::Uint8 => value(shape, read::<u8>(tensor)?),
        other => Err(BackendUnsupported(format!(
            "rten has no element type {other} (it computes in f32, i32, i8 and u8)"
        ))
        .into()),
    }
}

/// rten's output in the element type it came in, widened back only along the narrowings
/// `to_rten` made (rten's own loader makes the same ones for a model's tensors): f32 to a
/// declared double or float16, i32 to a declared int64, and i32 of 0s and 1s to a declared
/// bool. An answer in any other element type goes back as it came and is judged in it (a
/// mismatch of element type); a blanket cast to the declared type would pass it.
fn from_rten(output: Value, declared: Option<DataType>) -> Result<Tensor, BackendError> {
    let shape: Vec<usize> = output.shape().to_vec();
    let made = match (output, declared) {
        // float16 and double are computed in f32.
        (Value::FloatTensor(t), Some(DataType::Double)) => {
            Tensor::from_vec(&shape, t.into_data().into_iter().map(f64::from).collect())
        }
        (Value::FloatTensor(t), Some(DataType::Float16)) => {
            Tensor::from_vec(&shape, t.into_data().into_iter().map(f16::from_f32).collect())
        }
        // int64 is computed in i32.
        (Value::Int32Tensor(t), Some(DataType::Int64)) => {
            Tensor::from_vec(&shape, t.into_data().into_iter().map(i64::from).collect())
        }
        // bool is computed in i32: only a 0 or a 1 reads back as a bool.
        (Value::Int32Tensor(t), Some(DataType::Bool)) if t.iter().all(|&x| x == 0 || x == 1) => {
            Tensor::from_vec(&shape, t.into_data().into_iter().map(|x| x == 1).collect())
        }
        (Value::FloatTensor(t), _) => Tensor::from_vec(&shape, t.into_data()),
        (Value::Int32Tensor(t), _) => Tensor::from_vec(&shape, t.into_data()),
        (Value::Int8Tensor(t), _) => Tensor::from_vec(&shape, t.into_data()),
        (Value::UInt8Tensor(t), _) => Tensor::from_vec(&shape, t.into_data()),
        (other, _) => return Err(failure(format!("rten answered a {:?}, not a tensor", other.dtype()))),
    };
    Ok(made?)
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("worker") {
        if let Err(e) = Worker::new(Rten).serve() {
            eprintln!("{e}");
            std::process::exit(3);
        }
        return;
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    let profile = Profile::read(format!("{dir}/rten.profile.toml").as_ref()).expect("reading rten.profile.toml");
    Harness::new(Rten)
        .isolate()
        .profile(profile)
        .baseline(format!("{dir}/rten.known-failures.json"))
        .run();
}
