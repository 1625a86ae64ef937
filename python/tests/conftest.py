"""Shared fixtures of the Python tests: the runner binary and a way to run it with a worker.

The binary is PAD_CONFORMANCE_BIN, else the checkout's target/debug/pad-conformance (build it
first: `cargo build`). Workers run with this interpreter and the checkout's python/ on their
path, so the package under test is this one, installed or not.
"""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
sys.path.insert(0, str(PYTHON_DIR))  # the package of this checkout, installed or not


def runner_binary():
    binary = Path(os.environ.get("PAD_CONFORMANCE_BIN") or ROOT / "target" / "debug" / "pad-conformance")
    if not binary.is_file():
        pytest.fail(f"{binary} is missing: run `cargo build` (or set PAD_CONFORMANCE_BIN)")
    return binary


def worker_env():
    """The environment of the runner and so of its workers: this package first on the path,
    no bytecode written into the source tree."""
    env = dict(os.environ, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_DIR), env.get("PYTHONPATH")]))
    return env


def python_backend(*args):
    """The runner's `exec:` backend that runs this Python with `args`."""
    return "exec:" + shlex.join([sys.executable, *map(str, args)])


def run_report(backend, *args, expect=(0, 1)):
    """Runs the runner with `backend` and `args` and returns its JSON report."""
    command = [str(runner_binary()), "--backend", backend, "--format", "json", *map(str, args)]
    done = subprocess.run(command, cwd=ROOT, env=worker_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode in expect, f"{shlex.join(command)} exited {done.returncode}: {done.stderr}"
    return json.loads(done.stdout)


def cases_by_id(report):
    """The report's cases as {"case id/data set": case}."""
    return {f"{case['id']}/{case['data_set']}": case for case in report["cases"]}


@pytest.fixture
def write_worker(tmp_path):
    """Writes a worker script (Python source after the package's import) and returns the
    runner's backend spec for it."""

    def write(source, name="worker.py"):
        path = tmp_path / name
        path.write_text(source)
        return python_backend(path)

    return write


@pytest.fixture(scope="session")
def runner_offers(tmp_path_factory):
    """The `offers` of the runner's hello (None from a runner without the protocol's
    optional additions), read by a worker that writes down the hello it gets."""
    directory = tmp_path_factory.mktemp("hello")
    hello = directory / "hello.json"
    probe = directory / "probe.py"
    probe.write_text(f"""import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "hello":
        open({str(hello)!r}, "w").write(line)
        print(json.dumps({{"type": "hello", "version": 1, "name": "probe"}}), flush=True)
    else:
        print(json.dumps({{"type": "error", "id": request["id"], "kind": "unsupported", "message": "probe"}}), flush=True)
""")
    run_report(python_backend(probe), ROOT / "onnx-testdata" / "onnx-1.22.0" / "node" / "test_constant_pad")
    return json.loads(hello.read_text()).get("offers")
