"""The exceptions of a pad-conformance worker, in a module of their own so that they are the same
class objects however the worker starts: ``python -m pad_conformance.worker``, `serve` from a
script, or the pytest helper's ``cases(function=...)``. `pad_conformance.worker` re-exports them.

A function served by the worker raises `Refused`, `Unsupported` or `Failed` to say what the
runtime did; `WorkerError` and its subclasses are the package's own failures (a request it
cannot read, an answer it cannot write), replied as "failed" whatever `kind_of` says.
"""

# Exceptions that say Python itself broke, never that the backend refuses the model or its
# inputs: out of memory, a recursion too deep, an interpreter's internal error.
FAILURES = (MemoryError, RecursionError, SystemError)


class Refused(Exception):
    """The runtime refuses the model or its inputs: they are invalid. `rule` optionally names
    the refusal rule (an id of `pad-conformance rules`, docs/semantics.md#refusal-rules)."""

    def __init__(self, message, rule=None):
        super().__init__(message)
        self.rule = rule


class Unsupported(Exception):
    """The runtime does not implement what the data set asks (an element type, a mode):
    an error reply of kind "unsupported", never a refusal."""


class Failed(Exception):
    """The runtime broke (an internal error, a lost device): an error reply of kind
    "failed", which never passes a data set that must be refused."""


class WorkerError(Failed):
    """The package's own failure, not the runtime's answer: replied as "failed" whatever
    `kind_of` says, so that it can never pass a data set that must be refused."""


class InputError(WorkerError):
    """A request's input or model the worker cannot read (raised by `Case.inputs`,
    `Case.output_types` and `Case.feeds`, and by the onnx.backend adapter's loading of the
    model): the worker's failure (or the runner's), never the backend refusing the data set."""


class OutputError(WorkerError):
    """What the function returned cannot be written as the reply: not a list of arrays, another
    number of outputs than the graph declares, an array whose dtype is no ONNX element type."""
