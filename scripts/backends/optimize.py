"""Graph optimizers as pad-conformance backends (docs/backend-protocol.md#model-replies):
each data set's model is rewritten with every graph input an initializer holding the data
set's value, so that the optimizer has a Pad to fold; the optimizer runs; and the model it
returns is handed back as a model reply, which the runner's reference evaluates and judges.
A fold that changes the answer is a mismatch of the optimizer's row, a model it breaks an
`invalid-rewrite` failure, a model it rejects its refusal. Used by onnxsim-worker and
onnxoptimizer-worker.

The inputs are made initializers here, not by the runner: it is what the optimizer needs to
have anything to fold, and the rules of ONNX's IR versions about initializers (below) are
the optimizer's business, not the runner's.
"""

import importlib.metadata
import os
import sys

# The pad_conformance package of this checkout (python/), without installing it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

from pad_conformance import worker  # noqa: E402

# From IR version 4 an initializer need not be a graph input; before it, every initializer
# must be one (onnxsim rejects a model of IR < 4 whose initializers are not).
IR_INITIALIZERS_APART = 4


def with_inputs_as_initializers(model, feeds):
    """`model` with each graph input that is not an initializer given the value `feeds[name]`
    as an initializer of the element type the graph declares. From IR 4 on the inputs leave
    the graph's input list, so that nothing can override them and the optimizer may fold
    them; before IR 4 they stay listed, as that IR requires of initializers."""
    initializers = {i.name for i in model.graph.initializer}
    fed = [i for i in model.graph.input if i.name not in initializers]
    for value_info in fed:
        tensor = numpy_helper.from_array(feeds[value_info.name], value_info.name)
        declared = value_info.type.tensor_type.elem_type
        if declared and tensor.data_type != declared:
            raise worker.Failed(f"input {value_info.name!r} came as "
                                f"{onnx.TensorProto.DataType.Name(tensor.data_type)}, the graph declares "
                                f"{onnx.TensorProto.DataType.Name(declared)}")
        model.graph.initializer.append(tensor)
    if model.ir_version >= IR_INITIALIZERS_APART:
        keep = [i for i in model.graph.input if i.name in initializers]
        del model.graph.input[:]
        model.graph.input.extend(keep)
    return model


def serve(distribution, optimize, what):
    """Serves `optimize(model) -> model`, the optimizer of the PyPI `distribution`; `what` says
    what is run, for the hello's runtime.build."""
    version = importlib.metadata.version(distribution)

    def run(case):
        model = onnx.load(case.model_path, load_external_data=False)
        initializers = {i.name for i in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in initializers]
        return optimize(with_inputs_as_initializers(model, case.feeds(names)))

    runtime = {"name": distribution, "version": version,
               "build": f"{what}; every input an initializer; evaluated by the runner's reference"}
    worker.serve(run, f"{distribution} {version}", runtime, accepts_node=False, replies="model")
