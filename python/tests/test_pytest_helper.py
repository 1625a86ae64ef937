"""pad_conformance.pytest against a deliberately broken function (reflect run as edge), through
pytest's own `pytester`: each test writes a small test module and runs pytest on it in a
subprocess, as a user's session would run.

The runner is conftest.py's: $PAD_CONFORMANCE_BIN, else this checkout's target/debug build.
"""

import json
import os
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import runner_binary

pytest_plugins = ["pytester"]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import pad_conformance
except ImportError:  # run from the checkout without the package installed
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import pad_conformance
# The directory the package under test is imported from, for the sessions these tests start.
PACKAGE_PATH = os.path.dirname(os.path.dirname(os.path.abspath(pad_conformance.__file__)))
# The broken function's module, importable by the worker through the session's sys.path.
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytest_helper")
FUNCTION = "broken_reflect:run"
# Three upstream data sets: reflect (which the broken backend fails), edge and wrap (which it passes).
SELECTION = ["--filter", "onnx-1.22.0/node/test_[erw]*_pad/*"]
REFLECT = "onnx-1.22.0/node/test_reflect_pad/0"
EDGE = "onnx-1.22.0/node/test_edge_pad/0"
WRAP = "onnx-1.22.0/node/test_wrap_pad/0"


def runner():
    """The runner binary, as conftest.py finds it."""
    return str(runner_binary())


@pytest.fixture
def suite(pytester, monkeypatch):
    """Writes a test module that parametrizes over cases(**arguments), with the opt-in plugin
    in its conftest, and returns a function running pytest on it with extra arguments."""
    pytester.makeconftest('pytest_plugins = ["pad_conformance.pytest"]\n')

    def run(*pytest_args, pythonpath=(), body="case.check()", **arguments):
        arguments = {"function": FUNCTION, "binary": runner(), "extra_args": SELECTION, **arguments}
        pytester.makepyfile(
            test_conformance=f"""
import sys
import pytest
sys.path.insert(0, {FIXTURES!r})
from pad_conformance.pytest import cases

@pytest.mark.parametrize("case", cases(**{arguments!r}))
def test_pad(case):
    {body}
"""
        )
        # The package under test, whichever directory pytest runs in.
        paths = [PACKAGE_PATH, *pythonpath, os.environ.get("PYTHONPATH", "")]
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", *pytest_args)

    return run


def baseline(pytester, entries):
    path = pytester.path / "known-failures.json"
    path.write_text(json.dumps({"format": 2, "expected": entries}))
    return str(path)


def test_a_broken_function_fails_its_data_sets_with_the_runners_message(suite):
    result = suite()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([f"FAILED test_conformance.py::test_pad[[]{REFLECT}[]]*"])
    # The runner's mismatch report, not a comparison of this module's own.
    result.stdout.fnmatch_lines(["*AssertionError: *output 0*"])
    assert "reflect" in result.stdout.str()


def test_a_baseline_listing_the_failures_makes_them_strict_xfails(suite, pytester):
    known = baseline(pytester, {REFLECT: {"status": "failed", "reason": "reflect runs as edge"}})
    result = suite(baseline=known)
    result.assert_outcomes(passed=2, xfailed=1)
    result.stdout.fnmatch_lines(["XFAIL test_conformance.py::test_pad[[]*test_reflect_pad/0[]] - "
                                 f"known failure in baseline {known}: reflect runs as edge"])
    assert "outdated baseline entries" not in result.stdout.str()


def test_an_entry_for_a_passing_data_set_fails_as_xpass_and_outdated_entries_are_summed_up(suite, pytester):
    known = baseline(
        pytester,
        {
            REFLECT: {"status": "failed", "reason": "reflect runs as edge"},
            EDGE: {"status": "failed", "reason": "was broken once"},
            "onnx-1.22.0/node/test_gone_pad/0": {"status": "errored", "reason": "renamed"},
        },
    )
    result = suite(baseline=known)
    # The stale entry fails the session as --strict fails a run: a parameter of its own.
    result.assert_outcomes(passed=1, xfailed=1, failed=2)
    result.stdout.fnmatch_lines([f"[[]XPASS(strict)[]] listed in baseline {known} as failed (was broken once), "
                                 "but passed: remove the entry"])
    result.stdout.fnmatch_lines([f"FAILED test_conformance.py::test_pad[[]{EDGE}[]]*"])
    result.stdout.fnmatch_lines(
        [f"E * AssertionError: the baseline {known} lists onnx-1.22.0/node/test_gone_pad/0, but no such data set exists*"]
    )
    result.stdout.fnmatch_lines(["FAILED test_conformance.py::test_pad[[]onnx-1.22.0/node/test_gone_pad/0[]]*"])
    summary = result.stdout.str().split("pad-conformance: outdated baseline entries")[1].split("short test summary")[0]
    assert f"{known}: onnx-1.22.0/node/test_gone_pad/0: names no data set" in summary
    assert f"{known}: {EDGE}: listed, but no longer fails" in summary
    assert REFLECT not in summary


