"""Serves any ONNX backend (``onnx.backend.base.Backend``: a class, or a module with the same
functions, such as ``onnxruntime.backend``) as a pad-conformance worker:

    pad-conformance --backend "exec:python -m pad_conformance.onnx_backend onnxruntime.backend"

For each data set: ``supports_device(device)`` or ``is_compatible(model, device)`` false is
``unsupported``; else ``prepare(model, device, **options).run(inputs)`` gives the outputs
(prepared once per model; ``--option KEY=VALUE`` adds to `options`, VALUE read as JSON when it
is JSON: ``--option intra_op_num_threads=4`` for onnxruntime, whose preset gives 1).

What an exception of the backend says is decided by its type, most specific first:
``--error-kind MODULE.TYPE=KIND`` (repeatable; KIND is ``unsupported``, ``failed`` or
``refused``) names a runtime's own types; a built-in preset names those of the runtimes it
knows (PRESETS: onnxruntime's ``NotImplemented`` is ``unsupported``, its ``RuntimeException``,
``EPFail`` and ``EngineError`` are ``failed``, as scripts/backends/onnxruntime-worker says them;
its ``prepare`` gets one intra-op thread), applied when the backend is that runtime's, unless
``--no-preset``; ``unittest.SkipTest`` (how a backend skips a test of ONNX's backend suite) and
``NotImplementedError`` are ``unsupported``; other exceptions are replied as
`pad_conformance.worker.serve` replies them.

The worker names itself "RUNTIME VERSION through onnx.backend", and its hello's runtime says
so in its build, so that every report and page tells this path from a runtime's own worker.
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


# The kinds --error-kind may give an exception type.
KINDS = ("unsupported", "failed", "refused")

# What the adapter knows of some runtimes, keyed by the backend's top-level package: the kinds
# of their exception types, and the options `prepare` gets unless --option says otherwise.
# onnxruntime's status codes, as its Python binding raises them (scripts/backends/onnxruntime-
# worker uses the same map): an unimplemented kernel is unsupported; an internal error or an
# execution provider's failure is the runtime failing; its other codes (Fail, InvalidArgument,
# InvalidGraph, …) are its checks refusing the model or its inputs. One intra-op thread, as the
# worker's sessions have: the runner already runs --jobs data sets at once, and onnxruntime's
# default pool spins every core (what that costs: docs/python.md#through-onnxbackend).
PRESETS = {
    "onnxruntime": {
        "kinds": {
            "onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented": "unsupported",
            "onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException": "failed",
            "onnxruntime.capi.onnxruntime_pybind11_state.EPFail": "failed",
            "onnxruntime.capi.onnxruntime_pybind11_state.EngineError": "failed",
        },
        "options": {"intra_op_num_threads": 1},
    },
}


def preset_of(target):
    """The preset of the backend `target` ({"kinds", "options"}), empty for a runtime the adapter
    does not know."""
    return PRESETS.get(target.partition(":")[0].split(".")[0], {})


class ErrorKinds:
    """The reply kind of an exception of the backend (`kind_of` for `serve`): the kind the
    most specific of its classes has in `kinds` ({exception class: kind}); else unsupported for
    unittest.SkipTest (ONNX's backend tests skip what a backend raises it for) and
    NotImplementedError; else as the worker replies (pad_conformance.worker.error_kind)."""

    def __init__(self, kinds=None):
        self.kinds = dict(kinds or {})

    def __call__(self, error):
        for cls in type(error).__mro__:
            if cls in self.kinds:
                return self.kinds[cls]
        if isinstance(error, (unittest.SkipTest, NotImplementedError)):
            return "unsupported"
        return worker.error_kind(error)


def exception_type(path):
    """The exception class `path` (MODULE.TYPE, the module imported) names; ValueError saying why
    not."""
    # The longest prefix that imports is the module; the rest are attributes (a nested class).
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module_name, attribute = ".".join(parts[:split]), parts[split:]
        try:
            found = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name is not None and module_name.startswith(error.name):
                continue  # no such module: a shorter prefix may be one
            raise ValueError(f"{path}: importing {module_name}: {error}") from error
        except ImportError as error:  # the module is there, but does not import
            raise ValueError(f"{path}: importing {module_name}: {error}") from error
        for name in attribute:
            found = getattr(found, name, None)
        if not (isinstance(found, type) and issubclass(found, BaseException)):
            raise ValueError(f"{path}: {module_name} has no exception type {'.'.join(attribute)}")
        return found
    raise ValueError(f"{path}: no module of it can be imported (expected MODULE.TYPE)")


def error_kind_option(text):
    """MODULE.TYPE=KIND as (MODULE.TYPE, KIND), KIND checked; the type is imported later, once
    the backend's own modules are."""
    path, sep, kind = text.partition("=")
    if not sep or not path or "." not in path:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MODULE.TYPE=KIND")
    if kind not in KINDS:
        raise argparse.ArgumentTypeError(f"{text!r}: the kind {kind!r} is none of {', '.join(KINDS)}")
    return path, kind


def error_kinds(target, given, preset=True):
    """The ErrorKinds of the backend `target`: its runtime's preset (unless `preset` is false;
    a type a release of the runtime lacks is left out), then the (MODULE.TYPE, KIND) pairs
    `given`, which override it. ValueError naming a given type that cannot be imported."""
    kinds = {}
    if preset:
        for path, kind in preset_of(target).get("kinds", {}).items():
            try:
                kinds[exception_type(path)] = kind
            except ValueError:  # another release of the runtime, without this status
                pass
    for path, kind in given:
        kinds[exception_type(path)] = kind
    return ErrorKinds(kinds)


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


def prepare_options(target, given, preset=True):
    """The keyword arguments of `prepare` for the backend `target`: its runtime's preset (unless
    `preset` is false), then the (KEY, VALUE) pairs `given`, which override it."""
    options = dict(preset_of(target).get("options", {})) if preset else {}
    options.update(given)
    return options


# How every report and page tells this path from a runtime's own worker: in the display name
# and in the runtime's build.
THROUGH = "through onnx.backend"


def runtime_of(target, device):
    """The hello's runtime: the distribution that provides the backend's top-level package, its
    build saying that it runs through onnx.backend, and which backend, on `device`."""
    package = target.partition(":")[0].split(".")[0]
    runtime = {"name": package, "build": f"{THROUGH} {target}", "device": device}
    try:
        distributions = importlib.metadata.packages_distributions().get(package) or [package]
        runtime.update(name=distributions[0], version=importlib.metadata.version(distributions[0]))
    except importlib.metadata.PackageNotFoundError:
        pass
    return runtime


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pad_conformance.onnx_backend",
                                     description="Serves an onnx.backend.base.Backend as a pad-conformance worker.")
    parser.add_argument("target", metavar="MODULE[:ATTR]", help="the backend, e.g. onnxruntime.backend")
    parser.add_argument("--device", default="CPU", help="the device to prepare models for (default CPU)")
    parser.add_argument("--option", type=option, action="append", default=[], metavar="KEY=VALUE",
                        help="a keyword argument of prepare (repeatable)")
    parser.add_argument("--error-kind", type=error_kind_option, action="append", default=[],
                        metavar="MODULE.TYPE=KIND",
                        help="the reply kind (unsupported, failed, refused) of the backend's exceptions of "
                             "that type and its subclasses (repeatable; overrides the preset)")
    parser.add_argument("--no-preset", action="store_true",
                        help="leave out what the adapter knows of the runtime (onnxruntime's exception types "
                             "and one intra-op thread)")
    parser.add_argument("--name", help="the worker's display name "
                                       f"(default: the runtime and its version, {THROUGH})")
    args = parser.parse_args(argv)
    try:
        backend = load(args.target)
        kinds = error_kinds(args.target, args.error_kind, preset=not args.no_preset)
    except (ImportError, AttributeError, ValueError) as error:
        parser.exit(2, f"pad_conformance.onnx_backend: {error}\n")
    options = prepare_options(args.target, args.option, preset=not args.no_preset)
    runtime = runtime_of(args.target, args.device)
    name = args.name or " ".join(filter(None, [runtime["name"], runtime.get("version"), THROUGH]))
    worker.serve(BackendWorker(backend, args.device, options), name=name, runtime=runtime,
                 accepts_node=False, kind_of=kinds)


if __name__ == "__main__":
    # Under -m this file runs as __main__: serve from the imported module, as the worker does.
    from pad_conformance.onnx_backend import main as _main

    sys.exit(_main())
