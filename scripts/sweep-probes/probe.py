"""What every probe of scripts/sweep-probes/ shares: the newest model format a release reads,
found by loading tiny models, printed as one JSON object on stdout:

    {"max_ir_version": 10, "max_opset": {"ai.onnx": 21}, "source": "probe: ..."}

Each model is a single Abs node on float (Abs-13 is the newest Abs, which every release of
every runtime probed here reads), so that a refusal is about the model's format, not a missing
kernel or conversion. The IR versions are tried at BASE_OPSET, then the opsets at the highest
IR version that loads; each limit must be a threshold (every lower value loads too).

A probe is the runtime's part only: how a batch of models is loaded (`load`, its answers in
order, `(True, "")` or `(False, message)`), the sentence saying so, and the release's version;
`run` does the rest. scripts/sweep runs each probe as a script, whose directory is where
Python finds this module.
"""

import datetime
import json
import os
import re
import sys

from onnx import TensorProto, helper

IR_VERSIONS = range(3, 16)
OPSETS = range(7, 31)
BASE_OPSET = 7  # Abs-6: read by every release; IR 3 is the oldest that can hold it


def abs_model(ir_version, opset):
    graph = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["y"])],
        "probe",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    return model


def write_model(directory, ir_version, opset):
    """The model written to DIRECTORY/irK-opsetN.onnx, for runtimes that load from a file."""
    path = os.path.join(directory, f"ir{ir_version}-opset{opset}.onnx")
    with open(path, "wb") as file:
        file.write(abs_model(ir_version, opset).SerializeToString())
    return path


def each(loads):
    """A batch loader from a one-model `loads(ir_version, opset)`."""
    return lambda pairs: [loads(ir_version, opset) for ir_version, opset in pairs]


def onnxruntime_sentence(text):
    """onnxruntime's sentence of an error, without the source location and signature it puts
    before it ("... : FAIL : model.cc:256 Model::Model(...) Unsupported ...")."""
    location = re.search(r"\S+\.(?:cc|h|cpp):\d+ ", text)
    start = text.find("(", location.end()) if location else -1
    if start >= 0:
        depth = 0
        for i in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                text = text[i + 1 :].strip()
                break
    return text[:160]


def highest(values, answers):
    """The highest of `values` accepted, checking that every lower one is accepted too (the
    limit is a threshold, not a gap), and the refusal message of the first one above it
    (None when every value is accepted)."""
    accepted = [v for v, (ok, _) in zip(values, answers) if ok]
    if not accepted:
        raise SystemExit(f"probe: nothing loads ({answers[0][1]})")
    top = max(accepted)
    gaps = [v for v in values if v < top and v not in accepted]
    if gaps:
        raise SystemExit(f"probe: not a threshold, refused {gaps} below {top}")
    above = [message for v, (_, message) in zip(values, answers) if v > top]
    return top, (above[0] if above else None)


def above(kind, top, refusal):
    """What happened above the limit: the refusal, or that nothing tried was refused."""
    if refusal is None:
        return f"no {kind} refused up to {top}, the highest tried"
    return f"{kind} {top + 1}: \"{refusal}\""


def above_quoted(kind, top, refusal):
    """The refusal above the limit, quoted, empty when nothing was refused: what the
    onnxruntime probes have always written (onnxruntime refuses newer formats)."""
    return f"{kind} {top + 1}: \"{refusal or ''}\""


def run(probe, how, load, release, say_above=above):
    """Probes with `load` and prints the JSON object. `probe` names the script
    (scripts/sweep-probes/PROBE), `how` completes "an Abs model ..." (what loading means for
    this runtime), `release` is the runtime and its version as `source` ends with them."""
    irs = list(IR_VERSIONS)
    max_ir, ir_refusal = highest(irs, load([(k, BASE_OPSET) for k in irs]))
    opsets = list(OPSETS)
    max_opset, opset_refusal = highest(opsets, load([(max_ir, o) for o in opsets]))
    today = datetime.date.today().isoformat()
    source = (
        f"probe (scripts/sweep-probes/{probe}): an Abs model {how} "
        f"with IR {irs[0]}-{max_ir} (opset {BASE_OPSET}) and opset {opsets[0]}-{max_opset} (IR {max_ir}); "
        f"{say_above('IR', max_ir, ir_refusal)}; {say_above('opset', max_opset, opset_refusal)}; "
        f"{release}, {today}"
    )
    json.dump({"max_ir_version": max_ir, "max_opset": {"ai.onnx": max_opset}, "source": source}, sys.stdout)
    print()
