//! The vendored data and the built binary, as the tests reach them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path under onnx-testdata/: `testdata("onnx-1.22.0/node/test_edge_pad")`.
pub fn testdata(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("onnx-testdata")
        .join(relative)
}

/// A tree with two cases: test_edge_pad as vendored, and test_wrap_pad with one expected
/// value changed ([`failing_wrap`]): one pass and one failure of wrong values.
pub fn failing_tree() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    failing_wrap(&dir.path().join("test_wrap_pad"));
    dir
}

/// A path the tests made, as the argument the binary takes (they make only UTF-8 ones).
pub fn arg_of(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// test_wrap_pad copied to `wrap` with one expected value changed (+1000 at [0, 0, 0, 0]),
/// so that a correct backend fails it with wrong values.
#[allow(dead_code)]
pub fn failing_wrap(wrap: &Path) {
    use pad_conformance::Tensor;
    use pad_conformance::testing::{DecodeOptions, read_tensor_file, write_tensor_file};
    copy_dir(&testdata("onnx-1.22.0/node/test_wrap_pad"), wrap);
    let output = wrap.join("test_data_set_0/output_0.pb");
    let Tensor::Int32(mut values) = read_tensor_file(&output, &DecodeOptions::default()).unwrap() else {
        panic!("test_wrap_pad's output is int32");
    };
    values[[0, 0, 0, 0]] += 1000;
    write_tensor_file(&output, &Tensor::Int32(values), "y").unwrap();
}

/// Copies the directory tree `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Copies the case `from` to `to` without the valid twin its case.json names: the case alone,
/// for tests of other things than twins (a twin that does not exist beside it would make the
/// case errored at discovery).
pub fn copy_case_alone(from: &Path, to: &Path) {
    copy_dir(from, to);
    let path = to.join("case.json");
    if !path.exists() {
        return;
    }
    let mut info: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    info.as_object_mut().unwrap().remove("twin");
    std::fs::write(&path, serde_json::to_string_pretty(&info).unwrap()).unwrap();
}

/// Runs the built binary with `args`, without colours, and waits for it.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}
