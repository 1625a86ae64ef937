"""A pad-conformance worker around one Python function (docs/backend-protocol.md).

    import numpy as np
    from pad_conformance.worker import Unsupported, serve

    def run(case):
        if case.node.is_graph:
            raise Unsupported("a graph with helper ops")
        ...
        return [output_array]

    serve(run, name="my-runtime", runtime={"name": "my-runtime", "version": "1.0"})

or, for a function of a module, ``python -m pad_conformance.worker MODULE:FUNCTION
--runtime my-runtime --runtime-version 1.0``.

`serve` answers the handshake, then calls ``run(case)`` once per data set with a `Case`: the
Pad node as the runner read it (`case.node`, a `Node`; None with a runner that does not
offer it), the inputs as numpy arrays (`case.inputs`), the model's path and its declared
output types. `run` returns the outputs (a list of arrays, or one array), each written in the
element type it came in — never cast to the declared one: the runner judges the type, so a
float64 answer to a float32 graph fails as a mismatch. Strings are arrays of str, bytes or
objects holding them. `run` raises `Refused` (the model or its inputs are invalid,
optionally naming the rule), `Unsupported` (not implemented here) or `Failed` (the runtime
broke); any other exception is replied by `error_kind`: `failed` for Python's own failures
(MemoryError, RecursionError, SystemError) and for an assertion in the worker's own code
(this package, or the file of the served function), else `refused` — give `kind_of` to
decide otherwise. Each error's `code` is the exception's type name.

Only what `run` raises is the runtime's answer. What this package does itself is `failed`
when it breaks, whatever `kind_of` says: a request it cannot read, an input `run` reads that
cannot be decoded (`InputError`), and an answer it cannot write (`OutputError`: not a list of
arrays, another number of outputs than the graph declares, a dtype that is no ONNX element
type). The exceptions live in `pad_conformance.errors` and are the same objects however the
worker starts (``-m``, `serve`, the pytest helper).

A graph optimizer serves with ``replies="model"``: `run` returns the model it rewrote (an
``onnx.ModelProto``, or its bytes), which is handed back as a model reply for the runner's
reference to evaluate (docs/backend-protocol.md#model-replies).

Standard output carries only replies; anything printed (by `run`, by a native library)
goes to standard error, which the runner shows in the case's message. SIGTERM and SIGINT end
the worker quietly; SIGPIPE has its default action.
"""

import json
import os
import signal
import sys
import traceback

# The exceptions live in errors.py so that they are the same objects however the worker
# starts (under -m this file runs as __main__, whose own classes no user's module raises).
from .errors import FAILURES, Failed, InputError, OutputError, Refused, Unsupported, WorkerError

__all__ = ["Case", "FAILURES", "Failed", "InputError", "OutputError", "Refused", "Unsupported", "WorkerError",
           "error_kind", "load", "main", "serve"]

PROTOCOL_VERSION = 1
TENSOR_FORMATS = ("raw", "tensorproto")
REPLIES = ("outputs", "model")
# The fields of the hello's `runtime` object (docs/backend-protocol.md#handshake), name first.
RUNTIME_FIELDS = ("name", "version", "build", "device")
# The file a model reply names, in the request's output directory.
MODEL_FILE = "optimized.onnx"

# Files whose AssertionErrors are the worker's own bugs, not refusals: this package's, and
# the file of each function `serve` serves (added by serve).
_OWN_FILES = set()
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def error_kind(error):
    """The `kind` of the error reply for `error`: the kind its class names (Refused,
    Unsupported, Failed); "failed" for a failure of Python (FAILURES) or an assertion of the
    worker's own code; "refused" for anything else — the exceptions of onnx, of runtimes and
    of numpy included, which are the backend refusing the model or its inputs."""
    if isinstance(error, Unsupported):
        return "unsupported"
    if isinstance(error, Refused):
        return "refused"
    if isinstance(error, (Failed, *FAILURES)):
        return "failed"
    if isinstance(error, AssertionError):
        frames = traceback.extract_tb(error.__traceback__)
        if frames and _is_own(frames[-1].filename):
            return "failed"
    return "refused"


def _is_own(filename):
    path = os.path.abspath(filename)
    return os.path.dirname(path) == _PACKAGE or path in _OWN_FILES


