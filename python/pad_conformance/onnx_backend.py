"""Serves any ONNX backend (``onnx.backend.base.Backend``: a class, or a module with the same
functions, such as ``onnxruntime.backend``) as a pad-conformance worker:

    pad-conformance --backend "exec:python -m pad_conformance.onnx_backend onnxruntime.backend"

For each data set: ``supports_device(device)`` or ``is_compatible(model, device)`` false is
``unsupported``; else ``prepare(model, device, **options).run(inputs)`` gives the outputs
(prepared once per model; ``--option KEY=VALUE`` adds to `options`, VALUE read as JSON when it
is JSON: ``--option intra_op_num_threads=1`` for onnxruntime). ``unittest.SkipTest`` (how a
backend skips a test of ONNX's backend suite) and ``NotImplementedError`` are ``unsupported``;
other exceptions of the backend are replied as `pad_conformance.worker.serve` replies them.
Only the backend's calls answer for it: what the adapter does itself (loading the model with
onnx, writing the outputs, each in the element type the backend returned) is ``failed`` when
it breaks, never a refusal. The inputs are numpy arrays (ml_dtypes for bfloat16, float8 and
the sub-byte types), as ONNX's backend tests hand them: a backend that takes no such arrays
refuses or fails on them.
"""

import argparse
import importlib
import importlib.metadata
import json
import sys
import unittest

from . import worker


class BackendWorker:
    """`run(case)` for an ONNX backend on one device."""

    def __init__(self, backend, device="CPU", options=None):
        self.backend = backend
        self.device = device
        self.options = dict(options or {})
        self.prepared = {}  # model path -> the backend's prepared model (a BackendRep)

    def __call__(self, case):
        # The backend's calls (supports_device, is_compatible, prepare, run) are its answer;
        # the adapter's own work — loading the case's model here, writing the outputs in
        # pad_conformance.worker — is failed when it breaks, never the backend refusing.
        if not self.backend.supports_device(self.device):
            raise worker.Unsupported(f"the backend does not support device {self.device}")
        if case.model_path not in self.prepared:
            model = load_model(case.model_path)
            if not self.backend.is_compatible(model, self.device):
                raise worker.Unsupported(f"the backend says the model is not compatible with device {self.device}")
            self.prepared[case.model_path] = self.backend.prepare(model, self.device, **self.options)
        inputs = list(case.inputs)
        # Returned as the backend gave it (a tuple of arrays, by onnx.backend's API): the worker
        # writes it, or replies failed saying why it cannot.
        return self.prepared[case.model_path].run(inputs)


def load_model(path):
    """The case's model as a ModelProto; InputError (failed) when onnx cannot load it."""
    try:
        import onnx

        return onnx.load(path)
    except Exception as error:  # onnx's, protobuf's, the file system's: the adapter's failure
        raise worker.InputError(f"loading the case's model {path} with onnx: {error}") from error


def kind_of(error):
    """The reply kind of an exception of the backend: ONNX's backend tests skip what a backend
    raises unittest.SkipTest for, so it is unsupported, as NotImplementedError is; else as
    the worker replies (pad_conformance.worker.error_kind)."""
    if isinstance(error, (unittest.SkipTest, NotImplementedError)):
        return "unsupported"
    return worker.error_kind(error)


def option(text):
    """KEY=VALUE as (key, value), VALUE read as JSON when it is JSON, else as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KEY=VALUE")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def load(target):
    """The backend `MODULE[:ATTR]` names: the module itself, or its attribute ATTR."""
    module_name, _, attribute = target.partition(":")
    backend = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        backend = getattr(backend, part)
    missing = [name for name in ("prepare", "is_compatible", "supports_device") if not hasattr(backend, name)]
    if missing:
        raise ValueError(f"{target} is no onnx.backend.base.Backend: it has no {', '.join(missing)}")
    return backend


def runtime_of(target):
    """The hello's runtime: the distribution that provides the backend's top-level package."""
    package = target.partition(":")[0].split(".")[0]
    try:
        distributions = importlib.metadata.packages_distributions().get(package) or [package]
        return {"name": distributions[0], "version": importlib.metadata.version(distributions[0]),
                "build": f"onnx.backend {target}"}
    except importlib.metadata.PackageNotFoundError:
        return {"name": package, "build": f"onnx.backend {target}"}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pad_conformance.onnx_backend",
                                     description="Serves an onnx.backend.base.Backend as a pad-conformance worker.")
    parser.add_argument("target", metavar="MODULE[:ATTR]", help="the backend, e.g. onnxruntime.backend")
    parser.add_argument("--device", default="CPU", help="the device to prepare models for (default CPU)")
    parser.add_argument("--option", type=option, action="append", default=[], metavar="KEY=VALUE",
                        help="a keyword argument of prepare (repeatable)")
    parser.add_argument("--name", help="the worker's display name (default: the backend and its version)")
    args = parser.parse_args(argv)
    try:
        backend = load(args.target)
    except (ImportError, AttributeError, ValueError) as error:
        parser.exit(2, f"pad_conformance.onnx_backend: {error}\n")
    runtime = runtime_of(args.target)
    name = args.name or " ".join(filter(None, [args.target, runtime.get("version")]))
    worker.serve(BackendWorker(backend, args.device, dict(args.option)), name=name, runtime=runtime,
                 accepts_node=False, kind_of=kind_of)


if __name__ == "__main__":
    # Under -m this file runs as __main__: serve from the imported module, as the worker does.
    from pad_conformance.onnx_backend import main as _main

    sys.exit(_main())
