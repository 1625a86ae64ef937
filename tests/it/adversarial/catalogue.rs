//! The hostile inputs, each a case directory built from the good case with one thing broken,
//! and what its outcome must say.

use std::path::Path;

use pad_conformance::testing::{
    AttributeProto, GraphProto, ModelProto, NodeProto, StringStringEntryProto, TensorProto, ValueInfoProto,
};
use prost::Message;

use crate::support::files::copy_dir;
use crate::support::good_case::{copy_good, good_case_dir};

/// What a hostile case's outcomes must be.
pub enum Expect {
    /// Errored, the message holding every part.
    Errored(Vec<String>),
    /// Not applicable, the message holding every part.
    Skipped(Vec<String>),
    /// Nothing wrong with it after all (it must merely not hang or break the others).
    Passed,
}

pub struct Hostile {
    pub label: &'static str,
    pub build: Box<dyn Fn(&Path)>,
    pub expect: Expect,
}

fn errored(parts: &[&str]) -> Expect {
    Expect::Errored(parts.iter().map(|p| p.to_string()).collect())
}

fn h(label: &'static str, expect: Expect, build: impl Fn(&Path) + 'static) -> Hostile {
    Hostile {
        label,
        build: Box::new(build),
        expect,
    }
}

fn good_model() -> ModelProto {
    ModelProto::decode(&std::fs::read(good_case_dir().join("model.onnx")).unwrap()[..]).unwrap()
}

fn good_tensor(file: &str) -> TensorProto {
    TensorProto::decode(&std::fs::read(good_case_dir().join("test_data_set_0").join(file)).unwrap()[..]).unwrap()
}

/// The good case with model.onnx replaced by `bytes`.
fn with_model_bytes(dir: &Path, bytes: &[u8]) {
    copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
    std::fs::write(dir.join("model.onnx"), bytes).unwrap();
}

fn with_model(dir: &Path, model: &ModelProto) {
    with_model_bytes(dir, &model.encode_to_vec());
}

/// The good case with test_data_set_0/`file` replaced by `bytes`.
fn with_file_bytes(dir: &Path, file: &str, bytes: &[u8]) {
    copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
    std::fs::write(dir.join("test_data_set_0").join(file), bytes).unwrap();
}

fn with_tensor(dir: &Path, file: &str, tensor: &TensorProto) {
    with_file_bytes(dir, file, &tensor.encode_to_vec());
}

/// A good case whose input_0 is replaced by what `edit` makes of it.
fn input_edit(label: &'static str, expect: Expect, edit: impl Fn(&mut TensorProto) + 'static) -> Hostile {
    h(label, expect, move |dir| {
        let mut t = good_tensor("input_0.pb");
        edit(&mut t);
        with_tensor(dir, "input_0.pb", &t);
    })
}

/// A good case whose model is replaced by what `edit` makes of it.
fn model_edit(label: &'static str, expect: Expect, edit: impl Fn(&mut ModelProto) + 'static) -> Hostile {
    h(label, expect, move |dir| {
        let mut m = good_model();
        edit(&mut m);
        with_model(dir, &m);
    })
}

fn graph(m: &mut ModelProto) -> &mut GraphProto {
    m.graph.as_mut().unwrap()
}

fn node(op_type: &str, inputs: &[&str], outputs: &[&str], attribute: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        op_type: op_type.into(),
        attribute,
        ..Default::default()
    }
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i,
        r#type: 2,
        ..Default::default()
    }
}

fn ints_attr(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: ints.to_vec(),
        r#type: 7,
        ..Default::default()
    }
}

fn int64_initializer(name: &str, dims: &[i64], values: Vec<i64>) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: 7,
        int64_data: values,
        ..Default::default()
    }
}