class Case:
    """One data set to run: `node` (a Node, or None), `inputs` (numpy arrays, in the order of
    the graph's inputs, initializers excluded), `model_path`, `output_types` (the element type
    name each graph output declares: "float32", "bfloat16", "string", …; None when undeclared)
    and `id`, the request's id. `inputs` and `output_types` are read when first used, so that a
    function that answers from the node alone reads no tensor; what cannot be read raises
    InputError."""

    def __init__(self, id, node, model_path, read_inputs, read_output_types):
        self.id = id
        self.node = node
        self.model_path = model_path
        self._read = {"inputs": read_inputs, "output_types": read_output_types}
        self._values = {}

    def _value(self, name):
        if name not in self._values:
            try:
                self._values[name] = self._read[name]()
            except Exception as error:  # numpy's, onnx's (with the fallback), the file system's
                raise InputError(f"reading the request's {name.replace('_', ' ')}: {error}") from error
        return self._values[name]

    @property
    def inputs(self):
        return self._value("inputs")

    @property
    def output_types(self):
        return self._value("output_types")

    def feeds(self, names):
        """{name: array} for the model's input `names`, which `inputs` follows in order; InputError
        when their numbers differ (the package's check, never the runtime refusing)."""
        if len(names) != len(self.inputs):
            raise InputError(f"the request has {len(self.inputs)} inputs; the model takes {len(names)}: "
                             f"{', '.join(names)}")
        return dict(zip(names, self.inputs))

    def __repr__(self):
        return f"Case(id={self.id}, model_path={self.model_path!r}, node={self.node!r})"


class _Session:
    """What the handshake agreed on, and how a request's tensors are read and written."""

    def __init__(self, accepts_node, tensor_format, replies="outputs"):
        self.accepts_node = accepts_node
        self.tensor_format = tensor_format
        self.replies = replies
        # The runner offered model replies, and this worker takes them.
        self.model = False
        # Before a hello, or with a runner that offers nothing: TensorProto and no node.
        self.node = False
        self.tensors = "tensorproto"
        self.output_types = {}  # (model path, size, mtime) -> declared output types

    def hello(self, request, name, runtime):
        # "language": the runner's advice to this worker's author names this package's API
        # (raise Unsupported), not the protocol's words.
        reply = {"type": "hello", "version": PROTOCOL_VERSION, "name": name, "language": "python"}
        if runtime:
            reply["runtime"] = runtime
        offers = request.get("offers")
        if isinstance(offers, dict):
            self.node = self.accepts_node and offers.get("node") is True
            offered = offers.get("tensors")
            offered = offered if isinstance(offered, list) else []
            self.tensors = self.tensor_format if self.tensor_format in offered else "tensorproto"
            reply["accepts"] = {"node": self.node, "tensors": self.tensors}
            if self.replies == "model":
                self.model = offers.get("model") is True
                reply["accepts"]["model"] = self.model
        return reply

    def write_model(self, model, output_dir):
        """Writes the rewritten `model` (a ModelProto or its bytes) as output_dir/MODEL_FILE."""
        if self.replies == "model" and not self.model:
            raise Failed("the runner offers no model replies: a pad-conformance that knows "
                         "them is needed (docs/backend-protocol.md#model-replies)")
        data = model if isinstance(model, (bytes, bytearray)) else model.SerializeToString()
        with open(os.path.join(output_dir, MODEL_FILE), "wb") as file:
            file.write(data)
        return MODEL_FILE

    def case(self, request):
        # numpy and ml_dtypes are imported once a case's tensors or node are read, not to
        # answer (a worker that replies without reading, as scripts/backends/null-worker, needs
        # neither).
        model = request["model"]
        if self.tensors == "raw":
            described = request["input_tensors"]

            def read_inputs():
                from . import tensors

                return [tensors.read_raw(t["path"], t["dtype"], t["shape"]) for t in described]
        else:
            paths = request["inputs"]

            def read_inputs():
                from . import tensors

                return [tensors.read_tensorproto(path) for path in paths]
        node = None
        if self.node and "node" in request:
            from .node import Node

            node = Node.from_json(request["node"])
        return Case(request.get("id"), node, model, read_inputs, lambda: self.declared(model))

    def declared(self, model):
        status = os.stat(model)
        key = (model, status.st_size, status.st_mtime_ns)
        if key not in self.output_types:
            from .model import output_types

            self.output_types[key] = output_types(model)
        return self.output_types[key]

    def write(self, results, case, output_dir):
        """Writes output K as output_dir/output_K.bin (raw) or .pb in the element type of the
        array returned (never cast to the declared one: the runner judges the type). What
        cannot be written raises OutputError saying why."""
        if isinstance(results, (tuple, list)):
            results = list(results)
        elif hasattr(results, "dtype") and hasattr(results, "shape"):
            results = [results]
        else:
            raise OutputError(f"the function returned {type(results).__name__}, not a list of arrays")
        declared = case.output_types
        if len(results) != len(declared):
            raise OutputError(f"the function returned {len(results)} outputs; the graph declares {len(declared)}")
        from . import tensors

        outputs = []
        for k, result in enumerate(results):
            try:
                array, dtype = tensors.as_written(result, f"output {k}")
            except ValueError as error:
                raise OutputError(str(error)) from error
            if self.tensors == "raw":
                outputs.append(tensors.write_raw(array, dtype, os.path.join(output_dir, f"output_{k}.bin")))
            else:
                outputs.append(tensors.write_tensorproto(array, dtype, os.path.join(output_dir, f"output_{k}.pb")))
        return outputs


