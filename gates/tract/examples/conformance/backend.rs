//! tract-onnx as a `Backend`. tract builds a typed, optimized plan before it runs, and its Pad
//! needs `pads`, `constant_value` and `axes` as constants to know the output shape. So
//! tract.profile.toml gives those inputs the form `initializer`: the harness hands tract a
//! model in which each data set's values of those inputs are initializers, and feeds the data
//! alone. That fixes them per data set, as an application with constant pads would; it tests
//! nothing of tract's handling of pads computed at run time. tract holds every element type it
//! reads in one of its own, so the conversions are typed copies, nothing narrowed.

use pad_conformance::{
    Backend, BackendError, BackendFailure, BackendUnsupported, DataType, Element, Model, RuntimeInfo, Tensor,
};
use tract_onnx::prelude::{
    Datum, DatumType, Framework, InferenceFact, InferenceModelExt, IntoRunnable, PlainView, TValue, TVec,
    Tensor as TractTensor, f16, tract_ndarray,
};

pub struct Tract;

impl Backend for Tract {
    fn name(&self) -> &str {
        concat!("tract-onnx ", env!("RUNTIME_CRATE_VERSION"))
    }

    /// The crate's version as Cargo.lock pins it (build.rs).
    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(RuntimeInfo::new("tract-onnx").version(env!("RUNTIME_CRATE_VERSION")))
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let mut graph = tract_onnx::onnx().model_for_path(&model.path).map_err(refusal)?;
        let mut values: TVec<TValue> = TVec::new();
        for (index, input) in inputs.iter().enumerate() {
            let tensor = to_tract(input)?;
            graph = graph
                .with_input_fact(index, InferenceFact::dt_shape(tensor.datum_type(), tensor.shape()))
                .map_err(refusal)?;
            values.push(tensor.into());
        }
        let plan = graph
            .into_optimized()
            .and_then(|typed| typed.into_runnable())
            .map_err(refusal)?;
        let outputs = plan.run(values).map_err(refusal)?;
        outputs.iter().map(from_tract).collect()
    }
}

/// tract's errors are refusals (the data set must be refused, or tract cannot do it); its
/// panics are caught by the harness and are errors.
fn refusal(error: tract_onnx::prelude::TractError) -> BackendError {
    format!("{error:#}").into()
}

fn failure(error: tract_onnx::prelude::TractError) -> BackendError {
    BackendFailure(format!("{error:#}")).into()
}

/// tract and pad-conformance share half 2.x (one `f16`); tract's strings are `String`.
fn to_tract(tensor: &Tensor) -> Result<TractTensor, BackendError> {
    fn plain<T: Element + Datum + Copy>(tensor: &Tensor) -> Result<TractTensor, BackendError> {
        TractTensor::from_shape(tensor.shape(), &tensor.to_vec::<T>()?).map_err(failure)
    }
    match tensor.data_type() {
        DataType::Float => plain::<f32>(tensor),
        DataType::Double => plain::<f64>(tensor),
        DataType::Float16 => plain::<f16>(tensor),
        DataType::Int8 => plain::<i8>(tensor),
        DataType::Int16 => plain::<i16>(tensor),
        DataType::Int32 => plain::<i32>(tensor),
        DataType::Int64 => plain::<i64>(tensor),
        DataType::Uint8 => plain::<u8>(tensor),
        DataType::Uint16 => plain::<u16>(tensor),
        DataType::Uint32 => plain::<u32>(tensor),
        DataType::Uint64 => plain::<u64>(tensor),
        DataType::Bool => plain::<bool>(tensor),
        DataType::String => Ok(tract_ndarray::ArrayD::from_shape_vec(tensor.shape(), tensor.to_strings()?)?.into()),
        // tract-onnx is built without tract's `complex` feature, and has no bfloat16, float8,
        // float4 or sub-byte types (the profile keeps these out of the gate).
        other => Err(BackendUnsupported(format!("tract has no element type {other}")).into()),
    }
}

/// tract's output in the element type it came in: tract holds every ONNX type it reads in a
/// type of its own, so no conversion is undone, and an answer of another type is judged in it.
fn from_tract(output: &TValue) -> Result<Tensor, BackendError> {
    fn plain<T: Element + Datum>(view: &PlainView) -> Result<Tensor, BackendError> {
        Ok(Tensor::from_vec(
            view.shape(),
            view.as_slice::<T>().map_err(failure)?.to_vec(),
        )?)
    }
    let view = output.try_as_plain_ram().map_err(failure)?;
    match view.datum_type() {
        DatumType::F32 => plain::<f32>(&view),
        DatumType::F64 => plain::<f64>(&view),
        DatumType::F16 => plain::<f16>(&view),
        DatumType::I8 => plain::<i8>(&view),
        DatumType::I16 => plain::<i16>(&view),
        DatumType::I32 => plain::<i32>(&view),
        DatumType::I64 => plain::<i64>(&view),
        DatumType::U8 => plain::<u8>(&view),
        DatumType::U16 => plain::<u16>(&view),
        DatumType::U32 => plain::<u32>(&view),
        DatumType::U64 => plain::<u64>(&view),
        DatumType::Bool => plain::<bool>(&view),
        DatumType::String => Ok(Tensor::from_strings(
            view.shape(),
            view.as_slice::<String>().map_err(failure)?.to_vec(),
        )?),
        other => Err(BackendFailure(format!("tract answered with element type {other:?}")).into()),
    }
}
