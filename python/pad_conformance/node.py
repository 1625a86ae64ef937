"""The Pad-family node as the runner read it from the model and this data set's inputs
(the request's `node`, docs/backend-protocol.md), as a small typed class. Unvalidated: a
data set that must be refused gets its node as written, so that the worker can refuse it.
"""

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .tensors import numpy_dtype

PARAMETERS = ("pads", "constant_value", "axes", "shape")
SOURCES = ("attribute", "initializer", "input", "absent")


@dataclass(repr=False)
class Node:
    """The node of a request.

    - ``op`` (``"Pad"`` or ``"CenterCropPad"``), ``domain`` (``"ai.onnx"`` or
      ``"com.microsoft"``), ``version`` (the operator version the opset selects);
    - ``graph_nodes``, ``op_types``: the graph's node count and distinct op types;
      ``is_graph`` is true for a graph with helper ops (the upstream ``*_expanded`` cases);
    - ``mode``: the mode attribute as written (``"constant"`` when absent; None for CenterCropPad);
    - ``pads``, ``axes``, ``shape``: lists of ints as written (negatives kept), or None;
    - ``constant_value``: a numpy scalar of its dtype (an array when it has several
      elements, which must be refused), or None (absent, or over the 64 KiB the runner
      writes in a node: read it from the inputs then);
    - ``sources``: parameter name -> ``"attribute"``, ``"initializer"``, ``"input"`` or
      ``"absent"``; ``attributes``: every attribute of the node, name -> value (JSON form).
    """

    op: str
    domain: str
    version: int
    graph_nodes: int
    op_types: list
    mode: Optional[str]
    pads: Optional[list]
    constant_value: Any
    axes: Optional[list]
    shape: Optional[list]
    sources: dict
    attributes: dict

    @property
    def is_graph(self):
        """True when the model has more nodes than this one (helper ops around it)."""
        return self.graph_nodes > 1

    def __repr__(self):
        return (f"Node({self.domain}::{self.op}-{self.version}, mode={self.mode!r}, pads={self.pads}, "
                f"axes={self.axes}, constant_value={self.constant_value!r}, sources={self.sources})")

    @classmethod
    def from_json(cls, node):
        """The Node of the request's `node` object; ValueError naming the field when malformed."""
        if not isinstance(node, dict):
            raise ValueError(f"node: not an object: {node!r}")
        graph = node.get("graph") or {}
        params, sources = {}, {}
        for name in PARAMETERS:
            param = node.get(name)
            if param is None:
                sources[name] = "absent"
                params[name] = None
                continue
            if not isinstance(param, dict) or param.get("from") not in SOURCES:
                raise ValueError(f"node.{name}: not a parameter object: {param!r}")
            sources[name] = param["from"]
            value = param.get("value")
            if value is None:
                params[name] = None
            elif name == "constant_value":
                params[name] = constant(value, f"node.{name}")
            else:
                params[name] = integers(value, f"node.{name}")
        return cls(
            op=node.get("op"),
            domain=node.get("domain"),
            version=node.get("version"),
            graph_nodes=int(graph.get("nodes", 1)),
            op_types=list(graph.get("op_types", [])),
            mode=node.get("mode"),
            sources=sources,
            attributes=dict(node.get("attributes") or {}),
            **params,
        )


def integers(value, what):
    """A JSON array of integers (those beyond ±2^53 written as decimal strings) as ints."""
    if not isinstance(value, list):
        raise ValueError(f"{what}: not an array: {value!r}")
    try:
        return [_integer(v) for v in value]
    except (TypeError, ValueError):
        raise ValueError(f"{what}: not an array of integers: {value!r}") from None


def _integer(v):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(v)
    return int(v)


_FLOATS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


def _float(v):
    if isinstance(v, bool) or isinstance(v, list):
        raise TypeError(v)
    return _FLOATS[v] if isinstance(v, str) else float(v)


def constant(value, what):
    """The constant value {"dtype", "shape", "value"} as a numpy scalar of its dtype, or an
    array when it holds more than one element."""
    if not isinstance(value, dict):
        raise ValueError(f"{what}: not an object: {value!r}")
    dtype_name = value.get("dtype")
    dtype = numpy_dtype(dtype_name, what)
    if "value" not in value:
        return None  # too large for the node: the inputs hold it
    elements = value.get("value")
    # A complex element is itself a pair [re, im]: one element is that pair, several a list of pairs.
    single = not isinstance(elements, list) or (dtype.kind == "c" and not any(isinstance(v, list) for v in elements))
    flat = [elements] if single else elements
    try:
        if dtype_name == "string":
            array = np.empty(len(flat), dtype=object)
            array[:] = [str(v).encode("utf-8") for v in flat]
        elif dtype.kind in "iu":
            array = np.array([_integer(v) for v in flat], dtype=dtype)
        elif dtype.kind == "b":
            array = np.array([bool(v) for v in flat], dtype=dtype)
        elif dtype.kind == "c":
            array = np.array([complex(_float(re), _float(im)) for re, im in flat], dtype=dtype)
        else:
            array = np.array([_float(v) for v in flat]).astype(dtype)
    except (TypeError, ValueError, KeyError, OverflowError):
        raise ValueError(f"{what}: {elements!r} is not a {dtype_name} value") from None
    shape = value.get("shape")
    if isinstance(shape, list) and all(isinstance(d, int) for d in shape) and int(np.prod(shape)) == array.size:
        array = array.reshape(shape)
    # One element (of shape [] or [1]) is the scalar a node takes; more must be refused.
    return array.reshape(-1)[0] if array.size == 1 else array
