//! WORKER_MODE=node: the worker pads from the request's `node` and raw `input_tensors` alone —
//! it never opens model.onnx and decodes no protobuf — and answers a raw output object. It
//! proves the node description is enough to run a Pad (every mode, negative pads, axes;
//! float32 and int32 data). A graph of several nodes is `unsupported`, a mode the version does
//! not have is refused, as docs/backend-protocol.md tells a worker to do.

use std::path::Path;

use serde_json::{Value, json};

/// The reply to a `run` request, its output written in `out_dir`.
pub fn run(request: &Value, out_dir: &Path) -> Value {
    let id = request["id"].clone();
    let error = |kind: &str, message: String| json!({"type": "error", "id": id, "kind": kind, "message": message});
    let node = &request["node"];
    if node["graph"]["nodes"] != 1 {
        return error("unsupported", format!("a graph of {} nodes", node["graph"]["nodes"]));
    }
    let mode = node["mode"].as_str().unwrap_or("constant");
    let version = node["version"].as_i64().unwrap();
    if mode == "wrap" && version < 19 {
        return error("refused", format!("Pad-{version} has no mode wrap"));
    }
    let data = &request["input_tensors"][0];
    let shape: Vec<usize> = data["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let bytes = std::fs::read(data["path"].as_str().unwrap()).unwrap();
    let ints = |parameter: &Value| -> Option<Vec<i64>> {
        Some(
            parameter["value"]
                .as_array()?
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect(),
        )
    };
    let pads = ints(&node["pads"]).unwrap();
    let rank = shape.len() as i64;
    let axes: Vec<usize> = match ints(&node["axes"]) {
        Some(axes) => axes
            .iter()
            .map(|&a| (if a < 0 { a + rank } else { a }) as usize)
            .collect(),
        None => (0..shape.len()).collect(),
    };
    let mut per_axis = vec![(0, 0); shape.len()];
    for (i, &axis) in axes.iter().enumerate() {
        per_axis[axis] = (pads[i], pads[i + axes.len()]);
    }
    let constant = match &node["constant_value"]["value"]["value"] {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) if s == "nan" => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        _ => 0.0,
    };
    let dtype = data["dtype"].as_str().unwrap();
    let (out_shape, raw) = match dtype {
        "float32" => {
            let values: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let (shape, out) = pad(&values, &shape, &per_axis, mode, constant as f32);
            (shape, out.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
        }
        "int32" => {
            let values: Vec<i32> = bytes
                .chunks_exact(4)
                .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let (shape, out) = pad(&values, &shape, &per_axis, mode, constant as i32);
            (shape, out.iter().flat_map(|v| v.to_le_bytes()).collect())
        }
        other => return error("unsupported", format!("dtype {other}")),
    };
    let path = out_dir.join("output_0.bin");
    std::fs::write(&path, raw).unwrap();
    json!({"type": "result", "id": id, "outputs": [{"path": path, "dtype": dtype, "shape": out_shape}]})
}

/// Pads `values` of `shape`: each axis first cut by its negative pads, then padded by its
/// positive ones in `mode`.
fn pad<T: Copy>(
    values: &[T],
    shape: &[usize],
    per_axis: &[(i64, i64)],
    mode: &str,
    constant: T,
) -> (Vec<usize>, Vec<T>) {
    // Per axis: where the kept data starts, how long it is, and the padding before it.
    let axes: Vec<(usize, usize, usize)> = shape
        .iter()
        .zip(per_axis)
        .map(|(&n, &(begin, end))| {
            let start = (-begin).max(0) as usize;
            let kept = n as i64 - start as i64 - (-end).max(0);
            (start, kept.max(0) as usize, begin.max(0) as usize)
        })
        .collect();
    let out_shape: Vec<usize> = axes
        .iter()
        .zip(per_axis)
        .map(|(&(_, kept, before), &(_, end))| kept + before + end.max(0) as usize)
        .collect();
    let count: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(count);
    for flat in 0..count {
        let mut rest = flat;
        let mut source = 0;
        let mut inside = true;
        for axis in (0..shape.len()).rev() {
            let o = rest % out_shape[axis];
            rest /= out_shape[axis];
            let (start, kept, before) = axes[axis];
            let p = o as i64 - before as i64;
            let k = kept as i64;
            let q = if (0..k).contains(&p) {
                p
            } else {
                match mode {
                    "edge" => p.clamp(0, k - 1),
                    "wrap" => p.rem_euclid(k),
                    "reflect" if k == 1 => 0,
                    "reflect" => {
                        let period = 2 * (k - 1);
                        let r = p.rem_euclid(period);
                        if r < k { r } else { period - r }
                    }
                    _ => {
                        inside = false;
                        0
                    }
                }
            };
            let stride: usize = shape[axis + 1..].iter().product();
            source += (start + q as usize) * stride;
        }
        out.push(if inside { values[source] } else { constant });
    }
    (out_shape, out)
}
