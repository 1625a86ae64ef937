"""The package never invents a refusal: its exceptions are the same objects however a function
is served, only an exception of the function itself is the runtime's answer, and what the
package cannot write is failed. Each test runs the whole corpus through the runner."""

import zlib

import pytest

from conftest import ROOT, cases_by_id, python_backend, run_report, runner_binary
from pad_conformance import onnx_backend
from pad_conformance.errors import InputError
from pad_conformance.pytest import cases

CORPUS = ROOT / "onnx-testdata"

# A function whose answer depends on the case (by a hash of its directory's name, which the
# test computes too): each of the function's statements, a runtime's own exception, and the
# reference's answer.
THREE_WAYS = """
import os
import zlib

from pad_conformance.worker import Failed, Refused, Unsupported


def answer_of(case_dir):
    return zlib.crc32(os.path.basename(case_dir).encode()) % 5


def run(case):
    answer = answer_of(os.path.dirname(case.model_path))
    if answer == 0:
        raise Refused("refused, naming a rule", rule="data-type")
    if answer == 1:
        raise Unsupported("not implemented here")
    if answer == 2:
        raise Failed("the runtime broke")
    if answer == 3:
        raise ValueError("the runtime's own exception")
    import onnx
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(case.model_path)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    return ReferenceEvaluator(model).run(None, case.feeds(names))
"""


def answer_of(case_id):
    return zlib.crc32(case_id.rsplit("/", 1)[-1].encode()) % 5


def verdicts(statuses_and_messages, backend_name):
    """{data set: (status, first line of the message with the backend's name left out)}."""
    return {key: (status, message.split("\n")[0].replace(backend_name, "BACKEND"))
            for key, (status, message) in statuses_and_messages.items()}


def test_one_function_gets_the_same_verdicts_however_it_is_served(tmp_path, monkeypatch):
    (tmp_path / "three_ways.py").write_text(THREE_WAYS)
    # --strict-rules: a refusal is judged by the rule it names, so a lost rule shows.
    args = ["--strict-rules", CORPUS]

    by_m = python_backend("-m", "pad_conformance.worker", f"{tmp_path / 'three_ways.py'}:run", "--name", "three-m")
    report = run_report(by_m, *args)
    served_by_m = verdicts({k: (c["status"], c.get("message", "")) for k, c in cases_by_id(report).items()}, "three-m")

    script = tmp_path / "serve_three_ways.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
                      "from three_ways import run\nfrom pad_conformance.worker import serve\n"
                      "serve(run, name='three-serve')\n")
    report = run_report(python_backend(script), *args)
    served_by_serve = verdicts({k: (c["status"], c.get("message", "")) for k, c in cases_by_id(report).items()},
                               "three-serve")

    monkeypatch.syspath_prepend(str(tmp_path))
    params = cases(function="three_ways:run", binary=str(runner_binary()), extra_args=args)
    served_by_helper = verdicts({p.values[0].name: (p.values[0].status, p.values[0].message) for p in params},
                                "three_ways:run")

    assert served_by_m == served_by_serve
    assert served_by_helper == served_by_serve
    answers = {key: answer_of(key.rsplit("/", 1)[0]) for key in served_by_serve}
    assert set(answers.values()) == {0, 1, 2, 3, 4}
    for key, (status, message) in served_by_serve.items():
        if answers[key] == 1:
            assert status == "unsupported", (key, message)
        elif answers[key] == 2:
            # Came back refused through -m before: 'passed' on every must-refuse data set.
            assert status == "errored" and "Failed: the runtime broke" in message, (key, message)
    # The rule survives: a refusal naming data-type passes only the data sets refused by that rule.
    refused = {key: served_by_serve[key][0] for key in answers if answers[key] == 0}
    assert "passed" in refused.values() and "failed" in refused.values()


# Functions that answer nothing a graph could hold, or break every data set: served with -m
# over the whole corpus, none may pass a single data set (each passed all 93 that must be
# refused, the package's own error taken for the runtime's refusal).
BAD = """
import numpy as np
from pad_conformance.worker import Failed

def none(case):
    return None

def two(case):
    return [np.zeros((1,), dtype=np.float32)] * 2

def float64(case):
    return [np.array([0.1], dtype=np.float64)]

def strings(case):
    return [np.array(["x"], dtype=object)]

def failed(case):
    raise Failed("on every data set")
"""


@pytest.mark.parametrize("function, says", [
    ("none", "OutputError: the function returned NoneType, not a list of arrays"),
    ("two", "OutputError: the function returned 2 outputs; the graph declares 1"),
    ("float64", None),
    ("strings", None),
    ("failed", "Failed: on every data set"),
])
def test_a_function_that_answers_nothing_right_passes_nothing(tmp_path, function, says):
    (tmp_path / "bad.py").write_text(BAD)
    report = run_report(python_backend("-m", "pad_conformance.worker", f"{tmp_path / 'bad.py'}:{function}"), CORPUS)
    statuses = {case["status"] for case in report["cases"]}
    assert report["summary"]["passed"] == 0 and "passed" not in statuses, report["summary"]
    assert len(report["cases"]) > 1000
    if says is None:
        # Written in their own element type, and judged wrong by the runner.
        assert statuses == {"failed"}
    else:
        assert statuses == {"errored"}
        assert all(says in case["message"] for case in report["cases"])


# An onnx.backend whose prepared model answers what cannot be written (by ANSWER), or refuses.
FAKE_BACKEND = """
import numpy as np
from onnx.backend.base import Backend, BackendRep

ANSWER = {answer}


class Rep(BackendRep):
    def run(self, inputs, **kwargs):
        if ANSWER == "raise":
            raise ValueError("the backend refuses")
        return ANSWER


class Fake(Backend):
    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return Rep()

    @classmethod
    def supports_device(cls, device):
        return True
"""


@pytest.mark.parametrize("answer, status, says", [
    ("None", "errored", "OutputError: the function returned NoneType, not a list of arrays"),
    ("{'y': np.zeros(1)}", "errored", "OutputError: the function returned dict, not a list of arrays"),
    ("(np.array(['2026-01-01'], dtype='datetime64[D]'),)", "errored",
     "OutputError: output 0: dtype datetime64[D] is no ONNX element type"),
    # The backend's own exception is its answer: a refusal, which this data set requires (not
    # verified: its twin does not run here).
    ('"raise"', "not_verified", "the backend refuses"),
])
def test_what_the_onnx_backend_adapter_cannot_write_is_failed_not_refused(tmp_path, answer, status, says):
    (tmp_path / "fake_backend.py").write_text(FAKE_BACKEND.format(answer=answer))
    backend = python_backend("-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
                                   "from pad_conformance.onnx_backend import main; "
                                   "main(['fake_backend:Fake', '--name', 'fake'])")
    must_refuse = CORPUS / "extended" / "test_ext_pad18_err_mode_wrap"
    (reported,) = run_report(backend, must_refuse)["cases"]
    assert reported["status"] == status, reported
    assert says in reported["message"]


def test_the_adapter_failing_to_load_a_model_is_an_input_error(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\xff not a model")
    with pytest.raises(InputError, match=f"loading the case's model {path} with onnx"):
        onnx_backend.load_model(str(path))
