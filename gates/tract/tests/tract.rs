//! The regression gate of tract-onnx: every vendored data set through tract, judged by
//! pad-conformance's harness against tract.known-failures.json.
//!
//! tract builds a typed, optimized plan before it runs, and its Pad needs `pads`,
//! `constant_value` and `axes` as constants to know the output shape. So tract.profile.toml
//! gives those inputs the form `initializer`: the harness hands tract a model in which each
//! data set's values of those inputs are initializers, and feeds the data alone. That fixes them per data set, as an application with constant pads would;
//! it tests nothing of tract's handling of pads computed at run time.
//!
//! `cargo test -p gate-tract` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=tract.known-failures.json cargo test -p gate-tract`.

use pad_conformance::{Backend, BackendError, BackendFailure, Harness, Model, Profile, Tensor, Worker};
use tract_onnx::prelude::{
    DatumType, Framework, InferenceFact, InferenceModelExt, IntoRunnable, TValue, TVec, Tensor as TractTensor,
    TractResult, f16, tract_ndarray,
};

struct Tract;

impl Backend for Tract {
    fn name(&self) -> &str {
        "tract-onnx 0.23.9"
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
        outputs.iter().map(|output| from_tract(output)).collect()
    }
}

/// tract's errors are refusals (the data set must be refused, or tract cannot do it); its
/// panics are caught by the harness and are errors.
fn refusal(error: tract_onnx::prelude::TractError) -> BackendError {
    format!("{error:#}").into()
}

fn to_tract(tensor: &Tensor) -> Result<TractTensor, BackendError> {
    fn plain<T: tract_onnx::prelude::Datum + Copy>(shape: &[usize], values: &[T]) -> TractResult<TractTensor> {
        TractTensor::from_shape(shape, values)
    }
    let shape = tensor.shape();
    let converted = match tensor {
        Tensor::Float(_) => plain(shape, tensor.as_slice::<f32>().unwrap()),
        Tensor::Double(_) => plain(shape, tensor.as_slice::<f64>().unwrap()),
        Tensor::Int8(_) => plain(shape, tensor.as_slice::<i8>().unwrap()),
        Tensor::Int16(_) => plain(shape, tensor.as_slice::<i16>().unwrap()),
        Tensor::Int32(_) => plain(shape, tensor.as_slice::<i32>().unwrap()),
        Tensor::Int64(_) => plain(shape, tensor.as_slice::<i64>().unwrap()),
        Tensor::Uint8(_) => plain(shape, tensor.as_slice::<u8>().unwrap()),
        Tensor::Uint16(_) => plain(shape, tensor.as_slice::<u16>().unwrap()),
        Tensor::Uint32(_) => plain(shape, tensor.as_slice::<u32>().unwrap()),
        Tensor::Uint64(_) => plain(shape, tensor.as_slice::<u64>().unwrap()),
        Tensor::Bool(_) => plain(shape, tensor.as_slice::<bool>().unwrap()),
        Tensor::Float16(array) => {
            let bits: Vec<f16> = array.iter().map(|x| f16::from_bits(x.to_bits())).collect();
            plain(shape, &bits)
        }
        Tensor::String(array) => {
            let strings = array
                .iter()
                .map(|s| String::from_utf8(s.clone()))
                .collect::<Result<Vec<String>, _>>()
                .map_err(|e| BackendFailure(format!("tract strings are UTF-8; this input is not: {e}")))?;
            let array = tract_ndarray::ArrayD::from_shape_vec(shape, strings)
                .map_err(|e| BackendFailure(format!("string input of shape {shape:?}: {e}")))?;
            Ok(TractTensor::from(array))
        }
        // tract-onnx is built without tract's `complex` feature, and has no bfloat16,
        // float8, float4 or sub-byte types: a refusal of the data set (the profile keeps
        // these out of the gate).
        other => return Err(format!("tract has no element type {}", other.data_type()).into()),
    };
    converted.map_err(|e| BackendFailure(format!("converting {} to tract: {e:#}", tensor.describe())).into())
}

fn from_tract(output: &TValue) -> Result<Tensor, BackendError> {
    let failure = |e: tract_onnx::prelude::TractError| -> BackendError { Box::new(BackendFailure(format!("{e:#}"))) };
    let view = output.try_as_plain_ram().map_err(failure)?;
    let shape = view.shape().to_vec();
    fn vec<T: tract_onnx::prelude::Datum + Clone>(view: &tract_onnx::prelude::PlainView) -> TractResult<Vec<T>> {
        Ok(view.as_slice::<T>()?.to_vec())
    }
    let tensor = match view.datum_type() {
        DatumType::F32 => Tensor::from_vec(&shape, vec::<f32>(&view).map_err(failure)?),
        DatumType::F64 => Tensor::from_vec(&shape, vec::<f64>(&view).map_err(failure)?),
        DatumType::I8 => Tensor::from_vec(&shape, vec::<i8>(&view).map_err(failure)?),
        DatumType::I16 => Tensor::from_vec(&shape, vec::<i16>(&view).map_err(failure)?),
        DatumType::I32 => Tensor::from_vec(&shape, vec::<i32>(&view).map_err(failure)?),
        DatumType::I64 => Tensor::from_vec(&shape, vec::<i64>(&view).map_err(failure)?),
        DatumType::U8 => Tensor::from_vec(&shape, vec::<u8>(&view).map_err(failure)?),
        DatumType::U16 => Tensor::from_vec(&shape, vec::<u16>(&view).map_err(failure)?),
        DatumType::U32 => Tensor::from_vec(&shape, vec::<u32>(&view).map_err(failure)?),
        DatumType::U64 => Tensor::from_vec(&shape, vec::<u64>(&view).map_err(failure)?),
        DatumType::Bool => Tensor::from_vec(&shape, vec::<bool>(&view).map_err(failure)?),
        DatumType::F16 => {
            let values = vec::<f16>(&view).map_err(failure)?;
            Tensor::from_vec(
                &shape,
                values
                    .iter()
                    .map(|x| pad_conformance::half::f16::from_bits(x.to_bits()))
                    .collect(),
            )
        }
        DatumType::String => {
            let values = vec::<String>(&view).map_err(failure)?;
            Tensor::from_vec(&shape, values.into_iter().map(String::into_bytes).collect())
        }
        other => {
            return Err(Box::new(BackendFailure(format!(
                "tract answered with element type {other:?}"
            ))));
        }
    };
    tensor.map_err(|e| Box::new(BackendFailure(format!("tract's output of shape {shape:?}: {e}"))) as BackendError)
}

/// With the argument `worker`, serves the backend as an external worker (for
/// `pad-conformance matrix`, scripts/gates-matrix); otherwise runs the gate.
fn main() {
    if std::env::args().nth(1).as_deref() == Some("worker") {
        if let Err(e) = Worker::new(Tract).inputs_as_constants().serve() {
            eprintln!("{e}");
            std::process::exit(3);
        }
        return;
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    let profile = Profile::read(format!("{dir}/tract.profile.toml").as_ref()).expect("reading tract.profile.toml");
    Harness::new(Tract)
        .isolate()
        .profile(profile)
        .baseline(format!("{dir}/tract.known-failures.json"))
        .run();
}
