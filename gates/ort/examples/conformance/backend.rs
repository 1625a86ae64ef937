//! onnxruntime as a `Backend`, through the `ort` crate: one `ort::session::Session` per data
//! set. The shared library is the one the onnxruntime wheel in .venv/ ships
//! (`.venv/lib/python3.*/site-packages/onnxruntime/capi/libonnxruntime.so.*`, installed by
//! scripts/setup-python), so this gate and the Python worker (scripts/backends/onnxruntime-worker)
//! run the same onnxruntime build; `ORT_DYLIB_PATH` names another. onnxruntime has every ONNX
//! element type, so the conversions copy ONNX's raw layout both ways, nothing narrowed.

use std::path::{Path, PathBuf};

use ort::memory::Allocator;
use ort::session::{Session, SessionInputValue};
use ort::value::{DynTensor, DynValue, Tensor as OrtTensor, TensorElementType, ValueType};
use pad_conformance::{
    Backend, BackendError, BackendFailure, BackendUnsupported, DataType, Model, RuntimeInfo, Tensor,
};

pub struct Onnxruntime {
    name: String,
    runtime: RuntimeInfo,
    environment: ort::environment::Environment,
}

impl Backend for Onnxruntime {
    fn name(&self) -> &str {
        &self.name
    }

    /// The onnxruntime library loaded, by its version; the ort crate (as Cargo.lock pins it,
    /// build.rs) as its build.
    fn runtime(&self) -> Option<RuntimeInfo> {
        Some(self.runtime.clone())
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        // One session per data set, as the Python worker makes one InferenceSession per data
        // set; single-threaded, as the worker's results do not depend on threads either.
        let builder = Session::builder(&self.environment).map_err(failure)?;
        let mut builder = builder
            .with_intra_threads(1)
            .map_err(|e| failure(ort::Error::new(e.to_string())))?;
        let mut session = builder.commit_from_file(&model.path).map_err(refusal)?;
        let mut values: Vec<(String, SessionInputValue<'_>)> = Vec::new();
        for (name, input) in model.graph.inputs.iter().zip(inputs) {
            values.push((name.clone(), to_ort(input)?.into()));
        }
        let outputs = session.run(values).map_err(refusal)?;
        model
            .graph
            .outputs
            .iter()
            .map(|name| {
                let value = outputs
                    .get(name)
                    .ok_or_else(|| BackendFailure(format!("onnxruntime returned no output {name:?}")))?;
                from_ort(value)
            })
            .collect()
    }
}

/// onnxruntime's errors — a model it does not load, a run it fails — are refusals, as the
/// Python worker reports its exceptions.
fn refusal(error: ort::Error) -> BackendError {
    error.to_string().into()
}

fn failure(error: ort::Error) -> BackendError {
    BackendFailure(error.to_string()).into()
}

/// The ONNX element type's counterpart: the same numbering, so one table each way.
const ELEMENT_TYPES: [(DataType, TensorElementType); 25] = [
    (DataType::Float, TensorElementType::Float32),
    (DataType::Uint8, TensorElementType::Uint8),
    (DataType::Int8, TensorElementType::Int8),
    (DataType::Uint16, TensorElementType::Uint16),
    (DataType::Int16, TensorElementType::Int16),
    (DataType::Int32, TensorElementType::Int32),
    (DataType::Int64, TensorElementType::Int64),
    (DataType::String, TensorElementType::String),
    (DataType::Bool, TensorElementType::Bool),
    (DataType::Float16, TensorElementType::Float16),
    (DataType::Double, TensorElementType::Float64),
    (DataType::Uint32, TensorElementType::Uint32),
    (DataType::Uint64, TensorElementType::Uint64),
    (DataType::Complex64, TensorElementType::Complex64),
    (DataType::Complex128, TensorElementType::Complex128),
    (DataType::Bfloat16, TensorElementType::Bfloat16),
    (DataType::Float8E4M3FN, TensorElementType::Float8E4M3FN),
    (DataType::Float8E4M3FNUZ, TensorElementType::Float8E4M3FNUZ),
    (DataType::Float8E5M2, TensorElementType::Float8E5M2),
    (DataType::Float8E5M2FNUZ, TensorElementType::Float8E5M2FNUZ),
    (DataType::Uint4, TensorElementType::Uint4),
    (DataType::Int4, TensorElementType::Int4),
    (DataType::Float4E2M1, TensorElementType::Float4E2M1),
    (DataType::Uint2, TensorElementType::Uint2),
    (DataType::Int2, TensorElementType::Int2),
];

fn to_ort(tensor: &Tensor) -> Result<DynValue, BackendError> {
    let shape: Vec<i64> = tensor.shape().iter().map(|&d| d as i64).collect();
    if tensor.data_type() == DataType::String {
        // ort passes strings as UTF-8: another string makes the data set unsupported.
        let strings = tensor.to_strings()?;
        return Ok(OrtTensor::from_string_array((shape, strings.as_slice()))
            .map_err(failure)?
            .into_dyn());
    }
    let element = ELEMENT_TYPES
        .iter()
        .find(|(dtype, _)| *dtype == tensor.data_type())
        .map(|(_, element)| *element)
        .ok_or_else(|| BackendUnsupported(format!("ort has no element type {}", tensor.data_type())))?;
    // Every element type but string has a raw layout.
    let bytes = tensor.raw_bytes().map_err(|e| BackendFailure(e.to_string()))?;
    let mut value = DynTensor::new(&Allocator::default(), element, shape).map_err(failure)?;
    if !bytes.is_empty() {
        // SAFETY: the tensor was just allocated on the CPU for this element type and shape,
        // which hold exactly raw_bytes' length (ONNX raw_data layout, sub-byte types packed
        // as onnxruntime packs them).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value.data_ptr_mut().cast::<u8>(), bytes.len()) };
    }
    Ok(value.into_dyn())
}

/// onnxruntime's output in the element type it came in: every ONNX type has its own in
/// onnxruntime (the table above), so no conversion is undone, and an answer of another type is
/// judged in it.
fn from_ort(value: &DynValue) -> Result<Tensor, BackendError> {
    let ValueType::Tensor { ty, shape, .. } = value.dtype() else {
        return Err(BackendFailure(format!("onnxruntime answered a {:?}, not a tensor", value.dtype())).into());
    };
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let dtype = ELEMENT_TYPES
        .iter()
        .find(|(_, element)| element == ty)
        .map(|(dtype, _)| *dtype)
        .ok_or_else(|| BackendFailure(format!("onnxruntime answered element type {ty:?}")))?;
    let read = |e: pad_conformance::TensorError| -> BackendError {
        BackendFailure(format!("reading onnxruntime's {dtype} output of shape {dims:?}: {e}")).into()
    };
    if dtype == DataType::String {
        let (_, strings) = value.try_extract_strings().map_err(failure)?;
        return Ok(Tensor::from_strings(&dims, strings)?);
    }
    let len = ty.byte_size(dims.iter().product()).unwrap_or(0);
    let tensor = value
        .view()
        .downcast::<ort::value::DynTensorValueType>()
        .map_err(failure)?;
    let bytes = if len == 0 {
        Vec::new()
    } else {
        // SAFETY: a CPU tensor of `ty` and `shape` holds `byte_size` bytes at its data pointer.
        unsafe { std::slice::from_raw_parts(tensor.data_ptr().cast::<u8>(), len).to_vec() }
    };
    Tensor::from_raw(dtype, &dims, &bytes).map_err(read)
}

/// `ORT_DYLIB_PATH`, else the library in the onnxruntime wheel of the repository's .venv/.
fn library() -> PathBuf {
    if let Some(path) = std::env::var_os("ORT_DYLIB_PATH") {
        return path.into();
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/lib");
    let found = std::fs::read_dir(&venv)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .find_map(|python| {
            let capi = python.path().join("site-packages/onnxruntime/capi");
            std::fs::read_dir(capi).ok()?.flatten().map(|f| f.path()).find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libonnxruntime.so.1"))
            })
        });
    found.unwrap_or_else(|| {
        panic!(
            "no libonnxruntime.so.1.* under {}/python3.*/site-packages/onnxruntime/capi: run scripts/setup-python, \
             or set ORT_DYLIB_PATH",
            venv.display()
        )
    })
}

impl Onnxruntime {
    /// onnxruntime from `library()`, named by the version in the library's file name.
    pub fn load() -> Onnxruntime {
        let library = library();
        let version = library
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("libonnxruntime.so."))
            .unwrap_or("(ORT_DYLIB_PATH)")
            .to_owned();
        let environment = ort::init_from(&library)
            .unwrap_or_else(|e| panic!("loading {}: {e}", library.display()))
            .with_name("pad-conformance")
            .build()
            .unwrap_or_else(|e| panic!("creating an onnxruntime environment from {}: {e}", library.display()));
        Onnxruntime {
            name: format!("onnxruntime {version} (ort)"),
            runtime: RuntimeInfo::new("onnxruntime")
                .version(version)
                .build(concat!("through ort ", env!("RUNTIME_CRATE_VERSION")))
                .device("CPUExecutionProvider"),
            environment,
        }
    }
}