def serve(run, name=None, runtime=None, accepts_node=True, tensors="raw", kind_of=None, replies="outputs"):
    """Answers the runner's requests on stdin until it closes, calling `run(case)` for each
    data set. `name` is the worker's display name (default: the function's); `runtime`
    ({"name", "version", "build"}) states the runtime behind it; `accepts_node` and
    `tensors` ("raw" or "tensorproto") say what the worker takes when the runner offers it
    (an older runner gets TensorProto and no node, decoded with onnx); `kind_of(error)` gives
    the kind of the error reply for an exception of `run` (default `error_kind`);
    `replies="model"`: `run` returns a rewritten model, handed back as a model reply."""
    if tensors not in TENSOR_FORMATS:
        raise ValueError(f"tensors: {tensors!r} is none of {', '.join(TENSOR_FORMATS)}")
    if replies not in REPLIES:
        raise ValueError(f"replies: {replies!r} is none of {', '.join(REPLIES)}")
    kind_of = kind_of or error_kind
    name = name or getattr(run, "__qualname__", None) or "python worker"
    source = getattr(getattr(run, "__code__", None), "co_filename", None)
    if source:
        _OWN_FILES.add(os.path.abspath(source))
    _default_signals()
    # Replies go to a private copy of stdout; fd 1 itself now points to stderr, so that a
    # stray print (Python's or a native library's) cannot corrupt the reply stream.
    reply_stream = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    session = _Session(accepts_node, tensors, replies)
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        reply = _answer(line, session, run, name, runtime, kind_of)
        sys.stderr.flush()
        reply_stream.write(json.dumps(reply) + "\n")
        reply_stream.flush()


def _answer(line, session, run, name, runtime, kind_of):
    """The reply to one request line. Only an exception of `run` — the user's function and the
    runtime it calls — is the runtime's answer, replied by `kind_of`; everything this package
    does itself (reading the request, writing what `run` returned) is "failed" when it breaks,
    so that the package's own error can never pass a data set that must be refused."""
    request_id = None
    try:
        request = json.loads(line)
        request_id = request.get("id")
        request_type = request.get("type")
        if request_type == "hello":
            return session.hello(request, name, runtime)
        if request_type != "run":
            raise ValueError(f"unknown request type {request_type!r}")
        case = session.case(request)
        output_dir = request["output_dir"]
    except Exception as error:  # a request this worker cannot read: its failure (or the runner's)
        return _error_reply(request_id, error, "failed")
    try:
        answer = run(case)
    except Exception as error:  # the runtime's answer: the one place a refusal comes from
        return _error_reply(request_id, error, _kind(kind_of, error))
    try:
        if session.replies == "model":
            return {"type": "result", "id": request_id, "model": session.write_model(answer, output_dir)}
        return {"type": "result", "id": request_id, "outputs": session.write(answer, case, output_dir)}
    except Exception as error:  # writing the answer is this package's work, never the runtime's
        return _error_reply(request_id, error, "failed")


