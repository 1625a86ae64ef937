"""The worker side of pad-conformance's external backend protocol (docs/backend-protocol.md).

A worker calls serve(name, run): it answers the handshake, then for each request calls
run(model_path, input_paths, output_dir) -> [output_path, ...] and replies with the paths,
or with an error message when run raises. Logs go to stderr; stdout carries only replies.
"""

import json
import sys
import traceback

import numpy as np
import onnx
from onnx import numpy_helper

PROTOCOL_VERSION = 1


def read_tensor(path):
    """A TensorProto file as a numpy array (ml_dtypes types for float8, int4, ...)."""
    return numpy_helper.to_array(onnx.load_tensor(path))


def write_tensor(array, path, elem_type):
    """Writes `array` as a TensorProto of ONNX type `elem_type` (the graph output's type)."""
    if elem_type == onnx.TensorProto.STRING:
        array = np.asarray(array, dtype=object)
        array = np.vectorize(lambda s: s if isinstance(s, bytes) else str(s).encode(), otypes=[object])(array) \
            if array.size else array
    else:
        target = onnx.helper.tensor_dtype_to_np_dtype(elem_type)
        if np.asarray(array).dtype != target:
            array = np.asarray(array).astype(target)
    onnx.save_tensor(numpy_helper.from_array(np.asarray(array)), path)


def output_types(model):
    """The declared element type of each graph output."""
    return [o.type.tensor_type.elem_type for o in model.graph.output]


def serve(name, run):
    """Answers requests on stdin until it closes."""
    for line in sys.stdin:
        request = json.loads(line)
        kind = request.get("type")
        if kind == "hello":
            reply = {"type": "hello", "version": PROTOCOL_VERSION, "name": name}
        elif kind == "run":
            try:
                outputs = run(request["model"], request["inputs"], request["output_dir"])
                reply = {"type": "result", "id": request["id"], "outputs": outputs}
            except Exception as error:  # the backend's refusal or failure, reported to the runner
                traceback.print_exc(file=sys.stderr)
                message = f"{type(error).__name__}: {error}".strip()
                reply = {"type": "error", "id": request["id"], "message": message}
        else:
            reply = {"type": "error", "id": request.get("id"), "message": f"unknown request type {kind!r}"}
        print(json.dumps(reply), flush=True)
