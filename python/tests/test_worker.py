"""pad_conformance.worker through the real runner (its JSON report), and by hand where the
runner cannot reach: an old runner's hello, the raw tensors and node a new one offers."""

import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from conftest import ROOT, cases_by_id, python_backend, run_report, runner_binary, worker_env
from pad_conformance import tensors
from pad_conformance.node import Node

EXTENDED = ROOT / "onnx-testdata" / "extended"
# A valid single-node Pad that ONNX's reference evaluator computes right.
CONSTANT_PAD = ROOT / "onnx-testdata" / "onnx-1.22.0" / "node" / "test_constant_pad"

# A worker that runs ONNX's reference evaluator on each data set, so that its outputs are right
# whatever the node: what a test changes around it is what the verdicts show.
REFERENCE = """
import sys
import numpy as np
from onnx.reference import ReferenceEvaluator
from pad_conformance.worker import Failed, Refused, Unsupported, serve

def reference(case):
    import onnx
    model = onnx.load(case.model_path)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    return ReferenceEvaluator(model).run(None, case.feeds(names))
"""


def statuses(report):
    return {key.rsplit("/", 2)[-2]: case["status"] for key, case in cases_by_id(report).items()}


def test_a_refusal_names_its_rule(write_worker):
    wrap = EXTENDED / "test_ext_pad18_err_mode_wrap"
    # The right rule is a refusal, not verified here since its twin does not run; the wrong one fails.
    for rule, status in [("mode-not-in-version", "not_verified"), ("data-type", "failed")]:
        backend = write_worker(REFERENCE + f"""
def run(case):
    raise Refused("Pad-18 has no wrap", rule={rule!r})
serve(run, name="refusing")
""")
        report = run_report(backend, "--strict-rules", wrap)
        (case,) = report["cases"]
        assert case["status"] == status, case
        assert "Pad-18 has no wrap" in case["message"]


def test_an_unsupported_type_is_unsupported_and_the_others_run(write_worker):
    backend = write_worker(REFERENCE + """
def run(case):
    if case.inputs[0].dtype == np.dtype("bfloat16"):
        raise Unsupported("no bfloat16 here")
    return reference(case)
serve(run, name="no-bfloat16")
""")
    report = run_report(backend, EXTENDED / "test_ext_pad21_constant_bfloat16_r3", CONSTANT_PAD)
    assert statuses(report) == {"test_ext_pad21_constant_bfloat16_r3": "unsupported", "test_constant_pad": "passed"}
    assert "no bfloat16 here" in cases_by_id(report)["test_ext_pad21_constant_bfloat16_r3/0"]["message"]


@pytest.mark.parametrize("raised, must_refuse, status", [
    # Python breaking is a failure: it never passes a data set that must be refused.
    ("RecursionError('too deep')", True, "errored"),
    ("MemoryError()", True, "errored"),
    ("Failed('lost the device')", True, "errored"),
    # The worker's own assertion (in the file of the served function) is its bug.
    ("AssertionError('a bug of the worker')", True, "errored"),
    # Any other exception is the backend refusing the model or its inputs (not verified: the
    # data set's twin does not run here).
    ("ValueError('wrap is not allowed')", True, "not_verified"),
    ("ValueError('refused a valid input')", False, "errored"),
])
def test_an_exception_in_the_function_is_failed_or_refused_by_its_type(write_worker, raised, must_refuse, status):
    backend = write_worker(REFERENCE + f"""
def run(case):
    raise {raised}
serve(run, name="raising")
""")
    case = EXTENDED / "test_ext_pad18_err_mode_wrap" if must_refuse else CONSTANT_PAD
    (reported,) = run_report(backend, case)["cases"]
    assert reported["status"] == status, reported
    assert raised.split("(")[0] in reported["message"]


def test_kind_of_overrides_the_default_kinds(write_worker):
    backend = write_worker(REFERENCE + """
def run(case):
    raise MemoryError("said to be a refusal")
serve(run, name="overridden", kind_of=lambda error: "refused")
""")
    (reported,) = run_report(backend, EXTENDED / "test_ext_pad18_err_mode_wrap")["cases"]
    # A refusal (a failure would be errored); its twin does not run here, so not verified.
    assert reported["status"] == "not_verified", reported


@pytest.mark.parametrize("tensor_format", ["raw", "tensorproto"])
@pytest.mark.parametrize("case_name", ["test_ext_pad21_constant_int4_r2", "test_ext_pad21_constant_uint4_r4",
                                       "test_ext_pad13_constant_string_value_accent"])
