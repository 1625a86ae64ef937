//! candle-onnx as a `Backend`, through `candle_onnx::simple_eval`: it reads model.onnx itself
//! and takes the inputs by name. It represents tensor(bool) as u8 (`candle_onnx::dtype`), so
//! a bool goes in as u8 and a u8 answer where the graph declares a bool output reads back as
//! bool; that is the only conversion the gate makes.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor as CandleTensor, WithDType};
use pad_conformance::half::{bf16, f16};
use pad_conformance::{
    Backend, BackendError, BackendFailure, BackendUnsupported, DataType, Element, Model, RuntimeInfo, Tensor,
};

pub struct Candle;

impl Backend for Candle {
    fn name(&self) -> &str {
        concat!("candle-onnx ", env!("RUNTIME_CRATE_VERSION"))
    }

    /// The crate's version as Cargo.lock pins it (build.rs).
    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(RuntimeInfo::new("candle-onnx").version(env!("RUNTIME_CRATE_VERSION")))
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let proto = candle_onnx::read_file(&model.path).map_err(refusal)?;
        let mut named = HashMap::new();
        for (name, input) in model.graph.inputs.iter().zip(inputs) {
            named.insert(name.clone(), to_candle(input)?);
        }
        let mut outputs = candle_onnx::simple_eval(&proto, named).map_err(refusal)?;
        model
            .graph
            .outputs
            .iter()
            .enumerate()
            .map(|(index, name)| {
                let output = outputs
                    .remove(name)
                    .ok_or_else(|| BackendFailure(format!("candle-onnx returned no output {name:?}")))?;
                let declared = model.graph.output_types.get(index).and_then(|info| info.data_type);
                from_candle(&output, declared)
            })
            .collect()
    }
}

/// candle's errors are refusals (the data set must be refused, or candle cannot do it);
/// its panics are caught by the harness and are errors.
fn refusal(error: candle_core::Error) -> BackendError {
    error.to_string().into()
}

fn failure(error: candle_core::Error) -> BackendError {
    BackendFailure(format!("candle: {error}")).into()
}

/// candle and pad-conformance share half 2.x (one `f16`, one `bf16`).
fn to_candle(tensor: &Tensor) -> Result<CandleTensor, BackendError> {
    fn typed<T: Element + WithDType>(tensor: &Tensor) -> Result<CandleTensor, BackendError> {
        CandleTensor::from_vec(tensor.to_vec::<T>()?, tensor.shape(), &Device::Cpu).map_err(failure)
    }
    match tensor.data_type() {
        DataType::Float => typed::<f32>(tensor),
        DataType::Double => typed::<f64>(tensor),
        DataType::Float16 => typed::<f16>(tensor),
        DataType::Bfloat16 => typed::<bf16>(tensor),
        DataType::Uint8 => typed::<u8>(tensor),
        DataType::Uint32 => typed::<u32>(tensor),
        DataType::Int16 => typed::<i16>(tensor),
        DataType::Int32 => typed::<i32>(tensor),
        DataType::Int64 => typed::<i64>(tensor),
        DataType::Bool => typed::<u8>(&tensor.cast(DataType::Uint8)?),
        other => Err(BackendUnsupported(format!("candle has no element type {other}")).into()),
    }
}

/// candle's output in the element type it came in. One conversion is undone, the one
/// `to_candle` makes: candle has no bool, so a bool goes in as a u8 and a u8 of 0s and 1s reads
/// back as a declared bool. Every other output keeps candle's type and is judged in it (a
/// blanket cast to the declared type would pass an answer of the wrong type).
fn from_candle(output: &CandleTensor, declared: Option<DataType>) -> Result<Tensor, BackendError> {
    fn typed<T: Element + WithDType>(output: &CandleTensor) -> Result<Tensor, BackendError> {
        let values = output
            .flatten_all()
            .and_then(|flat| flat.to_vec1::<T>())
            .map_err(failure)?;
        Ok(Tensor::from_vec(output.dims(), values)?)
    }
    match output.dtype() {
        // A bool is a u8 of 0 or 1; any other value is candle's own failure.
        DType::U8 if declared == Some(DataType::Bool) => match typed::<u8>(output)? {
            bytes if bytes.to_vec::<u8>()?.iter().all(|&v| v <= 1) => Ok(bytes.cast(DataType::Bool)?),
            bytes => Err(BackendFailure(format!("candle answered a bool output with {bytes:?}")).into()),
        },
        DType::U8 => typed::<u8>(output),
        DType::U32 => typed::<u32>(output),
        DType::I16 => typed::<i16>(output),
        DType::I32 => typed::<i32>(output),
        DType::I64 => typed::<i64>(output),
        DType::F32 => typed::<f32>(output),
        DType::F64 => typed::<f64>(output),
        DType::F16 => typed::<f16>(output),
        DType::BF16 => typed::<bf16>(output),
        other => Err(BackendFailure(format!("candle answered with element type {other:?}")).into()),
    }
}
