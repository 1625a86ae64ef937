"""python -m pad_conformance.onnx_backend on onnxruntime.backend, against the onnxruntime
worker of scripts/backends over the whole corpus: they differ exactly on the data sets of
onnx_backend_differences.json, each for its reason (checked both ways); onnxruntime's exception
types read as the worker reads them (the preset), and as --error-kind says."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, cases_by_id, python_backend, run_report, worker_env

DIFFERENCES = Path(__file__).with_name("onnx_backend_differences.json")

# What each reason of the committed list means for the two verdicts: (the adapter's status,
# the worker's status, the element type) -> whether the reason explains that difference.
EXPLAINS = {
    # unittest.SkipTest from onnxruntime.backend: unsupported here, run by the worker.
    "released-opsets-only": lambda adapter, worker, dtype: adapter == "unsupported" and worker != "unsupported",
    # numpy's bfloat16 arrays, which onnxruntime's Python API does not take; the worker binds them.
    "no-numpy-bfloat16": lambda adapter, worker, dtype: (adapter, worker, dtype) == ("errored", "passed", "bfloat16"),
}


def test_onnxruntime_backend_differs_from_the_worker_only_where_listed():
    expected = json.loads(DIFFERENCES.read_text())
    assert set(expected["reasons"]) == set(EXPLAINS)
    # The documented one line: the preset gives one intra-op thread, as the worker's sessions have.
    adapter = cases_by_id(run_report(python_backend("-m", "pad_conformance.onnx_backend", "onnxruntime.backend")))
    worker = cases_by_id(run_report(python_backend(ROOT / "scripts" / "backends" / "onnxruntime-worker")))
    assert adapter.keys() == worker.keys()
    differ = {key for key in adapter if adapter[key]["status"] != worker[key]["status"]}
    listed = set(expected["differences"])
    assert sorted(differ - listed) == [], "differences the list lacks (add each with its reason)"
    assert sorted(listed - differ) == [], "listed differences that no longer differ (remove them)"
    unexplained = {key: (adapter[key]["status"], worker[key]["status"], adapter[key]["dtype"], reason)
                   for key, reason in expected["differences"].items()
                   if not EXPLAINS[reason](adapter[key]["status"], worker[key]["status"], adapter[key]["dtype"])}
    assert unexplained == {}
    assert adapter[next(iter(listed))]["message"]  # a difference always says why in the report


def test_an_incompatible_model_is_unsupported(write_worker, tmp_path):
    backend_module = tmp_path / "picky_backend.py"
    backend_module.write_text('''
from onnx.backend.base import Backend

class Picky(Backend):
    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return model.opset_import[0].version >= 18

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        raise ValueError("prepare refuses every model")
''')
    cases = ROOT / "onnx-testdata" / "onnx-1.22.0" / "node"
    backend = python_backend("-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
                                   "from pad_conformance.onnx_backend import main; "
                                   "main(['picky_backend:Picky', '--name', 'picky'])")
    report = run_report(backend, cases / "test_constant_pad", ROOT / "onnx-testdata" / "onnx-1.23.2" / "pytorch-operator" / "test_operator_pad")
    opsets = {key: case["version"] for key, case in cases_by_id(report).items()}
    statuses = {key: case["status"] for key, case in cases_by_id(report).items()}
    assert report["backend"] == "picky"
    assert sorted(statuses.values()) == ["errored", "unsupported"]
    for key, version in opsets.items():
        # Pad-18 and later reach prepare (which refuses a valid model: errored); the rest are unsupported.
        assert statuses[key] == ("errored" if version >= 18 else "unsupported"), (key, version, statuses)


# A data set onnxruntime has no kernel for: it raises its NotImplemented status.
NO_KERNEL = ROOT / "onnx-testdata" / "extended" / "test_center_crop_pad_ext_dtype_int16"
NOT_IMPLEMENTED = "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented"


def adapter(*args):
    return python_backend("-m", "pad_conformance.onnx_backend", "onnxruntime.backend", *args)


@pytest.mark.parametrize("args, status, kind", [
    ((), "unsupported", "unsupported"),  # the preset, as the worker says it
    (("--no-preset",), "errored", "refused"),  # a refused valid input
    (("--error-kind", f"{NOT_IMPLEMENTED}=failed"), "errored", "failed"),  # given, over the preset
    (("--no-preset", "--error-kind", "builtins.Exception=unsupported"), "unsupported", "unsupported"),
])
def test_onnxruntime_s_exception_types_have_the_kinds_the_preset_and_options_give(args, status, kind):
    pytest.importorskip("onnxruntime")
    report = run_report(adapter(*args), NO_KERNEL)
    (case,) = report["cases"]
    assert (case["status"], f"kind {kind})" in case["message"]) == (status, True), case["message"]
    assert "NotImplemented" in case["message"]


def test_the_adapter_names_itself_through_onnx_backend():
    pytest.importorskip("onnxruntime")
    import onnxruntime

    report = run_report(adapter(), NO_KERNEL)
    assert report["backend"] == f"onnxruntime {onnxruntime.__version__} through onnx.backend"
    assert report["runtime"] == {"name": "onnxruntime", "version": onnxruntime.__version__,
                                 "build": "through onnx.backend onnxruntime.backend", "device": "CPU"}


@pytest.mark.parametrize("given, says", [
    (f"{NOT_IMPLEMENTED}Nowhere=unsupported", "onnxruntime.capi.onnxruntime_pybind11_state has no exception type"),
    ("onnxruntime.SessionOptions=unsupported", "onnxruntime has no exception type SessionOptions"),
    ("no_such_module.Error=failed", "no module of it can be imported"),
    (f"{NOT_IMPLEMENTED}=ignored", "the kind 'ignored' is none of unsupported, failed, refused"),
    ("Exception=failed", "expected MODULE.TYPE=KIND"),
])
def test_an_error_kind_the_adapter_cannot_take_stops_it_naming_the_option(given, says):
    pytest.importorskip("onnxruntime")
    done = subprocess.run([sys.executable, "-m", "pad_conformance.onnx_backend", "onnxruntime.backend",
                           "--error-kind", given], env=worker_env(), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2 and says in done.stderr, done.stderr


def test_onnxruntime_s_preset_prepares_with_one_thread_unless_told_otherwise():
    from pad_conformance.onnx_backend import prepare_options

    assert prepare_options("onnxruntime.backend", []) == {"intra_op_num_threads": 1}
    assert prepare_options("onnxruntime.backend", [("intra_op_num_threads", 4), ("x", "y")]) == {
        "intra_op_num_threads": 4, "x": "y"}
    assert prepare_options("onnxruntime.backend", [], preset=False) == {}
    assert prepare_options("my_runtime.backend", [("x", 1)]) == {"x": 1}