/// The good graph with `nodes` computing `h` in front of Pad's data input (`x` → … → `h`).
fn helper_graph(
    label: &'static str,
    expect: Expect,
    nodes: impl Fn() -> Vec<NodeProto> + 'static,
    initializers: impl Fn() -> Vec<TensorProto> + 'static,
) -> Hostile {
    model_edit(label, expect, move |m| {
        let g = graph(m);
        g.node[0].input[0] = "h".into();
        let mut all = nodes();
        all.push(g.node[0].clone());
        g.node = all;
        g.initializer = initializers();
    })
}

fn external(location: &str, extra: &[(&str, &str)]) -> impl Fn(&mut TensorProto) + 'static {
    let mut entries = vec![("location".to_owned(), location.to_owned())];
    entries.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    move |t: &mut TensorProto| {
        t.raw_data = Default::default();
        t.data_location = 1;
        t.external_data = entries
            .iter()
            .map(|(key, value)| StringStringEntryProto {
                key: key.clone(),
                value: value.clone(),
            })
            .collect();
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) reads the NUL-terminated path only.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A deterministic byte stream (an LCG), for garbage files.
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect()
}

/// A GraphProto nested `depth` deep through node attributes (`g`), as raw protobuf bytes.
fn nested_graph_model(depth: usize) -> Vec<u8> {
    fn field(tag: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, &mut out);
        prost::encoding::encode_varint(payload.len() as u64, &mut out);
        out.extend_from_slice(payload);
        out
    }
    let mut graph = Vec::new();
    for _ in 0..depth {
        let attribute = field(6, &graph); // AttributeProto.g
        let node = field(5, &attribute); // NodeProto.attribute
        graph = field(1, &node); // GraphProto.node
    }
    let mut model = good_model().encode_to_vec();
    model.extend(field(7, &graph));
    model
}