def test_inputs_decode_as_onnx_reads_them(write_worker, tmp_path, tensor_format, case_name):
    dump = tmp_path / "inputs.npy"
    backend = write_worker(REFERENCE + f"""
def run(case):
    np.save({str(dump)!r}, np.array(case.inputs + [None], dtype=object)[:-1], allow_pickle=True)
    raise Unsupported("inputs dumped")
serve(run, name="dumping", tensors={tensor_format!r})
""")
    run_report(backend, EXTENDED / case_name)
    got = np.load(dump, allow_pickle=True)
    data_set = EXTENDED / case_name / "test_data_set_0"
    expected = [numpy_helper.to_array(onnx.load_tensor(str(path))) for path in sorted(data_set.glob("input_*.pb"))]
    # onnx decodes strings as str; the worker hands them over as the bytes they are.
    expected = [np.vectorize(str.encode, otypes=[object])(a) if a.dtype == object and a.size else a for a in expected]
    assert len(got) == len(expected)
    for array, want in zip(got, expected):
        assert array.dtype == want.dtype and array.shape == want.shape
        assert array.tolist() == want.tolist()
    if "int4" in case_name:
        assert got[0].dtype in (np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4))
    if "string" in case_name:
        assert got[0].dtype == object and all(isinstance(v, bytes) for v in got[0].ravel())


@pytest.mark.parametrize("case_name", ["test_ext_pad21_constant_int4_r2", "test_ext_pad25_wrap_int2_r3"])
def test_negative_sub_byte_outputs_are_written_as_the_raw_layout_holds_them(write_worker, case_name):
    # Arrays built from Python ints: ml_dtypes then keeps only the low bits in each byte.
    backend = write_worker(REFERENCE + """
def rebuilt(case):
    return [np.array(a.tolist(), dtype=a.dtype) for a in reference(case)]
serve(rebuilt, name="reference-raw", tensors="raw")
""")
    (reported,) = run_report(backend, EXTENDED / case_name)["cases"]
    assert reported["status"] == "passed", reported


def test_a_signed_sub_byte_raw_file_holds_each_value_as_an_int8(tmp_path):
    path = str(tmp_path / "t.bin")
    tensors.write_raw(np.array([-8, -1, 7], dtype=ml_dtypes.int4), "int4", path)
    assert open(path, "rb").read() == bytes([0xF8, 0xFF, 0x07])
    tensors.write_raw(np.array([-2, 1], dtype=ml_dtypes.int2), "int2", path)
    assert open(path, "rb").read() == bytes([0xFE, 0x01])
    assert tensors.read_raw(path, "int2", [2]).tolist() == [-2, 1]
    tensors.write_raw(np.array([15, 0], dtype=ml_dtypes.uint4), "uint4", path)
    assert open(path, "rb").read() == bytes([0x0F, 0x00])


def test_printing_to_stdout_does_not_break_the_stream(write_worker):
    backend = write_worker(REFERENCE + """
def run(case):
    print("a stray print")
    sys.stdout.write('{"type": "result", "id": 0, "outputs": []}\\n')
    sys.stdout.flush()
    os.write(1, b"native bytes on fd 1\\n")
    return reference(case)
import os
serve(run, name="chatty")
""")
    report = run_report(backend, CONSTANT_PAD, CONSTANT_PAD.parent / "test_edge_pad")
    assert statuses(report) == {"test_constant_pad": "passed", "test_edge_pad": "passed"}