def _kind(kind_of, error):
    """The kind of the reply to an exception of the function: `kind_of`'s, but "failed" for the
    package's own failures (an input read lazily by the function, say) and when `kind_of`
    itself breaks."""
    if isinstance(error, WorkerError):
        return "failed"
    try:
        return kind_of(error)
    except Exception:
        print("pad_conformance.worker: kind_of raised; the error is replied as failed", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return "failed"


def _error_reply(request_id, error, kind):
    # A statement of the function's (Refused, Unsupported, Failed) or a write's OutputError says
    # all in its message; anything else gets its traceback, which the runner shows with the case.
    if not isinstance(error, (Refused, Unsupported, Failed)) or isinstance(error, InputError):
        traceback.print_exc(file=sys.stderr)
    text = str(error).strip()
    message = f"{type(error).__name__}: {text}" if text else type(error).__name__
    # The exception's type as the error's code: reports group errors by it, never judge.
    reply = {"type": "error", "id": request_id, "kind": kind, "code": type(error).__name__[:100], "message": message}
    rule = getattr(error, "rule", None)
    if kind == "refused" and isinstance(error, Refused) and rule:
        reply["rule"] = rule
    return reply


def _default_signals():
    """SIGTERM and SIGINT end the worker by their default action (no KeyboardInterrupt
    traceback); SIGPIPE too, so a closed reply pipe ends it quietly."""
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
        try:
            signal.signal(number, signal.SIG_DFL)
        except ValueError:  # not the main thread: the caller keeps its handlers
            return


def load(target):
    """The function `MODULE:FUNCTION` names; MODULE is a module name or a .py file's path."""
    import importlib
    import importlib.util

    module_name, sep, function = target.rpartition(":")
    if not sep or not module_name or not function:
        raise ValueError(f"{target!r}: expected MODULE:FUNCTION")
    if module_name.endswith(".py") or os.sep in module_name:
        spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(module_name))[0],
                                                      module_name)
        if spec is None:
            raise ValueError(f"{module_name}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    try:
        return getattr(module, function)
    except AttributeError:
        raise ValueError(f"{module_name} has no {function!r}") from None


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pad_conformance.worker",
                                     description="Serves a function run(case) -> [arrays] as a pad-conformance worker.")
    parser.add_argument("target", metavar="MODULE:FUNCTION", help="the function (MODULE may be a .py file's path)")
    parser.add_argument("--name", help="the worker's display name (default MODULE:FUNCTION)")
    parser.add_argument("--tensors", choices=TENSOR_FORMATS, default="raw",
                        help="the tensor files to take when the runner offers them (default raw)")
    parser.add_argument("--runtime", metavar="NAME",
                        help="the runtime behind the function, stated in the hello for reports (onnxruntime, ncnn)")
    for field in RUNTIME_FIELDS[1:]:
        parser.add_argument(f"--runtime-{field}", metavar=field.upper(), help=f"the runtime's {field} (with --runtime)")
    args = parser.parse_args(argv)
    try:
        runtime = runtime_of(args)
    except ValueError as error:
        parser.error(str(error))
    sys.path.insert(0, os.getcwd())
    try:
        run = load(args.target)
    except (ImportError, ValueError, OSError) as error:
        parser.exit(2, f"pad_conformance.worker: {error}\n")
    serve(run, name=args.name or args.target, runtime=runtime, tensors=args.tensors)


def runtime_of(args):
    """The hello's runtime from --runtime and --runtime-version/-build/-device: None without
    --runtime; ValueError for a field given without it, or for an empty name."""
    values = {field: getattr(args, "runtime" if field == "name" else f"runtime_{field}") for field in RUNTIME_FIELDS}
    if values["name"] is None:
        given = [f"--runtime-{field}" for field in RUNTIME_FIELDS[1:] if values[field] is not None]
        if given:
            raise ValueError(f"{', '.join(given)} needs --runtime NAME")
        return None
    if not values["name"].strip():
        raise ValueError("--runtime: the runtime's name is empty")
    return {field: value for field, value in values.items() if value is not None}


if __name__ == "__main__":
    # Under -m this file runs as __main__: serve from the module `pad_conformance.worker` itself,
    # so that the served function's exceptions and this module's state (the files whose
    # assertions are the worker's own) are the ones everybody else imports.
    from pad_conformance.worker import main as _main

    _main()