def test_an_entry_for_a_data_set_the_filter_left_out_is_not_stale(suite, pytester):
    # The rule of the runner's --strict: the data set exists, this run did not select it.
    known = baseline(
        pytester,
        {
            REFLECT: {"status": "failed", "reason": "reflect runs as edge"},
            "onnx-1.22.0/node/test_constant_pad/0": {"status": "failed", "reason": "not run here"},
        },
    )
    result = suite(baseline=known)
    result.assert_outcomes(passed=2, xfailed=1)
    assert "outdated baseline entries" not in result.stdout.str()


def test_unsupported_data_sets_are_skipped_saying_why(suite, pytester):
    profile = pytester.path / "profile.toml"
    profile.write_text('modes = ["constant", "edge", "wrap"]\n')
    result = suite(profile=str(profile))
    result.assert_outcomes(passed=2, skipped=1)
    # At the test's own line, naming the data set: never at the helper's (pad_conformance/pytest.py).
    result.stdout.fnmatch_lines([f"SKIPPED [[]1[]] test_conformance.py:*: {REFLECT}: unsupported: *reflect*"])
    assert "pytest.py:" not in result.stdout.str()


def test_an_error_of_the_test_itself_is_no_known_failure(suite, pytester):
    known = baseline(pytester, {REFLECT: {"status": "failed", "reason": "reflect runs as edge"}})
    result = suite(baseline=known, body="raise KeyError('a fixture of the test broke')")
    # The baseline excuses the runner's verdict, not a test that breaks before check() runs.
    result.assert_outcomes(failed=3)


def test_k_selects_data_sets_by_name(suite):
    result = suite("-k", "edge or wrap")
    result.assert_outcomes(passed=2)
    assert REFLECT not in result.stdout.str()


def test_junitxml_names_each_data_set(suite, pytester):
    report = pytester.path / "junit.xml"
    suite(f"--junitxml={report}").assert_outcomes(passed=2, failed=1)
    names = sorted(case.get("name") for case in ET.parse(report).getroot().iter("testcase"))
    assert names == sorted(f"test_pad[{name}]" for name in (REFLECT, EDGE, WRAP))


def test_xdist_workers_share_one_run_and_report_outdated_entries(suite, pytester):
    pytest.importorskip("xdist")
    # The runner behind a script that counts its invocations.
    log = pytester.path / "invocations.log"
    counting = pytester.path / "counting-runner"
    counting.write_text(f'#!/bin/sh\necho run >> "{log}"\nexec "{runner()}" "$@"\n')
    counting.chmod(0o755)
    known = baseline(pytester, {EDGE: {"status": "failed", "reason": "was broken once"}})
    result = suite("-n", "2", baseline=known, binary=str(counting))
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*= pad-conformance: outdated baseline entries =*", f"*{EDGE}: listed, but no longer fails*"])
    # Both workers collected the same parameters from one run, written by whichever came first.
    assert log.read_text() == "run\n"


def test_a_worker_command_is_run_as_an_exec_backend(suite, monkeypatch):
    # The module on the worker's own path, since worker= hands over no sys.path.
    result = suite(
        function=None, worker=[sys.executable, "-m", "pad_conformance.worker", FUNCTION], pythonpath=[FIXTURES]
    )
    result.assert_outcomes(passed=2, failed=1)


def test_the_binary_is_looked_for_in_the_scripts_directory_then_the_variable_then_path(tmp_path, monkeypatch):
    from pad_conformance import _binary

    real = runner()
    monkeypatch.setattr(_binary, "_scripts_dirs", lambda: [str(tmp_path)])
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    monkeypatch.setenv("PAD_CONFORMANCE_BIN", str(tmp_path / "missing"))
    with pytest.raises(_binary.BinaryNotFound) as error:
        _binary.find()
    for place in (str(tmp_path / "pad-conformance"), str(tmp_path / "missing"), "PATH"):
        assert place in str(error.value)
    monkeypatch.setenv("PAD_CONFORMANCE_BIN", real)
    assert _binary.find() == real
    installed = tmp_path / "pad-conformance"
    installed.write_text("#!/bin/sh\n")
    installed.chmod(0o755)
    assert _binary.find() == str(installed)


def test_a_refusal_its_twin_did_not_verify_is_skipped_naming_the_twin(suite):
    # onnx.reference knows no com.microsoft Pad: it refuses the data set that must be refused and
    # its valid twin alike, so the refusal is not verified. Alone, a refusal it verifies
    # elsewhere is not verified either: the filter leaves its twin out.
    ms_pad = "extended/test_ext_ms_pad1_err_mode_wrap"
    result = suite(extra_args=["--filter", f"{ms_pad}*"])
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [f"SKIPPED *refusal not verified: its twin {ms_pad}_twin/0 did not pass (errored, refuses-valid), *"]
    )
    result = suite(extra_args=["--filter", "extended/test_ext_pad18_err_axes_out_of_range/0"])
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED *refusal not verified (twin not run): its twin extended/test_ext_pad18_err_axes_out_of_range_twin/0 *"]
    )
