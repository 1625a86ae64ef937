//! rten as a `Backend`: rten reads the .onnx file itself and computes in four element types
//! only (f32, i32, i8, u8). Its ONNX loader converts the others it accepts as it loads a model
//! — double and float16 to f32, int64 (saturating) and bool to i32 — and declares the graph's
//! inputs of those types as f32 and i32, so the inputs go in converted by the same rules, as
//! an application using rten must, and each output comes back as the element type the graph
//! declares. The profile declares the narrowing (`[storage]`): a data set holding a double
//! beyond f32 or an int64 beyond i32 is unsupported before rten runs, and every other one
//! loses nothing here.

use pad_conformance::{
    Backend, BackendError, BackendFailure, BackendUnsupported, DataType, Element, Model, Overflow, RuntimeInfo, Tensor,
};
use rten::{Value, ValueOrView};
use rten_tensor::Layout;

pub struct Rten;

impl Backend for Rten {
    fn name(&self) -> &str {
        concat!("rten ", env!("RUNTIME_CRATE_VERSION"))
    }

    /// The crate's version as Cargo.lock pins it (build.rs), for reports and the scoreboard.
    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(
            RuntimeInfo::new("rten")
                .version(env!("RUNTIME_CRATE_VERSION"))
                .device("CPU"),
        )
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        // rten's errors — a model it does not load, a run it fails — are refusals: its error
        // kinds do not tell "not implemented" from "invalid" (the profile keeps out what it
        // lacks). Its panics are caught by the harness and are errors.
        let loaded = rten::Model::load_file(&model.path).map_err(|e| e.to_string())?;
        let node = |name: &str| {
            loaded
                .find_node(name)
                .ok_or_else(|| BackendFailure(format!("rten has no node {name:?}")))
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
        let outputs = loaded.run(fed, &wanted, None).map_err(|e| e.to_string())?;
        let declared = model.graph.output_types.iter().map(|t| t.data_type);
        outputs
            .into_iter()
            .zip(declared)
            .map(|(value, declared)| from_rten(value, declared))
            .collect()
    }
}

/// A data set's tensor in rten's element type for it, converted as rten's loader converts the
/// same type in a model: floats to f32, int64 (clamped) and bool to i32.
fn to_rten(tensor: &Tensor) -> Result<Value, BackendError> {
    match tensor.data_type() {
        DataType::Float | DataType::Double | DataType::Float16 => value::<f32>(&tensor.cast(DataType::Float)?),
        DataType::Int32 | DataType::Int64 | DataType::Bool => {
            value::<i32>(&tensor.cast_with(DataType::Int32, Overflow::Saturate)?)
        }
        DataType::Int8 => value::<i8>(tensor),
        DataType::Uint8 => value::<u8>(tensor),
        other => Err(BackendUnsupported(format!("rten has no element type {other}")).into()),
    }
}

fn value<T: Element>(tensor: &Tensor) -> Result<Value, BackendError>
where
    Value: From<rten_tensor::Tensor<T>>,
{
    Value::from_shape(tensor.shape(), tensor.to_vec::<T>()?).map_err(|e| BackendFailure(e.to_string()).into())
}

/// rten's output in the element type it came in, widened back only along the narrowings
/// `to_rten` made, each named: f32 to a declared double or float16, i32 to a declared int64,
/// and an i32 of 0s and 1s to a declared bool. Any other answer goes back as it came and is
/// judged in its own type (a blanket cast to the declared type would pass a wrong one).
fn from_rten(output: Value, declared: Option<DataType>) -> Result<Tensor, BackendError> {
    let shape = output.shape().to_vec();
    let tensor = match output {
        Value::FloatTensor(t) => Tensor::from_vec(&shape, t.into_data())?,
        Value::Int32Tensor(t) => Tensor::from_vec(&shape, t.into_data())?,
        Value::Int8Tensor(t) => Tensor::from_vec(&shape, t.into_data())?,
        Value::UInt8Tensor(t) => Tensor::from_vec(&shape, t.into_data())?,
        other => return Err(BackendFailure(format!("rten answered a {:?}, not a tensor", other.dtype())).into()),
    };
    let widened = match (tensor.data_type(), declared) {
        (DataType::Float, Some(to @ (DataType::Double | DataType::Float16))) => tensor.cast(to)?,
        (DataType::Int32, Some(DataType::Int64)) => tensor.cast(DataType::Int64)?,
        (DataType::Int32, Some(DataType::Bool))
            if tensor
                .as_slice::<i32>()
                .is_some_and(|v| v.iter().all(|&x| x == 0 || x == 1)) =>
        {
            tensor.cast(DataType::Bool)?
        }
        _ => tensor,
    };
    Ok(widened)
}
