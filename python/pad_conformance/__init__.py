"""pad-conformance from Python: serve a padding runtime to the conformance runner.

``pad_conformance.worker.serve(run)`` answers the runner's worker protocol
(docs/backend-protocol.md) around one function that takes a ``Case`` (the Pad node as the
runner read it, the inputs as numpy arrays) and returns the outputs as arrays;
``python -m pad_conformance.onnx_backend MODULE`` serves any ``onnx.backend.base.Backend``.
The exceptions a function raises (``Refused``, ``Unsupported``, ``Failed``) and the package's own
(``InputError``, ``OutputError``, never a refusal) are in ``pad_conformance.errors``.
Only numpy and ml_dtypes are needed, but with a runner older than raw tensors (onnx then).
"""

__version__ = "0.3.0"
