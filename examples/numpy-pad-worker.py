"""A pad-conformance worker on numpy.pad (docs/backend-protocol.md): --backend "exec:python examples/numpy-pad-worker.py"."""
import numpy as np
from pad_conformance.worker import Refused, Unsupported, serve

def run(case):
    node, x = case.node, case.inputs[0]
    if node.is_graph or node.op != "Pad" or node.domain != "ai.onnx":
        raise Unsupported(f"{node.domain} {node.op} in a graph of {node.graph_nodes} nodes")
    if node.mode == "wrap" and node.version < 19:
        raise Refused(f"Pad-{node.version} has no mode wrap", rule="mode-not-in-version")
    half, widths = len(node.pads) // 2, [(0, 0)] * x.ndim
    for axis, before, after in zip(node.axes or range(x.ndim), node.pads[:half], node.pads[half:]):
        widths[axis] = (before, after)
    if min(min(w) for w in widths) < 0:
        raise Unsupported("negative pads (numpy.pad only adds)")
    value = node.constant_value if node.constant_value is not None else (b"" if x.dtype == object else 0)
    options = {"constant_values": value} if node.mode == "constant" else {}
    return [np.pad(x, widths, mode=node.mode, **options)]

serve(run, name="numpy.pad", runtime={"name": "numpy", "version": np.__version__})
