"""A deliberately broken backend for the pytest helper's tests: ONNX's reference evaluator with
every Pad node's reflect mode run as edge, so reflect data sets fail and the others pass.
Served as `python -m pad_conformance.worker broken_reflect:run`."""

import onnx
from onnx.reference import ReferenceEvaluator


def run(case):
    model = onnx.load(case.model_path)
    for node in model.graph.node:
        for attribute in node.attribute:
            if node.op_type == "Pad" and attribute.name == "mode" and attribute.s == b"reflect":
                attribute.s = b"edge"  # the bug
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    return ReferenceEvaluator(model).run(None, case.feeds(names))
