"""A pad-conformance backend worker (docs/backend-protocol.md) that converts each data set's
model to MNN with MNN's own converter and runs it on MNN's CPU backend. Run it through
scripts/backends/mnn-worker, which starts it in the quarantined .venv-mnn/ (scripts/setup-mnn):

    pad-conformance --backend exec:scripts/backends/mnn-worker \\
        --profile baselines/mnn.profile.toml --baseline baselines/mnn.json

Quarantine: MNN's `mnnconvert` command imports MNN.tools.utils.log, which runs
`pip install -U aliyun-log-python-sdk` when that package is missing and sends each conversion to
Alibaba's log service. This worker calls the function the command wraps (`_tools.mnnconvert`,
the C++ converter) and never that module: MNN.tools and aliyun are made unimportable before MNN
is imported, the venv has no pip, and the venv's digest is compared when the worker starts and
when it ends (exit 2, naming what changed).

Error kinds, by what MNN gives back (its converter always returns True, and its Python API
raises SystemError for every error, so no refusal can be told apart from a failure):
- the converter wrote no model: unsupported (it does not take the model: wrap, for one);
- an element type MNN's Var has no dtype for: unsupported;
- an output whose shape MNN inferred with a negative extent, or any error of MNN's loading or
  running: failed. MNN checks nothing of Pad's rules, so it never refuses.
Each data set runs in a child forked for it (see `run`); a child killed by a signal kills the
worker with that signal, a crash as the runner judges crashes.
"""

import importlib.util
import os
import pickle
import shutil
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.dirname(os.path.dirname(sys.executable))
# The pad_conformance package of this checkout (python/), and venv_digest next to this file
# (`python -I` puts neither on the path).
sys.path[:0] = [os.path.join(HERE, "..", "..", "..", "python"), HERE]
sys.dont_write_bytecode = True  # nothing written into the venv or the source tree

# The telemetry module (and the package it installs): an import of either fails.
for module in ("MNN.tools", "MNN.tools.utils", "MNN.tools.utils.log", "MNN.tools.mnnconvert", "aliyun", "aliyun.log"):
    sys.modules[module] = None

import venv_digest  # noqa: E402


def quarantine_breaches():
    """What makes this process unsafe to run MNN in: a changed venv, a reachable pip."""
    found = [f"{VENV}: {change}" for change in venv_digest.changes(VENV)]
    if shutil.which("pip") or shutil.which("pip3"):
        found.append(f"pip is on PATH ({shutil.which('pip') or shutil.which('pip3')})")
    if os.environ.get("PIP_NO_INDEX") != "1":
        found.append("PIP_NO_INDEX is not 1")
    if importlib.util.find_spec("pip") is not None:
        found.append("pip is importable")
    return found


def refuse_to_run_if_breached(when):
    breaches = quarantine_breaches()
    if breaches:
        for breach in breaches:
            print(f"mnn-worker ({when}): quarantine broken: {breach}", file=sys.stderr)
        sys.exit(2)


refuse_to_run_if_breached("at start")

import _tools  # noqa: E402  (MNN's converter: the function the mnnconvert command wraps)
import MNN  # noqa: E402
import numpy as np  # noqa: E402

from pad_conformance import worker  # noqa: E402

F = MNN.expr
# numpy's element type -> MNN's Var dtype; MNN has no other.
DTYPES = {
    np.dtype("float32"): F.float,
    np.dtype("float64"): F.double,
    np.dtype("int32"): F.int,
    np.dtype("int64"): F.int64,
    np.dtype("int8"): F.int8,
    np.dtype("uint8"): F.uint8,
}
SCRATCH = tempfile.mkdtemp(prefix="pad-conformance-mnn-")


def convert(model_path):
    """The MNN model of `model_path`, written by MNN's converter into this worker's scratch
    directory; Unsupported when it writes none."""
    converted = os.path.join(SCRATCH, "model.mnn")
    if os.path.exists(converted):
        os.remove(converted)
    _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", model_path, "--MNNModel", converted,
                       "--bizCode", "pad-conformance"])
    if not os.path.isfile(converted):
        raise worker.Unsupported("MNN's converter wrote no model (it reports why on standard error)")
    return converted