def start_worker(source, tmp_path):
    path = tmp_path / "hand.py"
    path.write_text(source)
    return subprocess.Popen([sys.executable, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=worker_env(), text=True)


def exchange(worker, *requests):
    out, _ = worker.communicate("".join(json.dumps(r) + "\n" for r in requests), timeout=60)
    return [json.loads(line) for line in out.splitlines()]


ECHO = REFERENCE + """
def run(case):
    node = case.node
    described = None if node is None else {
        "op": node.op, "version": node.version, "mode": node.mode, "pads": node.pads, "axes": node.axes,
        "constant_value": repr(node.constant_value), "sources": node.sources, "is_graph": node.is_graph}
    print(json.dumps(described), file=sys.stderr)
    open(case.model_path + ".node.json", "w").write(json.dumps(described))
    return [case.inputs[0] * 2]
import json
serve(run, name="echo")
"""


def pad_model(tmp_path):
    """A model with one float32 input and one float32 output (its node is never run)."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph), str(path))
    return str(path)


def test_an_old_runner_gets_tensorproto_and_no_node(tmp_path):
    model = pad_model(tmp_path)
    x = tmp_path / "input_0.pb"
    onnx.save_tensor(numpy_helper.from_array(np.array([1.5, -2], dtype=np.float32)), str(x))
    out = tmp_path / "out"
    out.mkdir()
    hello, result = exchange(start_worker(ECHO, tmp_path),
                             {"type": "hello", "protocol": "pad-conformance-backend", "version": 1},
                             {"type": "run", "id": 3, "model": model, "inputs": [str(x)], "output_dir": str(out)})
    assert hello == {"type": "hello", "version": 1, "name": "echo", "language": "python"}
    assert result == {"type": "result", "id": 3, "outputs": [str(out / "output_0.pb")]}
    written = numpy_helper.to_array(onnx.load_tensor(str(out / "output_0.pb")))
    assert written.dtype == np.float32 and written.tolist() == [3.0, -4.0]
    assert json.loads(open(model + ".node.json").read()) is None


def test_a_new_runner_gets_raw_tensors_and_the_node(tmp_path):
    model = pad_model(tmp_path)
    x = tmp_path / "input_0.bin"
    x.write_bytes(np.array([1.5, -2], dtype="<f4").tobytes())
    out = tmp_path / "out"
    out.mkdir()
    node = {"op": "Pad", "domain": "ai.onnx", "version": 18, "graph": {"nodes": 1, "op_types": ["Pad"]},
            "mode": "reflect", "pads": {"from": "input", "value": [0, "-9007199254740993"]},
            "constant_value": {"from": "initializer", "value": {"dtype": "float16", "shape": [], "value": "-inf"}},
            "axes": {"from": "absent"}, "attributes": {"mode": "reflect"}}
    hello, result = exchange(start_worker(ECHO, tmp_path),
                             {"type": "hello", "protocol": "pad-conformance-backend", "version": 1,
                              "offers": {"node": True, "tensors": ["tensorproto", "raw"]}},
                             {"type": "run", "id": 4, "model": model, "inputs": [str(x)], "output_dir": str(out),
                              "input_tensors": [{"path": str(x), "dtype": "float32", "shape": [2]}], "node": node})
    assert hello["accepts"] == {"node": True, "tensors": "raw"}
    assert result == {"type": "result", "id": 4,
                      "outputs": [{"path": str(out / "output_0.bin"), "dtype": "float32", "shape": [2]}]}
    assert np.frombuffer((out / "output_0.bin").read_bytes(), dtype="<f4").tolist() == [3.0, -4.0]
    assert json.loads(open(model + ".node.json").read()) == {
        "op": "Pad", "version": 18, "mode": "reflect", "pads": [0, -9007199254740993], "axes": None,
        "constant_value": repr(np.float16("-inf")), "is_graph": False,
        "sources": {"pads": "input", "constant_value": "initializer", "axes": "absent", "shape": "absent"}}


def test_a_worker_takes_only_what_the_runner_offers(tmp_path):
    (hello,) = exchange(start_worker(ECHO, tmp_path),
                        {"type": "hello", "protocol": "pad-conformance-backend", "version": 1,
                         "offers": {"node": False, "tensors": ["tensorproto"]}})
    assert hello["accepts"] == {"node": False, "tensors": "tensorproto"}


@pytest.mark.parametrize("dtype", sorted(tensors.DTYPES))
def test_raw_files_round_trip_every_element_type(tmp_path, dtype):
    values = {"string": [b"", b"caf\xc3\xa9", b"x"], "float8e8m0": [1, 2, 0.5], "complex64": [0, 1j, 1],
              "complex128": [0, 1j, 1]}.get(dtype, [0, 1, 1])
    given = np.array(values, dtype=tensors.DTYPES[dtype]).reshape(3, 1)
    array, written_as = tensors.as_written(given, "output 0")
    assert written_as == dtype
    path = str(tmp_path / "t.bin")
    descriptor = tensors.write_raw(array, dtype, path)
    assert descriptor == {"path": path, "dtype": dtype, "shape": [3, 1]}
    back = tensors.read_raw(path, dtype, [3, 1])
    assert back.dtype == array.dtype and back.tolist() == array.tolist()
    if dtype != "string":
        assert os.path.getsize(path) == 3 * array.dtype.itemsize


def test_a_raw_file_of_the_wrong_size_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "t.bin"
    path.write_bytes(b"\0" * 7)
    with pytest.raises(ValueError, match=r"7 bytes, but float32 \[2\] takes 8"):
        tensors.read_raw(str(path), "float32", [2])
    with pytest.raises(ValueError, match="cannot hold 1000000000 strings"):
        tensors.read_raw(str(path), "string", [1000000000])


def test_an_output_is_written_in_the_element_type_it_came_in():
    # float64 stays float64 (the old helper cast it to a declared float32 when exact).
    array, dtype = tensors.as_written(np.array([0.5], dtype=np.float64))
    assert (dtype, array.dtype) == ("float64", np.dtype(np.float64))
    # Either byte order is the same element type.
    array, dtype = tensors.as_written(np.array([1.5, -2], dtype=">f4"))
    assert dtype == "float32" and array.tolist() == [1.5, -2.0]
    assert tensors.as_written(np.int32(7))[1] == "int32"
    assert tensors.as_written(np.array([1], dtype=ml_dtypes.int4))[1] == "int4"
    # str, bytes and objects holding them are a string tensor of UTF-8 bytes.
    for given in (np.array(["café", "x"]), np.array([b"caf\xc3\xa9", b"x"]), np.array(["café", b"x"], dtype=object)):
        array, dtype = tensors.as_written(given)
        assert dtype == "string" and array.dtype == object and array.tolist() == [b"caf\xc3\xa9", b"x"]


@pytest.mark.parametrize("given, says", [
    (np.array(["2026-01-01"], dtype="datetime64[D]"), r"dtype datetime64\[D\] is no ONNX element type"),
    (np.array([3], dtype="timedelta64[s]"), r"dtype timedelta64\[s\] is no ONNX element type"),
    (np.array(["", 0], dtype=object), "an object array holding int values; a string tensor holds str or bytes"),
    ([1.5, 2.5], r"output 0 is a list, not an array"),
    (None, r"output 0 is a NoneType, not an array"),
])
def test_an_output_of_no_onnx_element_type_is_not_written(given, says):
    with pytest.raises(ValueError, match=says):
        tensors.as_written(given, "output 0")


def test_the_node_reads_its_values_typed():
    node = Node.from_json({
        "op": "CenterCropPad", "domain": "ai.onnx", "version": 18, "graph": {"nodes": 13, "op_types": ["Shape"]},
        "shape": {"from": "input", "value": [3, 4]},
        "constant_value": {"from": "attribute", "value": {"dtype": "int64", "shape": [2], "value": [1, "9223372036854775807"]}},
        "attributes": {}})
    assert node.is_graph and node.shape == [3, 4] and node.mode is None and node.pads is None
    assert node.constant_value.dtype == np.int64 and node.constant_value.tolist() == [1, 2**63 - 1]
    nan = Node.from_json({"op": "Pad", "version": 2, "constant_value": {"from": "attribute", "value": {
        "dtype": "bfloat16", "shape": [], "value": "nan"}}}).constant_value
    assert nan.dtype == np.dtype(ml_dtypes.bfloat16) and np.isnan(nan)
    with pytest.raises(ValueError, match=r"node\.pads"):
        Node.from_json({"op": "Pad", "pads": {"from": "input", "value": [1.5]}})


def constant_of(value):
    return Node.from_json({"op": "Pad", "version": 13, "constant_value": {"from": "input", "value": value}}).constant_value


def test_a_complex_constant_is_one_complex_scalar_and_several_are_pairs():
    one = constant_of({"dtype": "complex64", "shape": [], "value": [1.5, -2.0]})
    assert one.dtype == np.complex64 and one.shape == () and one == np.complex64(1.5 - 2j)
    special = constant_of({"dtype": "complex128", "shape": [1], "value": ["nan", "-inf"]})
    assert np.isnan(special.real) and special.imag == -np.inf
    two = constant_of({"dtype": "complex128", "shape": [2], "value": [[1, 2], [3, -4]]})
    assert two.dtype == np.complex128 and two.tolist() == [1 + 2j, 3 - 4j]
    with pytest.raises(ValueError, match=r"node\.constant_value"):
        constant_of({"dtype": "complex64", "shape": [], "value": [1.5]})


def test_a_constant_too_large_for_the_node_comes_without_its_value():
    assert constant_of({"dtype": "float32", "shape": [16385]}) is None


def test_an_unreadable_input_is_the_workers_failure_and_read_only_when_used(tmp_path):
    model = pad_model(tmp_path)
    x = tmp_path / "input_0.bin"
    x.write_bytes(b"\0" * 7)  # float32 [2] takes 8
    out = tmp_path / "out"
    out.mkdir()
    source = REFERENCE + """
def run(case):
    if case.id == 1:
        raise Refused("answered from the request alone")
    return case.inputs
serve(run, name="reader", kind_of=lambda error: "refused")
"""
    request = {"type": "run", "model": model, "inputs": [str(x)], "output_dir": str(out),
               "input_tensors": [{"path": str(x), "dtype": "float32", "shape": [2]}]}
    _, untouched, read = exchange(start_worker(source, tmp_path),
                                  {"type": "hello", "version": 1, "offers": {"node": False, "tensors": ["raw"]}},
                                  dict(request, id=1), dict(request, id=2))
    assert (untouched["kind"], untouched["code"]) == ("refused", "Refused")
    # Even with a kind_of that refuses everything: an input it cannot read never passes a case.
    assert (read["kind"], read["code"]) == ("failed", "InputError")
    assert "7 bytes, but float32 [2] takes 8" in read["message"]


def test_a_function_is_served_by_name(tmp_path):
    module = tmp_path / "padding.py"
    module.write_text(REFERENCE.replace("serve,", "") + "\ndef run(case):\n    return reference(case)\n")
    report = run_report(python_backend("-m", "pad_conformance.worker", f"{module}:run", "--name", "by-name"),
                        CONSTANT_PAD)
    assert report["backend"] == "by-name"
    assert "runtime" not in report
    assert statuses(report) == {"test_constant_pad": "passed"}


def test_the_runner_s_hint_for_what_a_runtime_lacks_names_this_package_s_exception(write_worker):
    # A runtime that refuses what it lacks: the recap tells its author to raise Unsupported,
    # as the hello's "language" says this worker is this package's.
    backend = write_worker("""
from pad_conformance.worker import Refused, serve

def run(case):
    raise Refused("no kernel for this")
serve(run, name="lacking")
""")
    command = [str(runner_binary()), "--backend", backend, CONSTANT_PAD]
    done = subprocess.run(command, cwd=ROOT, env=worker_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    hints = [line for line in done.stdout.splitlines() if line.startswith("hint: ")]
    assert hints == ["hint: where the backend lacks what a data set asks, raise `pad_conformance.worker.Unsupported`: "
                     "the data set is then unsupported, not refused; or leave it out of the backend's profile (--profile)"]


def test_a_hello_whose_language_is_no_string_is_refused_at_the_handshake(tmp_path):
    script = tmp_path / "numbered.py"
    script.write_text('import json, sys\n'
                      'for line in sys.stdin:\n'
                      '    print(json.dumps({"type": "hello", "version": 1, "name": "n", "language": 3}), flush=True)\n')
    command = [str(runner_binary()), "--backend", python_backend(script), CONSTANT_PAD]
    done = subprocess.run(command, cwd=ROOT, env=worker_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "the hello's language 3 is not a string" in done.stderr, done.stderr


def test_the_command_line_states_the_runtime_as_the_report_shows_it(tmp_path):
    module = tmp_path / "padding.py"
    module.write_text(REFERENCE.replace("serve,", "") + "\ndef run(case):\n    return reference(case)\n")
    report = run_report(python_backend("-m", "pad_conformance.worker", f"{module}:run", "--runtime", "myrt",
                                       "--runtime-version", "2.1", "--runtime-device", "npu0"), CONSTANT_PAD)
    assert report["runtime"] == {"name": "myrt", "version": "2.1", "device": "npu0"}
    assert statuses(report) == {"test_constant_pad": "passed"}


@pytest.mark.parametrize("args, says", [
    (["--runtime-version", "2.1"], "--runtime-version needs --runtime NAME"),
    (["--runtime", " "], "--runtime: the runtime's name is empty"),
])
def test_a_runtime_field_without_a_name_stops_the_worker_before_it_serves(args, says):
    done = subprocess.run([sys.executable, "-m", "pad_conformance.worker", "nowhere:run", *args],
                          env=worker_env(), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2 and says in done.stderr, done.stderr


def test_an_answer_in_another_element_type_fails_as_the_runner_judges_it(write_worker):
    # Exactly representable in float32: the old helper cast it back and the data set passed.
    backend = write_worker(REFERENCE + """
def run(case):
    return [np.asarray(a, dtype=np.float64) for a in reference(case)]
serve(run, name="float64")
""")
    (reported,) = run_report(backend, CONSTANT_PAD)["cases"]
    assert reported["status"] == "failed", reported
    assert "dtype differs: expected float, actual double" in reported["message"]
