"""scripts/backends/mnn/venv_digest.py, which tells that MNN's quarantined venv is unchanged."""

import importlib.util
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "backends", "mnn", "venv_digest.py")
spec = importlib.util.spec_from_file_location("venv_digest", SCRIPT)
venv_digest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(venv_digest)


def a_venv(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_bytes(b"interpreter")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "MNN.py").write_bytes(b"converter")
    venv_digest.record(str(tmp_path))
    return tmp_path


def test_an_unchanged_venv_has_no_changes(tmp_path):
    assert venv_digest.changes(str(a_venv(tmp_path))) == []


def test_every_file_added_removed_or_changed_is_named(tmp_path):
    venv = a_venv(tmp_path)
    (venv / "bin" / "pip").write_bytes(b"installed behind your back")
    (venv / "lib" / "MNN.py").write_bytes(b"converted")  # same size, other content
    (venv / "bin" / "python").unlink()
    assert venv_digest.changes(str(venv)) == ["added bin/pip", "removed bin/python", "changed lib/MNN.py"]


def test_a_missing_digest_is_a_change(tmp_path):
    (tmp_path / "x").write_bytes(b"")
    [change] = venv_digest.changes(str(tmp_path))
    assert change.startswith("no readable digest")


def test_check_exits_2_naming_the_changed_file(tmp_path):
    venv = a_venv(tmp_path)
    (venv / "lib" / "aliyun.py").write_bytes(b"telemetry")
    run = subprocess.run([sys.executable, SCRIPT, "check", str(venv)], capture_output=True, text=True)
    assert run.returncode == 2
    assert "added lib/aliyun.py" in run.stderr
