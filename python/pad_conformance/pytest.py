"""The corpus as pytest parameters: one per data set, judged by the `pad-conformance` runner.

    import pytest
    from pad_conformance.pytest import cases

    @pytest.mark.parametrize("case", cases(function="my_runtime.conformance:pad",
                                           baseline="known-failures.json"))
    def test_pad(case):
        case.check()

`cases(...)` runs the runner once per session for each set of arguments (`--format json`
into a temporary file) and turns each data set of its report into a `pytest.param` whose id is
the data set's name (`onnx-1.22.0/node/test_wrap_pad/0`). The judge stays in Rust: this module
reads the verdict the runner decided and never compares outputs itself.

| the runner's result                                  | the test                                  |
|------------------------------------------------------|-------------------------------------------|
| passed                                               | passes                                    |
| failed or errored (a regression)                     | fails with the runner's message           |
| known failure (listed in the baseline, same status)  | xfail(strict=True), baseline file, reason |
| listed in the baseline but passes (or unsupported)   | XPASS(strict): fails, remove the entry    |
| listed with the other of failed and errored          | fails: record the baseline again          |
| unsupported (profile or backend)                     | skipped, saying why                       |
| not applicable (no Pad-family node)                  | skipped                                   |
| fails on a basis the run does not gate on            | skipped ("not gating")                    |
| changed with the corpus since the baseline           | skipped, with the corpus changelog's line |
| refused, but its valid twin did not pass (not_verified) | skipped, naming the twin and how it ended |
| a baseline entry for no data set (stale)             | a parameter named after the entry fails   |

So a baseline that is out of date fails the session, as the runner's `--strict` fails a run: an
entry that no longer fails (XPASS(strict)), one listed with another status, and one for a data
set that does not exist — the runner's `stale` list, decided by the rule `--strict` applies (an
entry for a data set `--filter` or `--skip` left out is not stale). Give `-k` a name and the
parameters of stale entries are deselected like any other.

Skips are marks put on the parameters at collection, their reasons starting with the data set's
name, so that pytest reports them at the test's line, not at this module's.

The outdated entries are also listed at the end of the session by the opt-in plugin:
`pytest_plugins = ["pad_conformance.pytest"]` in the top-level conftest.py. Nothing loads it
otherwise.

The run is deterministic, so every pytest-xdist worker collects the same parameters in the
same order. With the plugin, xdist's workers share one run per argument set (in a directory the
controller makes, under a file lock); without it, or without fcntl, each worker runs its own.
"""

import hashlib
import json
import os
import shutil
import shlex
import subprocess
import sys
import tempfile

import pytest

from . import _binary

try:
    import fcntl
except ImportError:  # Windows: each xdist worker runs the runner itself
    fcntl = None

__all__ = ["Case", "RunFailed", "cases"]

# The key of xdist's worker output that carries the outdated baseline entries to the controller.
_WORKER_OUTPUT_KEY = "pad_conformance_outdated"
# The key of xdist's worker input naming the directory the controller made for shared runs.
_WORKER_INPUT_KEY = "pad_conformance_shared"


class RunFailed(RuntimeError):
    """The runner could not run (exit code 2 or a signal), or wrote no readable report."""


class Case:
    """One data set's result: `check()` passes, skips, or raises AssertionError with the
    runner's message. `name`, `status` (the runner's), `gate` (the baseline's result, or None)
    and `message` are there to read."""

    __slots__ = ("name", "status", "gate", "message", "_fails", "_skip")

    def __init__(self, name, status, gate, message, fails, skip=None):
        self.name = name
        self.status = status
        self.gate = gate
        self.message = message
        self._fails = fails
        self._skip = skip

    def check(self):
        if self._skip is not None:
            pytest.skip(self._skip)
        if self._fails:
            raise AssertionError(self.message or f"{self.name}: {self.status}")

    def __repr__(self):
        return f"<pad_conformance case {self.name}: {self.status}>"


# One run per argument set in this process: a list of pytest.params, and the outdated entries.
_runs = {}
# Outdated baseline entries: (baseline file, data set name or entry, what is wrong), in order.
_outdated = []
# The same, sent by xdist's workers to the controller.
_forwarded = []
# On an xdist worker (with the plugin): the directory, made by the controller, where the
# workers share each run's report. On the controller: the directory it made, removed at the end.
_shared_dir = None


