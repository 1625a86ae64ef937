"""The worker side of pad-conformance's external backend protocol, version 1
(docs/backend-protocol.md), shared by the workers of this directory.

A worker calls serve(name, run, runtime): it answers the handshake (its display name, and
the runtime's name, version and build as data), then for each request calls
run(model_path, input_paths, output_dir) -> [output_path, ...] and replies with the paths,
or with an `error` reply ("ExceptionType: message") when run raises: of kind "failed" when
the exception is a failure of Python or of this worker (error_kind), else a refusal. It
exits when its standard input closes. Standard output carries only replies, one JSON line
each, flushed; anything else printed (by Python or by native code) goes to standard error.

feeds, read_tensor and write_outputs move tensors between TensorProto files and numpy arrays
(ml_dtypes arrays for bfloat16, float8, float4, int4/uint4 and int2/uint2; object arrays
for strings); with the pinned onnx, numpy_helper round-trips all 26 element types.
"""

import json
import os
import sys
import traceback

import numpy as np
import onnx
from onnx import helper, numpy_helper

PROTOCOL_VERSION = 1

# Exceptions that say Python itself broke, never that the backend refuses the model or its
# inputs: out of memory, a recursion too deep, an interpreter's internal error.
FAILURES = (MemoryError, RecursionError, SystemError)
# The directory of this file and of the workers: an AssertionError raised here is a bug of
# the worker, not a refusal.
HERE = os.path.dirname(os.path.abspath(__file__))


def log(message):
    print(message, file=sys.stderr, flush=True)


def read_tensor(path):
    """A TensorProto file as a numpy array."""
    return numpy_helper.to_array(onnx.load_tensor(path))


def feeds(input_names, input_paths):
    """{name: array} for the model's inputs, which the request lists in the same order."""
    if len(input_names) != len(input_paths):
        raise ValueError(f"the request has {len(input_paths)} inputs; the model takes {len(input_names)}: "
                         f"{', '.join(input_names)}")
    return {name: read_tensor(path) for name, path in zip(input_names, input_paths)}


def output_types(model):
    """The declared element type (TensorProto.DataType) of each graph output."""
    return [o.type.tensor_type.elem_type for o in model.graph.output]


def write_outputs(arrays, elem_types, output_dir):
    """Writes output K as output_dir/output_K.pb with its declared type; returns the paths."""
    arrays = list(arrays)
    if len(arrays) != len(elem_types):
        raise ValueError(f"the backend returned {len(arrays)} outputs; the graph declares {len(elem_types)}")
    paths = []
    for k, (array, elem_type) in enumerate(zip(arrays, elem_types)):
        path = os.path.join(output_dir, f"output_{k}.pb")
        onnx.save_tensor(to_tensor(array, elem_type, f"output {k}"), path)
        paths.append(path)
    return paths


def to_tensor(array, elem_type, what="output"):
    """`array` as a TensorProto of type `elem_type`. A backend may return another dtype than
    the graph declares (str objects or numbers for string, a wider float for float8): the
    values are converted when that loses nothing, else ValueError says why."""
    array = np.asarray(array)
    type_name = onnx.TensorProto.DataType.Name(elem_type)
    if elem_type == onnx.TensorProto.STRING:
        items = array.ravel().tolist()
        others = sorted({type(v).__name__ for v in items if not isinstance(v, (str, bytes))})
        if others:
            # Written as their text so that the comparison shows the values (e.g. 0 -> "0").
            log(f"{what}: declared string, but holds {', '.join(others)} values; written as their text")
        encoded = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in items]
        array = np.array(encoded, dtype=object).reshape(array.shape)
    else:
        if elem_type == onnx.TensorProto.UNDEFINED:
            raise ValueError(f"{what}: the graph declares no element type")
        target = helper.tensor_dtype_to_np_dtype(elem_type)
        if array.dtype != target:
            try:
                converted = array.astype(target)
                exact = np.array_equal(converted.astype(array.dtype), array, equal_nan=array.dtype.kind in "fc")
            except (TypeError, ValueError) as error:
                raise ValueError(f"{what}: the backend returned {array.dtype}, which cannot be written as "
                                 f"{type_name}: {error}") from error
            if not exact:
                raise ValueError(f"{what}: the backend returned {array.dtype} values that {type_name} "
                                 "cannot represent exactly")
            array = converted
    tensor = numpy_helper.from_array(array)
    if tensor.data_type != elem_type:
        raise ValueError(f"{what}: numpy_helper wrote {onnx.TensorProto.DataType.Name(tensor.data_type)}, "
                         f"not {type_name}")
    return tensor


class Unsupported(Exception):
    """Raised by a worker for what its backend does not implement (an element type it cannot
    be handed, say): an error reply of kind "unsupported", never a refusal."""


def error_kind(error):
    """The `kind` of the error reply for `error`: "failed" for a failure of Python (FAILURES)
    or an assertion of this worker's own code, "refused" for anything else — the exceptions
    of onnx, onnxruntime and numpy included, which are the backend refusing the model or its
    inputs (docs/backend-protocol.md). A failure never passes a data set that must be refused."""
    if isinstance(error, Unsupported):
        return "unsupported"
    if isinstance(error, FAILURES):
        return "failed"
    if isinstance(error, AssertionError):
        frames = traceback.extract_tb(error.__traceback__)
        if frames and os.path.dirname(os.path.abspath(frames[-1].filename)) == HERE:
            return "failed"
    return "refused"


def serve(name, run, runtime=None, kind_of=None):
    """Answers requests on stdin until it closes. `runtime` ({"name", "version", "build"}) is
    the hello's optional runtime; `kind_of(error)` gives the kind of the error reply for an
    exception of run (default error_kind)."""
    kind_of = kind_of or error_kind
    # Replies go to a private copy of stdout; fd 1 itself now points to stderr, so that a
    # stray print (Python's or a native library's) cannot corrupt the reply stream.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request_id = None
        # A request this worker cannot read is its failure (or the runner's), never the
        # backend refusing a model: "failed" until the backend runs.
        running = False
        try:
            request = json.loads(line)
            request_id = request.get("id")
            request_type = request.get("type")
            if request_type == "hello":
                reply = {"type": "hello", "version": PROTOCOL_VERSION, "name": name}
                if runtime:
                    reply["runtime"] = runtime
            elif request_type == "run":
                model, inputs, output_dir = request["model"], request["inputs"], request["output_dir"]
                running = True
                outputs = run(model, inputs, output_dir)
                reply = {"type": "result", "id": request_id, "outputs": outputs}
            else:
                raise ValueError(f"unknown request type {request_type!r}")
        except Exception as error:  # the backend's refusal or failure, reported to the runner
            traceback.print_exc(file=sys.stderr)
            text = str(error).strip()
            message = f"{type(error).__name__}: {text}" if text else type(error).__name__
            kind = kind_of(error) if running else "failed"
            # The exception's type as the error's code: reports group errors by it, never judge.
            reply = {"type": "error", "id": request_id, "kind": kind, "code": type(error).__name__[:100],
                     "message": message}
        sys.stderr.flush()
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