def var(array, declared, k):
    """`array` as input `k` of the converted model, which declares it `declared` (MNN's
    converter makes every int64 an int32): converted when no value changes, else Unsupported.
    Returns the array the Var reads too: MNN's `const` may keep a pointer into it, so the caller
    holds it until the outputs are read."""
    if array.dtype not in DTYPES:
        raise worker.Unsupported(f"MNN has no element type for {array.dtype}")
    wanted = next((dtype for dtype, mnn in DTYPES.items() if mnn == declared), None)
    if wanted is None:
        raise worker.Unsupported(f"the converted model declares input {k} as MNN's {declared}, which has no numpy type")
    converted = array.astype(wanted, order="C")
    if not np.array_equal(converted.astype(array.dtype), array, equal_nan=array.dtype.kind == "f"):
        raise worker.Unsupported(f"input {k} ({array.dtype}) does not fit the {wanted} the converted model declares")
    return converted, F.const(converted, list(array.shape), F.NCHW, declared)


def run_here(model_path, inputs):
    module = MNN.nn.load_module_from_file(convert(model_path), [], [])
    info = module.get_info()
    declared = [v.dtype for v in info["inputs"]]
    if len(declared) != len(inputs):
        raise worker.Failed(f"the converted model takes {len(declared)} inputs ({', '.join(info['inputNames'])}); "
                            f"the request has {len(inputs)}")
    held, feeds = zip(*(var(a, d, k) for k, (a, d) in enumerate(zip(inputs, declared)))) if declared else ((), ())
    outputs = module.forward(list(feeds))
    if len(outputs) != len(info["outputNames"]):
        raise worker.Failed(f"MNN's forward gave {len(outputs)} outputs; the converted model has "
                            f"{len(info['outputNames'])}")
    for k, output in enumerate(outputs):
        if any(extent < 0 for extent in output.shape):
            raise worker.Failed(f"MNN inferred output {k}'s shape as {output.shape}")
    results = [np.array(output.read(), copy=True) for output in outputs]
    del held
    return results


# The exception a child's error kind is raised again as in the worker.
KINDS = {"unsupported": worker.Unsupported, "refused": worker.Refused, "failed": worker.Failed}


def run(case):
    """run_here in a child forked for this data set alone: MNN corrupts its heap on some
    inputs (negative pads), which made the data sets run after them in the same process crash
    or answer at random. A child killed by a signal kills this worker with the same signal,
    so that the runner sees the crash it is."""
    inputs = case.inputs  # read here: a request the worker cannot read stays the helper's InputError
    answer = os.path.join(SCRATCH, "answer.pickle")
    if os.path.exists(answer):
        os.remove(answer)
    sys.stdout.flush()
    sys.stderr.flush()
    child = os.fork()
    if child == 0:
        try:
            try:
                reply = ("outputs", run_here(case.model_path, inputs))
            except BaseException as error:
                own = isinstance(error, tuple(KINDS.values()))
                reply = ("error", error_kind(error), str(error) if own else f"{type(error).__name__}: {error}")
            with open(answer, "wb") as f:
                pickle.dump(reply, f)
            sys.stderr.flush()
        finally:
            os._exit(0)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        sys.stderr.flush()
        shutil.rmtree(SCRATCH, ignore_errors=True)  # no finally runs after the signal
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    if os.waitstatus_to_exitcode(status) != 0 or not os.path.exists(answer):
        shutil.rmtree(SCRATCH, ignore_errors=True)
        os._exit(os.waitstatus_to_exitcode(status) or 70)
    with open(answer, "rb") as f:
        reply = pickle.load(f)
    if reply[0] == "outputs":
        return widened(reply[1], case.output_types)
    raise KINDS[reply[1]](reply[2])


# The narrowings MNN's converter makes, undone: (what MNN returns, what the graph declares).
# Its converter makes every int64 an int32 and every double a float (var feeds only values
# that fit), so such an output comes back narrowed and is widened here, which changes no value.
NARROWED = {(np.dtype("int32"), "int64"): np.int64, (np.dtype("float32"), "float64"): np.float64}


def widened(outputs, declared):
    """MNN's outputs, with the narrowings MNN's converter is known to make undone (NARROWED).
    pad_conformance writes every other output in the dtype MNN gave it, and the runner judges
    that type."""
    if len(outputs) != len(declared):
        return outputs  # the worker replies failed, naming both counts
    return [output.astype(NARROWED[output.dtype, dtype]) if (output.dtype, dtype) in NARROWED else output
            for output, dtype in zip(outputs, declared)]


def error_kind(error):
    # SystemError is how MNN's bindings raise every error of theirs: a failure, as the
    # helper's default says.
    return worker.error_kind(error)


if __name__ == "__main__":
    try:
        runtime = {"name": "MNN", "version": MNN.version(), "build": "ONNX converter, CPU backend", "device": "CPU"}
        worker.serve(run, f"mnn {MNN.version()}", runtime, accepts_node=False, kind_of=error_kind)
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    refuse_to_run_if_breached("at exit")