def cases(worker=None, function=None, baseline=None, profile=None, binary=None, extra_args=()):
    """The data sets as `pytest.param`s for `@pytest.mark.parametrize("case", ...)`.

    worker: the worker's command (a string, run as `exec:COMMAND`, or a list of words); a
        string that already names a backend (`exec:…`, `exec-per-case:…`, `ref`) is used as is.
    function: `"module:function"` served by `python -m pad_conformance.worker` in a
        subprocess of this interpreter (a crash costs one data set, not the session), with
        this session's sys.path: its verdicts are those `serve` gives the same function (the
        exceptions of `pad_conformance.errors` are the same objects either way). Give worker
        or function; with neither the backend is `ref`.
    baseline, profile: the runner's `--baseline` and `--profile` files.
    binary: the `pad-conformance` command (default: the installed one, see _binary.find).
    extra_args: more of the runner's arguments (`["--filter", "wrap"]`, `["--timeout", "30"]`).
    """
    if worker is not None and function is not None:
        raise ValueError("cases(): give worker= or function=, not both")
    binary = binary or _binary.find()
    env = None
    if function is not None:
        backend = "exec:" + _command([sys.executable, "-m", "pad_conformance.worker", function])
        env = dict(os.environ)
        # The user's module is importable where this session imports it from.
        env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    elif worker is None:
        backend = "ref"
    elif not isinstance(worker, str):
        backend = "exec:" + _command(list(worker))
    elif worker == "ref" or worker.startswith(("exec:", "exec-per-case")):
        backend = worker
    else:
        backend = "exec:" + worker
    args = ["--backend", backend]
    if baseline is not None:
        args += ["--baseline", os.path.abspath(baseline)]
    if profile is not None:
        args += ["--profile", os.path.abspath(profile)]
    args += [str(a) for a in extra_args]
    key = (binary, tuple(args), env and env["PYTHONPATH"])
    if key not in _runs:
        _runs[key] = _run(binary, args, env, baseline)
    return list(_runs[key])


def _invoke(binary, args, env, path):
    """Runs the runner, its JSON report written to `path`."""
    command = [binary, *args, "--format", "json", "--output", path]
    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, env=env)
    # 0: nothing failed; 1: something did, which the parameters show. Anything else: no run.
    if done.returncode not in (0, 1):
        raise RunFailed(
            f"{shlex.join(command)} exited with {done.returncode}:\n" + done.stderr.decode("utf-8", "replace")[-4000:]
        )
    if not os.path.isfile(path):
        raise RunFailed(f"{shlex.join(command)} exited with {done.returncode} but wrote no report {path}")


def _read(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError) as error:
        raise RunFailed(f"the runner's report {path} cannot be read: {error}") from error


def _command(words):
    """Words as one command line for the runner's `exec:` (sh -c on Unix, cmd on Windows)."""
    return subprocess.list2cmdline(words) if os.name == "nt" else shlex.join(words)