pub fn all() -> Vec<Hostile> {
    let model_bytes = || std::fs::read(good_case_dir().join("model.onnx")).unwrap();
    let input_bytes = || std::fs::read(good_case_dir().join("test_data_set_0/input_0.pb")).unwrap();
    let mut all = Vec::new();

    // Protobuf corruption of model.onnx: truncations at every 8th byte.
    let len = model_bytes().len();
    for cut in (1..len).step_by(8) {
        all.push(h("model_truncated", errored(&["model.onnx"]), move |dir| {
            with_model_bytes(dir, &model_bytes()[..cut]);
        }));
    }
    // … and of input_0.pb.
    let len = input_bytes().len();
    for cut in (1..len).step_by(16) {
        all.push(h("input_truncated", errored(&["input_0.pb"]), move |dir| {
            with_file_bytes(dir, "input_0.pb", &input_bytes()[..cut]);
        }));
    }
    let appended = |label, suffix: &'static [u8], parts: &'static [&'static str]| {
        h(label, errored(parts), move |dir| {
            let mut bytes = std::fs::read(good_case_dir().join("model.onnx")).unwrap();
            bytes.extend_from_slice(suffix);
            with_model_bytes(dir, &bytes);
        })
    };
    all.push(appended(
        "overlong_varint",
        &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
        &["model.onnx", "malformed protobuf"],
    ));
    all.push(appended(
        "wrong_wire_type",
        &[0x3d, 1, 2, 3, 4],
        &["model.onnx", "malformed protobuf"],
    ));
    all.push(appended(
        "length_past_end",
        &[0x3a, 0xff, 0xff, 0x03, 1, 2],
        &["model.onnx", "malformed protobuf"],
    ));
    all.push(appended(
        "group_wire_type",
        &[0x3b],
        &["model.onnx", "malformed protobuf"],
    ));
    all.push(appended(
        "field_zero",
        &[0x00, 0x01],
        &["model.onnx", "malformed protobuf"],
    ));
    all.push(h(
        "nested_2000_deep",
        errored(&["model.onnx", "malformed protobuf"]),
        |dir| {
            with_model_bytes(dir, &nested_graph_model(2000));
        },
    ));
    all.push(h(
        "empty_model",
        errored(&["model.onnx", "the model has no graph"]),
        |dir| {
            with_model_bytes(dir, b"");
        },
    ));
    for seed in 0..8 {
        all.push(h("garbage_model", errored(&["model.onnx"]), move |dir| {
            with_model_bytes(dir, &garbage(seed, 200));
        }));
        all.push(h("garbage_input", errored(&["input_0.pb"]), move |dir| {
            with_file_bytes(dir, "input_0.pb", &garbage(seed + 100, 300));
        }));
    }
    all.push(h(
        "invalid_utf8_op_type",
        errored(&["model.onnx", "malformed protobuf"]),
        |dir| {
            let mut m = good_model();
            graph(&mut m).node[0].op_type = "PAD".into();
            let mut bytes = m.encode_to_vec();
            let at = bytes.windows(3).position(|w| w == b"PAD").unwrap();
            bytes[at] = 0xff;
            with_model_bytes(dir, &bytes);
        },
    ));

    // Semantic corruption of input_0.pb.
    all.push(input_edit(
        "data_type_99",
        errored(&["input_0.pb", "data_type 99"]),
        |t| t.data_type = 99,
    ));
    all.push(input_edit(
        "data_type_0",
        errored(&["input_0.pb", "data_type 0"]),
        |t| t.data_type = 0,
    ));
    all.push(input_edit(
        "data_type_negative",
        errored(&["input_0.pb", "data_type -5"]),
        |t| t.data_type = -5,
    ));
    all.push(input_edit(
        "negative_dim",
        errored(&["input_0.pb", "dims[1] is -3"]),
        |t| t.dims = vec![1, -3, 4, 5],
    ));
    all.push(input_edit(
        "overflowing_dims",
        errored(&["input_0.pb", "overflow"]),
        |t| t.dims = vec![i64::MAX, i64::MAX, 4],
    ));
    all.push(input_edit(
        "huge_dims",
        errored(&["input_0.pb", "over the limit"]),
        |t| t.dims = vec![1 << 40],
    ));
    all.push(input_edit(
        "raw_data_short",
        errored(&["input_0.pb", "raw_data holds 240 bytes"]),
        |t| t.dims = vec![1, 3, 4, 6],
    ));
    all.push(input_edit(
        "raw_and_typed",
        errored(&["input_0.pb", "both raw_data and int32_data"]),
        |t| t.int32_data = vec![1; 60],
    ));
    all.push(input_edit(
        "typed_length",
        errored(&["input_0.pb", "int32_data holds 3 values"]),
        |t| {
            t.raw_data = Default::default();
            t.int32_data = vec![1, 2, 3];
        },
    ));
    all.push(input_edit(
        "uint8_out_of_range",
        errored(&["input_0.pb", "int32_data[0] is 300"]),
        |t| {
            t.data_type = 2;
            t.dims = vec![2];
            t.raw_data = Default::default();
            t.int32_data = vec![300, 1];
        },
    ));
    all.push(input_edit(
        "bool_out_of_range",
        errored(&["input_0.pb", "is 2, out of range for bool"]),
        |t| {
            t.data_type = 9;
            t.dims = vec![1];
            t.raw_data = Default::default();
            t.int32_data = vec![2];
        },
    ));
    all.push(input_edit(
        "int4_odd_length",
        errored(&["input_0.pb", "raw_data holds 1 bytes but dims [3] of int4 need 2"]),
        |t| {
            t.data_type = 22;
            t.dims = vec![3];
            t.raw_data = Some(vec![0x12].into());
        },
    ));
    all.push(input_edit(
        "int2_odd_length",
        errored(&["input_0.pb", "raw_data holds 3 bytes but dims [5] of int2 need 2"]),
        |t| {
            t.data_type = 26;
            t.dims = vec![5];
            t.raw_data = Some(vec![0, 0, 0].into());
        },
    ));
    all.push(input_edit(
        "string_in_raw",
        errored(&[
            "input_0.pb",
            "raw_data and external data are not allowed for tensor(string)",
        ]),
        |t| {
            t.data_type = 8;
        },
    ));
    all.push(input_edit("segment", errored(&["input_0.pb", "segment is set"]), |t| {
        t.segment = Some(pad_conformance::testing::Segment { begin: 0, end: 1 })
    }));
    all.push(input_edit(
        "rank_2000",
        errored(&["input_0.pb", "dims has 2000 entries, over the limit of 1024 axes"]),
        |t| {
            t.dims = vec![1; 2000];
            t.raw_data = Some(vec![0; 4].into());
        },
    ));
    all.push(input_edit(
        "rank_1000",
        errored(&["Pad-25", "input 1 (pads) holds 8 values", "2 × 1000 axes"]),
        |t| {
            t.dims = vec![1; 1000];
            t.raw_data = Some(vec![0; 4].into());
        },
    ));
    all.push(h("pads_int32", errored(&["Pad-25", "input 1 (pads)"]), |dir| {
        let mut t = good_tensor("input_1.pb");
        t.data_type = 6;
        t.raw_data = Default::default();
        t.int32_data = vec![0; 8];
        with_tensor(dir, "input_1.pb", &t);
    }));
    all.push(h("pads_huge", errored(&["Pad-25", "exceeds the limit"]), |dir| {
        let mut t = good_tensor("input_1.pb");
        t.raw_data = Default::default();
        t.int64_data = vec![0, 0, 0, 0, 0, 0, i64::MAX, i64::MAX];
        with_tensor(dir, "input_1.pb", &t);
    }));
    all.push(h("pads_negative_extent", errored(&["Pad-25", "below 0"]), |dir| {
        let mut t = good_tensor("input_1.pb");
        t.raw_data = Default::default();
        t.int64_data = vec![0, 0, -9, 0, 0, 0, 0, 0];
        with_tensor(dir, "input_1.pb", &t);
    }));

    // External data escapes.
    all.push(input_edit(
        "ext_dotdot",
        errored(&["input_0.pb", "external data location \"../x\""]),
        external("../x", &[]),
    ));
    all.push(input_edit(
        "ext_absolute",
        errored(&["input_0.pb", "external data location \"/etc/passwd\""]),
        external("/etc/passwd", &[]),
    ));
    all.push(input_edit(
        "ext_empty",
        errored(&["input_0.pb", "external data location \"\""]),
        external("", &[]),
    ));
    #[cfg(unix)]
    all.push(h("ext_symlink_out", errored(&["input_0.pb", "out.bin"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("out.bin", &[])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        let outside = dir.parent().unwrap().join("outside.bin");
        std::fs::write(&outside, vec![0u8; 240]).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("out.bin")).unwrap();
    }));
    all.push(h("ext_offset_past_end", errored(&["input_0.pb", "data.bin"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("data.bin", &[("offset", "4096")])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        std::fs::write(dir.join("data.bin"), vec![0u8; 240]).unwrap();
    }));
    all.push(h("ext_length_past_end", errored(&["input_0.pb", "data.bin"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("data.bin", &[("length", "240")])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        std::fs::write(dir.join("data.bin"), vec![0u8; 100]).unwrap();
    }));
    all.push(h("ext_offset_text", errored(&["input_0.pb", "offset"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("data.bin", &[("offset", "abc")])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        std::fs::write(dir.join("data.bin"), vec![0u8; 240]).unwrap();
    }));
    all.push(h("ext_offset_negative", errored(&["input_0.pb", "offset"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("data.bin", &[("offset", "-1")])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        std::fs::write(dir.join("data.bin"), vec![0u8; 240]).unwrap();
    }));
    #[cfg(unix)]
    all.push(h("ext_fifo", errored(&["input_0.pb", "data.bin"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("data.bin", &[])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        mkfifo(&dir.join("data.bin"));
    }));
    #[cfg(unix)]
    all.push(h("ext_dev_zero", errored(&["input_0.pb", "zero.bin"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("zero.bin", &[])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.bin")).unwrap();
    }));
    all.push(h("ext_directory", errored(&["input_0.pb", "sub"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("sub", &[])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
        std::fs::create_dir(dir.join("sub")).unwrap();
    }));
    all.push(h("ext_missing", errored(&["input_0.pb", "missing.bin"]), |dir| {
        let mut t = good_tensor("input_0.pb");
        external("missing.bin", &[])(&mut t);
        with_tensor(dir, "input_0.pb", &t);
    }));

    // Model-level hostility.
    all.push(model_edit(
        "cycle",
        errored(&["Pad-25", "input 0 \"y\" is not produced by any earlier node"]),
        |m| graph(m).node[0].input[0] = "y".into(),
    ));
    all.push(model_edit(
        "unknown_op_beside_pad",
        errored(&["op Frobnicate is not supported by the ref backend"]),
        |m| {
            let g = graph(m);
            g.node.insert(0, node("Frobnicate", &["x"], &["z"], vec![]));
        },
    ));
    all.push(model_edit(
        "unknown_op_only",
        Expect::Skipped(vec!["graph holds Frobnicate".into()]),
        |m| graph(m).node[0].op_type = "Frobnicate".into(),
    ));
    all.push(model_edit(
        "unknown_domain",
        errored(&["domain \"evil.domain\" is not in opset_import"]),
        |m| graph(m).node[0].domain = "evil.domain".into(),
    ));
    all.push(model_edit(
        "opset_predates",
        errored(&["opset 1 predates the operator"]),
        |m| {
            m.opset_import[0].version = 1;
            graph(m).node[0].op_type = "CenterCropPad".into();
        },
    ));
    all.push(model_edit(
        "no_opset",
        errored(&["domain \"\" is not in opset_import"]),
        |m| m.opset_import.clear(),
    ));
    all.push(model_edit(
        "missing_output",
        errored(&["graph output \"nothing\" is not produced by any node"]),
        |m| graph(m).output[0].name = "nothing".into(),
    ));
    all.push(model_edit(
        "many_nodes",
        errored(&["model.onnx", "graph.node: 100001, over the limit of 100000"]),
        |m| {
            let g = graph(m);
            let relu = node("Relu", &["x"], &["r"], vec![]);
            g.node.extend(std::iter::repeat_n(relu, 100_000));
        },
    ));
    all.push(model_edit(
        "many_initializers",
        errored(&["model.onnx", "graph.initializer: 100001"]),
        |m| {
            graph(m).initializer = (0..100_001)
                .map(|i| int64_initializer(&format!("w{i}"), &[0], vec![]))
                .collect();
        },
    ));
    all.push(model_edit(
        "many_inputs",
        errored(&["model.onnx", "graph.input: 100002"]),
        |m| {
            let g = graph(m);
            g.input.extend((0..100_000).map(|i| ValueInfoProto {
                name: format!("i{i}"),
                r#type: None,
            }));
        },
    ));
    all.extend(many_names(5_000));
    all.push(model_edit(
        "huge_concat_node",
        errored(&["node 0 (Concat) input: 100001, over the limit of 100000"]),
        |m| {
            let names = vec!["x"; 100_001];
            graph(m)
                .node
                .insert(0, node("Concat", &names, &["c"], vec![int_attr("axis", 0)]));
        },
    ));
    all.push(model_edit(
        "pad_axes_rank_exceeded",
        errored(&["Pad-25", "input 3 (axes) holds 7, out of range [-4, 3] for rank 4"]),
        |m| {
            let g = graph(m);
            g.node[0].input.extend(["".into(), "axes".into()]);
            g.initializer.push(int64_initializer("axes", &[4], vec![0, 1, 2, 7]));
        },
    ));
    all.push(model_edit(
        "pad_axes_repeated",
        errored(&["Pad-25", "name axis 1 twice"]),
        |m| {
            let g = graph(m);
            g.node[0].input.extend(["".into(), "axes".into()]);
            g.initializer.push(int64_initializer("axes", &[4], vec![0, 1, -3, 2]));
        },
    ));

    // Hostile helper-op graphs, each aborting the process before.
    all.push(helper_graph(
        "gather_bomb",
        errored(&[
            "Gather-13",
            "output shape [65536, 65536]",
            "input 0 (data) [1, 65536] and input 1 (indices) [65536]",
        ]),
        || {
            vec![
                node("Gather", &["w", "idx"], &["g"], vec![]),
                node("Shape", &["g"], &["h0"], vec![]),
                node("Concat", &["x"], &["h"], vec![int_attr("axis", 0)]),
            ]
        },
        || {
            vec![
                int64_initializer("w", &[1, 65536], vec![1; 65536]),
                int64_initializer("idx", &[65536], vec![0; 65536]),
            ]
        },
    ));
    all.push(helper_graph(
        "concat_bomb",
        errored(&[
            "Concat-13",
            "output shape [100000, 4096]",
            "100000 inputs joined on axis 0",
        ]),
        || {
            vec![
                node("Concat", &vec!["w"; 100_000], &["big"], vec![int_attr("axis", 0)]),
                node("Concat", &["x"], &["h"], vec![int_attr("axis", 0)]),
            ]
        },
        || vec![int64_initializer("w", &[1, 4096], vec![7; 4096])],
    ));
    all.push(helper_graph(
        "broadcast_bomb",
        errored(&["Add-14", "output shape [100000, 100000]", "broadcasting [100000, 1]"]),
        || {
            vec![
                node("Add", &["a", "b"], &["s"], vec![]),
                node("Concat", &["x"], &["h"], vec![int_attr("axis", 0)]),
            ]
        },
        || {
            vec![
                int64_initializer("a", &[100_000, 1], vec![1; 100_000]),
                int64_initializer("b", &[1, 100_000], vec![2; 100_000]),
            ]
        },
    ));
    all.push(helper_graph(
        "max_bomb",
        errored(&["Max-13", "output shape [100000, 100000]"]),
        || {
            vec![
                node("Max", &["a", "b", "a"], &["s"], vec![]),
                node("Concat", &["x"], &["h"], vec![int_attr("axis", 0)]),
            ]
        },
        || {
            vec![
                int64_initializer("a", &[100_000, 1], vec![1; 100_000]),
                int64_initializer("b", &[1, 100_000], vec![2; 100_000]),
            ]
        },
    ));
    all.push(helper_graph(
        "slice_too_many_starts",
        errored(&[
            "Slice-13",
            "starts holds 6 values but input 0 (data) [1, 3, 4, 5] has rank 4",
        ]),
        || vec![node("Slice", &["x", "s", "e"], &["h"], vec![])],
        || {
            vec![
                int64_initializer("s", &[6], vec![0; 6]),
                int64_initializer("e", &[6], vec![1; 6]),
            ]
        },
    ));
    all.push(helper_graph(
        "slice1_too_many_starts",
        errored(&["Slice-13", "starts"]),
        || {
            vec![node(
                "Slice",
                &["x"],
                &["h"],
                vec![ints_attr("starts", &[0; 9]), ints_attr("ends", &[1; 9])],
            )]
        },
        Vec::new,
    ));
    all.push(helper_graph(
        "concat_rank_mismatch",
        errored(&["Concat-13", "input 1 has shape [8]"]),
        || vec![node("Concat", &["x", "pads"], &["h"], vec![int_attr("axis", 0)])],
        Vec::new,
    ));
    all.push(helper_graph(
        "gather_out_of_range",
        errored(&["Gather-13", "input 1 (indices) holds 99"]),
        || vec![node("Gather", &["x", "i"], &["h"], vec![])],
        || vec![int64_initializer("i", &[1], vec![99])],
    ));
    all.push(helper_graph(
        "div_by_zero",
        errored(&["Div-14", "division by zero"]),
        || {
            vec![
                node("Div", &["a", "z"], &["q"], vec![]),
                node("Concat", &["x"], &["h"], vec![int_attr("axis", 0)]),
            ]
        },
        || {
            vec![
                int64_initializer("a", &[1], vec![1]),
                int64_initializer("z", &[1], vec![0]),
            ]
        },
    ));
    all.push(helper_graph(
        "constant_two_attributes",
        errored(&["Constant-25", "needs exactly one attribute, has 2"]),
        || {
            vec![
                node(
                    "Constant",
                    &[],
                    &["c"],
                    vec![int_attr("value_int", 1), int_attr("value_int", 2)],
                ),
                node("Concat", &["x"], &["h"], vec![int_attr("axis", 0)]),
            ]
        },
        Vec::new,
    ));

    // The filesystem.
    all.push(h(
        "model_is_a_directory",
        errored(&["model.onnx", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::remove_file(dir.join("model.onnx")).unwrap();
            std::fs::create_dir(dir.join("model.onnx")).unwrap();
        },
    ));
    #[cfg(unix)]
    all.push(h(
        "model_is_a_fifo",
        errored(&["model.onnx", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::remove_file(dir.join("model.onnx")).unwrap();
            mkfifo(&dir.join("model.onnx"));
        },
    ));
    #[cfg(unix)]
    all.push(h(
        "model_is_dev_zero",
        errored(&["model.onnx", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::remove_file(dir.join("model.onnx")).unwrap();
            std::os::unix::fs::symlink("/dev/zero", dir.join("model.onnx")).unwrap();
        },
    ));
    #[cfg(unix)]
    all.push(h(
        "model_dangling_link",
        errored(&["model.onnx", "No such file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::remove_file(dir.join("model.onnx")).unwrap();
            std::os::unix::fs::symlink("nowhere.onnx", dir.join("model.onnx")).unwrap();
        },
    ));
    #[cfg(unix)]
    all.push(h("model_link_loop", errored(&["model.onnx"]), |dir| {
        copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
        std::fs::remove_file(dir.join("model.onnx")).unwrap();
        std::os::unix::fs::symlink("model.onnx", dir.join("model.onnx")).unwrap();
    }));
    #[cfg(unix)]
    all.push(h("directory_link_loop", Expect::Passed, |dir| {
        copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
        std::os::unix::fs::symlink(".", dir.join("test_data_set_0").join("loop")).unwrap();
        std::os::unix::fs::symlink("..", dir.join("up")).unwrap();
    }));
    all.push(h(
        "input_is_a_directory",
        errored(&["input_0.pb", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            let input = dir.join("test_data_set_0/input_0.pb");
            std::fs::remove_file(&input).unwrap();
            std::fs::create_dir(&input).unwrap();
        },
    ));
    #[cfg(unix)]
    all.push(h(
        "input_is_a_fifo",
        errored(&["input_0.pb", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            let input = dir.join("test_data_set_0/input_0.pb");
            std::fs::remove_file(&input).unwrap();
            mkfifo(&input);
        },
    ));
    #[cfg(unix)]
    all.push(h(
        "output_is_dev_zero",
        errored(&["output_0.pb", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            let output = dir.join("test_data_set_0/output_0.pb");
            std::fs::remove_file(&output).unwrap();
            std::os::unix::fs::symlink("/dev/zero", &output).unwrap();
        },
    ));
    all.push(h(
        "output_too_large",
        errored(&["output_0.pb", "over the limit"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            let f = std::fs::File::create(dir.join("test_data_set_0/output_0.pb")).unwrap();
            f.set_len(5 << 30).unwrap();
        },
    ));
    all.push(h(
        "data_set_x",
        errored(&["test_data_set_x", "the number in the name is not"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::create_dir(dir.join("test_data_set_x")).unwrap();
        },
    ));
    all.push(h(
        "data_set_20_digits",
        errored(&["test_data_set_99999999999999999999", "the number in the name is not"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::create_dir(dir.join("test_data_set_99999999999999999999")).unwrap();
        },
    ));
    all.push(h(
        "data_set_plus",
        errored(&["test_data_set_+1", "the number in the name is not"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::create_dir(dir.join("test_data_set_+1")).unwrap();
        },
    ));
    all.push(h(
        "data_set_is_a_file",
        errored(&["test_data_set_1: not a directory"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::write(dir.join("test_data_set_1"), b"").unwrap();
        },
    ));
    all.push(h(
        "data_set_twice",
        errored(&["test_data_set_0 and test_data_set_00 are both number 0"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            copy_dir(&dir.join("test_data_set_0"), &dir.join("test_data_set_00"));
        },
    ));
    all.push(h(
        "input_x",
        errored(&["input_x.pb", "the number in the name is not"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::write(dir.join("test_data_set_0/input_x.pb"), b"").unwrap();
        },
    ));
    #[cfg(unix)]
    all.push(h(
        "expected_error_fifo",
        errored(&["expected_error.txt", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::remove_file(dir.join("test_data_set_0/output_0.pb")).unwrap();
            mkfifo(&dir.join("test_data_set_0/expected_error.txt"));
        },
    ));
    all.push(h(
        "expected_error_directory",
        errored(&["expected_error.txt", "not a regular file"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::remove_file(dir.join("test_data_set_0/output_0.pb")).unwrap();
            std::fs::create_dir(dir.join("test_data_set_0/expected_error.txt")).unwrap();
        },
    ));
    all.push(h(
        "expected_error_and_output",
        errored(&["holds both expected_error.txt and output_K.pb files"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::write(dir.join("test_data_set_0/expected_error.txt"), b"must refuse").unwrap();
        },
    ));
    all.push(h(
        "missing_input",
        errored(&["input_1.pb is missing (found input_2.pb)"]),
        |dir| {
            copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
            std::fs::rename(
                dir.join("test_data_set_0/input_1.pb"),
                dir.join("test_data_set_0/input_2.pb"),
            )
            .unwrap();
        },
    ));
    #[cfg(unix)]
    all.push(h("unreadable_data_set", errored(&["test_data_set_0"]), |dir| {
        copy_good(dir.parent().unwrap(), dir.file_name().unwrap());
        let data = dir.join("test_data_set_0");
        std::fs::remove_dir_all(&data).unwrap();
        std::os::unix::fs::symlink("/nonexistent/dir", &data).unwrap();
    }));
    all
}

/// `n` initializers also listed as graph inputs (the case still runs), and `n` nodes of as many
/// op types before the Pad (the first is refused by name). `all` holds them at 5,000; the full
/// size, where a quadratic lookup would show, is an ignored test of its own that .ci/run runs.
pub fn many_names(n: usize) -> [Hostile; 2] {
    let initializers_as_inputs = model_edit("initializers_as_inputs", Expect::Passed, move |m| {
        let g = graph(m);
        g.initializer = (0..n)
            .map(|i| int64_initializer(&format!("w{i}"), &[0], vec![]))
            .collect();
        g.input.extend((0..n).map(|i| ValueInfoProto {
            name: format!("w{i}"),
            r#type: None,
        }));
    });
    let many_op_types = model_edit("many_op_types", errored(&["op Op0 is not supported"]), move |m| {
        let g = graph(m);
        let pad = g.node[0].clone();
        g.node = (0..n)
            .map(|i| node(&format!("Op{i}"), &["x"], &[&format!("o{i}")], vec![]))
            .collect();
        g.node.push(pad);
    });
    [initializers_as_inputs, many_op_types]
}
