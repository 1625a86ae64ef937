"""Graph optimizers as backends: model replies from pad_conformance.worker, the inputs made
initializers (scripts/backends/optimize.py), and the optimizer workers through the runner."""

import importlib.util
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from conftest import ROOT, cases_by_id, python_backend, run_report
from test_worker import exchange, pad_model, start_worker

BACKENDS = ROOT / "scripts" / "backends"
sys.path.insert(0, str(BACKENDS))
import optimize  # noqa: E402

NODE = ROOT / "onnx-testdata" / "onnx-1.22.0" / "node"

# A worker that hands back the case's own model unchanged, as a model reply.
SAME_MODEL = """
import onnx
from pad_conformance.worker import serve
serve(lambda case: onnx.load(case.model_path), name="same", replies="model")
"""


def hello(offers):
    return {"type": "hello", "protocol": "pad-conformance-backend", "version": 1, "offers": offers}


def test_a_model_reply_names_the_model_written_in_the_output_directory(tmp_path):
    model = pad_model(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    offers = {"node": True, "tensors": ["tensorproto", "raw"], "model": True}
    greeting, result = exchange(start_worker(SAME_MODEL, tmp_path), hello(offers),
                                {"type": "run", "id": 5, "model": model, "inputs": [], "input_tensors": [],
                                 "output_dir": str(out)})
    assert greeting["accepts"] == {"node": True, "tensors": "raw", "model": True}
    assert result == {"type": "result", "id": 5, "model": "optimized.onnx"}
    assert onnx.load(str(out / "optimized.onnx")) == onnx.load(model)


def test_a_runner_without_model_replies_gets_a_failure_not_outputs(tmp_path):
    model = pad_model(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    greeting, result = exchange(start_worker(SAME_MODEL, tmp_path), hello({"tensors": ["tensorproto"]}),
                                {"type": "run", "id": 6, "model": model, "inputs": [], "output_dir": str(out)})
    assert greeting["accepts"] == {"node": False, "tensors": "tensorproto", "model": False}
    assert result["type"] == "error" and result["kind"] == "failed", result
    assert "offers no model replies" in result["message"]
    assert not (out / "optimized.onnx").exists()


def pad_graph(ir_version):
    pad = helper.make_node("Pad", ["x", "pads"], ["y"], mode="edge")
    graph = helper.make_graph([pad], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                               helper.make_tensor_value_info("pads", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, ir_version=ir_version, opset_imports=[helper.make_opsetid("", 11)])


@pytest.mark.parametrize("ir_version, listed", [(3, ["x", "pads"]), (8, [])])
def test_every_input_becomes_an_initializer_listed_as_an_input_only_before_ir_4(ir_version, listed):
    feeds = {"x": np.array([1, 2], dtype=np.float32), "pads": np.array([1, 0], dtype=np.int64)}
    model = optimize.with_inputs_as_initializers(pad_graph(ir_version), feeds)
    assert [i.name for i in model.graph.input] == listed
    values = {i.name: onnx.numpy_helper.to_array(i).tolist() for i in model.graph.initializer}
    assert values == {"x": [1.0, 2.0], "pads": [1, 0]}


def test_an_input_of_another_type_than_declared_is_the_workers_failure():
    feeds = {"x": np.array([1, 2], dtype=np.float64), "pads": np.array([1, 0], dtype=np.int64)}
    with pytest.raises(optimize.worker.Failed, match="came as DOUBLE, the graph declares FLOAT"):
        optimize.with_inputs_as_initializers(pad_graph(8), feeds)


@pytest.mark.parametrize("name, distribution", [("onnxsim-worker", "onnxsim"),
                                                ("onnxoptimizer-worker", "onnxoptimizer")])
def test_an_optimizer_worker_folds_and_the_runner_judges_its_model(name, distribution):
    if importlib.util.find_spec(distribution) is None:
        pytest.skip(f"{distribution} is not installed (scripts/setup-python)")
    report = run_report(python_backend(BACKENDS / name), NODE / "test_wrap_pad", NODE / "test_reflect_pad")
    cases = cases_by_id(report)
    assert {key: case["status"] for key, case in cases.items()} == {
        "test_wrap_pad/0": "passed", "test_reflect_pad/0": "passed"}, report
    assert all(case["rewritten_model"] for case in cases.values())
    assert report["runtime"]["name"] == distribution, report
