"""examples/numpy-pad-worker.py, the worker docs/backend-protocol.md shows, run over the
whole corpus: single-node Pad cases mostly pass, graphs and other operators are unsupported;
and examples/model-path-worker.py, docs/python.md's worker that hands the model's path to
onnxruntime's loader."""

import re

import pytest

from conftest import ROOT, cases_by_id, python_backend, run_report

EXAMPLE = ROOT / "examples" / "numpy-pad-worker.py"
MODEL_PATH_EXAMPLE = ROOT / "examples" / "model-path-worker.py"


def test_the_docs_show_the_example_as_it_is():
    docs = (ROOT / "docs" / "backend-protocol.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", docs, re.S)
    code = EXAMPLE.read_text().split("\n", 1)[1]  # without its docstring line
    assert code in blocks
    assert len(code.splitlines()) <= 20


def test_the_numpy_pad_worker_passes_single_node_pads(runner_offers):
    if not (runner_offers or {}).get("node"):
        pytest.skip("this runner sends no node (it predates the protocol's optional additions)")
    report = run_report(python_backend(EXAMPLE))
    assert report["backend"] == "numpy.pad"
    cases = cases_by_id(report)
    status = {key: case["status"] for key, case in cases.items()}
    for name in ["constant_pad", "edge_pad", "reflect_pad", "wrap_pad", "constant_pad_axes",
                 "constant_pad_negative_axes"]:
        assert status[f"onnx-1.22.0/node/test_{name}/0"] == "passed", cases[f"onnx-1.22.0/node/test_{name}/0"]
    # Refused by the rule it names, and by numpy's own checks.
    assert status["extended/test_ext_pad18_err_mode_wrap/0"] == "passed"
    # CenterCropPad, as one node or as the 13-node graphs of the *_expanded cases: unsupported.
    graphs = [key for key, case in cases.items() if case.get("graph_nodes", 1) > 1]
    assert graphs and {status[key] for key in graphs} == {"unsupported"}
    assert "onnx-1.22.0/node/test_center_crop_pad_crop_expanded/0" in graphs
    assert status["onnx-1.22.0/node/test_center_crop_pad_crop/0"] == "unsupported"
    # Most single-node Pad data sets of the ai.onnx domain pass (numpy.pad lacks negative pads).
    pads = [key for key, case in cases.items()
            if case["op"] == "Pad" and case["domain"] == "ai.onnx" and key not in graphs]
    passed = [key for key in pads if status[key] == "passed"]
    assert len(passed) > len(pads) / 2, f"{len(passed)} of {len(pads)} passed"


def test_the_numpy_pad_worker_pads_with_every_complex_constant(runner_offers):
    if not (runner_offers or {}).get("node"):
        pytest.skip("this runner sends no node (it predates the protocol's optional additions)")
    report = run_report(python_backend(EXAMPLE), "--filter", "complex")
    cases = cases_by_id(report)
    constants = {key: case for key, case in cases.items() if "constant" in key and case["op"] == "Pad"}
    assert constants, "no complex constant data set"
    # numpy.pad takes the complex constant the node carries; none is answered wrong.
    wrong = {key: case["message"] for key, case in constants.items() if case["status"] == "failed"}
    assert not wrong, wrong
    assert any(case["status"] == "passed" for case in constants.values())


def test_the_python_docs_show_the_model_path_example_as_it_is():
    docs = (ROOT / "docs" / "python.md").read_text()
    block = re.search(r"<!-- model-path-example -->\n```python\n(.*?)```", docs, re.S).group(1)
    assert block == MODEL_PATH_EXAMPLE.read_text().split("\n", 1)[1]  # without its docstring line


def test_the_model_path_worker_runs_the_model_and_says_what_the_runtime_lacks():
    pytest.importorskip("onnxruntime")
    upstream = ["constant_pad", "edge_pad", "reflect_pad", "wrap_pad"]
    lacking = "center_crop_pad_ext_dtype_int16"  # onnxruntime has no int16 kernel for it
    paths = [ROOT / "onnx-testdata" / "onnx-1.22.0" / "node" / f"test_{name}" for name in upstream]
    report = run_report(python_backend(MODEL_PATH_EXAMPLE), *paths, ROOT / "onnx-testdata" / "extended" / f"test_{lacking}")
    status = {case["id"].rsplit("/", 1)[-1]: case["status"] for case in report["cases"]}
    assert report["runtime"]["name"] == "onnxruntime" and report["runtime"]["version"]
    assert status == {**{f"test_{name}": "passed" for name in upstream},
                      # onnxruntime's NotImplemented, raised as Unsupported: not a refused valid input.
                      f"test_{lacking}": "unsupported"}
