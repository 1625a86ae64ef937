//! The regression gate of candle-onnx: every vendored data set through
//! `candle_onnx::simple_eval`, judged by pad-conformance's harness against
//! candle.known-failures.json.
//!
//! candle-onnx reads model.onnx itself and takes the inputs by name. It represents
//! tensor(bool) as u8 (`candle_onnx::dtype`), so a u8 answer where the graph declares a bool
//! output is read back as bool; that is the only conversion the gate makes.
//!
//! `cargo test -p gate-candle` runs it (debug profile: .ci/run's). Record the baseline with
//! `PAD_CONFORMANCE_WRITE_BASELINE=candle.known-failures.json cargo test -p gate-candle`.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor as CandleTensor};
use pad_conformance::half::{bf16, f16};
use pad_conformance::{Backend, BackendError, BackendFailure, DataType, Harness, Model, Profile, Tensor, Worker};

struct Candle;

impl Backend for Candle {
    fn name(&self) -> &str {
        "candle-onnx 0.11.1"
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

fn to_candle(tensor: &Tensor) -> Result<CandleTensor, BackendError> {
    let dtype = match tensor.data_type() {
        DataType::Float => DType::F32,
        DataType::Double => DType::F64,
        DataType::Float16 => DType::F16,
        DataType::Bfloat16 => DType::BF16,
        DataType::Uint8 | DataType::Bool => DType::U8,
        DataType::Uint32 => DType::U32,
        DataType::Int16 => DType::I16,
        DataType::Int32 => DType::I32,
        DataType::Int64 => DType::I64,
        other => return Err(format!("candle has no element type {other}").into()),
    };
    let bytes = tensor
        .raw_bytes()
        .map_err(|e| BackendFailure(format!("encoding {}: {e}", tensor.describe())))?;
    CandleTensor::from_raw_buffer(&bytes, dtype, tensor.shape(), &Device::Cpu)
        .map_err(|e| BackendFailure(format!("converting {} to candle: {e}", tensor.describe())).into())
}

fn from_candle(output: &CandleTensor, declared: Option<DataType>) -> Result<Tensor, BackendError> {
    let failure =
        |e: candle_core::Error| -> BackendError { Box::new(BackendFailure(format!("reading candle's output: {e}"))) };
    let shape = output.dims().to_vec();
    let flat = output.flatten_all().map_err(failure)?;
    let tensor = match output.dtype() {
        DType::U8 if declared == Some(DataType::Bool) => {
            let values = flat.to_vec1::<u8>().map_err(failure)?;
            if values.iter().any(|&v| v > 1) {
                return Err(Box::new(BackendFailure(format!(
                    "candle answered a bool output with u8 values {values:?}"
                ))));
            }
            Tensor::from_vec(&shape, values.into_iter().map(|v| v == 1).collect())
        }
        DType::U8 => Tensor::from_vec(&shape, flat.to_vec1::<u8>().map_err(failure)?),
        DType::U32 => Tensor::from_vec(&shape, flat.to_vec1::<u32>().map_err(failure)?),
        DType::I16 => Tensor::from_vec(&shape, flat.to_vec1::<i16>().map_err(failure)?),
        DType::I32 => Tensor::from_vec(&shape, flat.to_vec1::<i32>().map_err(failure)?),
        DType::I64 => Tensor::from_vec(&shape, flat.to_vec1::<i64>().map_err(failure)?),
        DType::F32 => Tensor::from_vec(&shape, flat.to_vec1::<f32>().map_err(failure)?),
        DType::F64 => Tensor::from_vec(&shape, flat.to_vec1::<f64>().map_err(failure)?),
        DType::F16 => {
            // candle-core and pad-conformance share half 2.x: the same f16 and bf16 types.
            Tensor::from_vec(&shape, flat.to_vec1::<f16>().map_err(failure)?)
        }
        DType::BF16 => Tensor::from_vec(&shape, flat.to_vec1::<bf16>().map_err(failure)?),
        other => {
            return Err(Box::new(BackendFailure(format!(
                "candle answered with element type {other:?}"
            ))));
        }
    };
    tensor.map_err(|e| Box::new(BackendFailure(format!("candle's output of shape {shape:?}: {e}"))) as BackendError)
}

/// With the argument `worker`, serves the backend as an external worker (for
/// `pad-conformance matrix`, scripts/gates-matrix); otherwise runs the gate.
fn main() {
    if std::env::args().nth(1).as_deref() == Some("worker") {
        if let Err(e) = Worker::new(Candle).serve() {
            eprintln!("{e}");
            std::process::exit(3);
        }
        return;
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    let profile = Profile::read(format!("{dir}/candle.profile.toml").as_ref()).expect("reading candle.profile.toml");
    Harness::new(Candle)
        .isolate()
        .profile(profile)
        .baseline(format!("{dir}/candle.known-failures.json"))
        .run();
}