def _run(binary, args, env, baseline):
    key = hashlib.sha256(json.dumps([binary, args, env and env["PYTHONPATH"]]).encode()).hexdigest()
    if _shared_dir is not None and fcntl is not None:
        # An xdist worker: the first worker to need this run makes it, the others read its report.
        with open(os.path.join(_shared_dir, f"{key}.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            path = os.path.join(_shared_dir, f"{key}.json")
            if not os.path.isfile(path):
                _invoke(binary, args, env, path)
            report = _read(path)
    else:
        with tempfile.TemporaryDirectory(prefix="pad-conformance-pytest-") as scratch:
            path = os.path.join(scratch, "report.json")
            _invoke(binary, args, env, path)
            report = _read(path)
    params = [_param(case, baseline) for case in report["cases"]]
    judged = report.get("baseline")
    if judged is not None:
        for name in judged.get("stale", []):
            _outdated.append((baseline, name, "names no data set: remove the entry"))
            params.append(_stale_param(baseline, name))
        for name in judged.get("unexpected_passes", []):
            _outdated.append((baseline, name, "listed, but no longer fails: remove the entry"))
        for name in judged.get("changed_status", []):
            _outdated.append((baseline, name, "listed with another status: record the baseline again"))
    return params


def _param(case, baseline=None):
    """The pytest.param of one data set of the report. What is decided before the test runs
    (a known failure, a skip) is a mark, so that pytest reports it at the test's own line, with
    a reason naming the data set and the baseline's file and entry — never at this module's
    line, as a pytest.skip() call in check() would be."""
    name = f"{case['id']}/{case['data_set']}"
    status = case["status"]
    message = case.get("message", "")
    gate = case.get("gate") or {}
    result = gate.get("result")
    listed = f"baseline {baseline}" if baseline is not None else "the baseline"
    marks = ()
    skip = None
    # Decided here, from the runner's status and gate result, once.
    fails = status in ("failed", "errored")
    if result == "known-failure":
        # Strict: a known failure still runs, and one that passes fails the session (XPASS),
        # so that the baseline never keeps an entry its data set no longer needs. Only the
        # runner's verdict (check's AssertionError) is the expected failure: any other error
        # of the test is reported as one.
        tracking = f" ({gate['tracking']})" if gate.get("tracking") else ""
        marks = pytest.mark.xfail(strict=True, raises=AssertionError,
                                  reason=f"known failure in {listed}: {gate.get('reason', '')}{tracking}")
    elif result == "fixed":
        # The check passes, so strict xfail reports XPASS(strict): the entry is outdated.
        marks = pytest.mark.xfail(strict=True, raises=AssertionError,
                                  reason=f"listed in {listed} as {gate.get('was')} ({gate.get('reason', '')}), "
                                         f"but {status}: remove the entry")
        fails = False
    elif result == "changed-status":
        fails = True
        message = (f"listed in {listed} as {gate.get('was')} ({gate.get('reason', '')}), now {status}: "
                   f"record the baseline again\n{message}")
    elif result == "changed-with-corpus":
        skip = f"changed with the corpus since {listed} was recorded: {gate.get('why', '')}"
    elif result == "not-gating" or (status in ("failed", "errored") and not case.get("gates", True)):
        skip = f"not gating: {status} on basis {case.get('basis', {}).get('kind')}, which the run does not gate on"
    elif status == "not_verified":
        # Never a pass, never a regression: the message names the twin and how it ended.
        skip = message
    elif status == "unsupported":
        skip = f"unsupported: {message}"
    elif status == "skipped":
        skip = f"not applicable: {message}"
    if skip is not None:
        # The skip summary shows a reason with the test's location, not its id: name the data set.
        skip = f"{name}: {skip}"
        marks = pytest.mark.skip(reason=skip)
    return pytest.param(Case(name, status, result, message, fails, skip), id=name, marks=marks)


def _stale_param(baseline, name):
    """A failing parameter for a baseline entry that names no data set, as `--strict` fails on it."""
    message = (
        f"the baseline {baseline} lists {name}, but no such data set exists (renamed or removed): remove the entry"
    )
    return pytest.param(Case(name, "stale", "stale", message, fails=True), id=name)


def _outdated_lines():
    seen = dict.fromkeys(tuple(entry) for entry in _outdated + _forwarded)
    return [f"{baseline}: {name}: {what}" for baseline, name, what in seen]


# The opt-in plugin's hooks (pytest_plugins = ["pad_conformance.pytest"]).


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    global _shared_dir
    if _shared_dir is None:
        _shared_dir = tempfile.mkdtemp(prefix="pad-conformance-pytest-")
    node.workerinput[_WORKER_INPUT_KEY] = _shared_dir


def pytest_configure(config):
    global _shared_dir
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get(_WORKER_INPUT_KEY):
        _shared_dir = workerinput[_WORKER_INPUT_KEY]


def pytest_unconfigure(config):
    if getattr(config, "workerinput", None) is None and _shared_dir is not None:
        shutil.rmtree(_shared_dir, ignore_errors=True)


def pytest_sessionfinish(session):
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: hand the entries to the controller
        output[_WORKER_OUTPUT_KEY] = json.dumps(_outdated)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    data = getattr(node, "workeroutput", {}).get(_WORKER_OUTPUT_KEY)
    if data:
        _forwarded.extend(tuple(entry) for entry in json.loads(data))


def pytest_terminal_summary(terminalreporter):
    lines = _outdated_lines()
    if lines:
        terminalreporter.section("pad-conformance: outdated baseline entries")
        for line in lines:
            terminalreporter.line(line)
