"""tests/conftest.py keeps `make test-fast` free of synth and child processes, and proves it.

An inner pytest session (pytester) over small test files shows the markers it sets and the guard
that fails an unmarked test starting a process; a child `pytest --collect-only` over the Makefile's
fast selection shows that collecting it imports no aws_cdk (which would start cdk's node process).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytest_plugins = ["pytester"]

# The inner session's conftest: the project's hooks, as tests/conftest.py defines them.
INNER_CONFTEST = """
from tests.conftest import (  # noqa: F401
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_call,
    pytest_runtest_protocol,
)
"""
UNIT_TESTS = """
import pytest


def test_starts_a_process_without_a_mark():
    import subprocess

    subprocess.run(["true"], check=True)


def test_starts_a_process_and_swallows_the_refusal():
    import subprocess

    try:
        subprocess.run(["true"], check=True)
    except Exception:
        pass


@pytest.mark.slow
def test_starts_a_process_marked_slow():
    import subprocess

    subprocess.run(["true"], check=True)


def test_starts_nothing():
    pass
"""
CHILD_MODULE = """
import subprocess


def test_runs_true():
    subprocess.run(["true"], check=True)
"""


def _fast_selection() -> tuple[list[str], str]:
    """The folders and the -m expression of the Makefile's test-fast target."""
    makefile = (REPO / "Makefile").read_text()
    folders = re.search(r"^FAST_TESTS := (.+)$", makefile, re.M)
    expression = re.search(r'\$\(FAST_TESTS\) -m "([^"]+)"', makefile)
    assert folders and expression, "the Makefile's FAST_TESTS or test-fast's -m expression moved"
    return folders[1].split(), expression[1]


@pytest.fixture
def inner(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makepyfile(test_units=UNIT_TESTS, test_child_module=CHILD_MODULE)
    pytester.syspathinsert(REPO)
    return pytester


@pytest.mark.slow  # the inner session's allowed tests do start processes
def test_the_fast_selection_fails_a_unit_test_that_starts_a_process_and_leaves_marked_ones_out(inner):
    _, expression = _fast_selection()
    result = inner.runpytest_inprocess("-m", expression, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2, deselected=2)
    result.stdout.fnmatch_lines(["*test_starts_a_process_without_a_mark started a child process (true)*"])
    result.stdout.fnmatch_lines(["*test_starts_a_process_and_swallows_the_refusal started a child process*"])


@pytest.mark.slow
def test_a_full_run_still_fails_the_unmarked_test_and_runs_the_marked_ones(inner):
    result = inner.runpytest_inprocess("-p", "no:cacheprovider")
    # The module importing subprocess is marked slow by the conftest and may start its process.
    result.assert_outcomes(passed=3, failed=2)


# Run in a child interpreter: records which test files were being imported when aws_cdk was.
CDK_IMPORT_PROBE = """
import sys, traceback, pytest

importers = []

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "aws_cdk":
            importers.extend(f.filename for f in traceback.extract_stack() if "/tests/" in f.filename)

sys.meta_path.insert(0, Spy())
code = pytest.main([*sys.argv[2:], "-m", sys.argv[1], "--collect-only", "-q", "-p", "no:cacheprovider"])
print("aws_cdk imported by", importers if "aws_cdk" in sys.modules else "nothing")
raise SystemExit(code)
"""


@pytest.mark.slow
def test_collecting_the_fast_selection_imports_no_aws_cdk():
    folders, expression = _fast_selection()
    command = [sys.executable, "-c", CDK_IMPORT_PROBE, expression, *folders]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.rstrip().splitlines()[-1] == "aws_cdk imported by nothing", done.stdout.splitlines()[-1]


GROUPED_CONFTEST = (
    INNER_CONFTEST
    + '''
import os

import pytest


@pytest.fixture(scope="session")
def synthesized():
    """Stands in for the session synth: leaves one file per creation, named after the worker."""
    made = os.path.join(os.environ["TRACES"], "made")
    os.makedirs(made, exist_ok=True)
    open(os.path.join(made, os.environ["PYTEST_XDIST_WORKER"]), "w").close()
'''
)
# What both grouping runs share: a trace file per event (TRACES/<kind>/<name>) and eight ungrouped tests.
TRACED_TESTS = """
import os

import pytest


def trace(kind, name):
    folder = os.path.join(os.environ["TRACES"], kind)
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, name), "w").close()


@pytest.mark.parametrize("n", range(8))
def test_alone(n):
    pass
"""
GROUPED_TESTS = (
    TRACED_TESTS
    + """

@pytest.mark.parametrize("n", range(8))
def test_uses_the_synth(synthesized, n):
    trace("ran", f"{n}-{os.environ['PYTEST_XDIST_WORKER']}")
"""
)


@pytest.mark.slow  # two xdist workers
def test_the_users_of_the_session_synth_run_on_one_worker_with_one_synth(pytester, monkeypatch, tmp_path):
    """xdist's loadgroup honours the group tests/conftest.py gives them (it did not under pytest 9 with
    pytest-xdist 3.8: requirements.in pins pytest below 9 until it does)."""
    made, workers = _run_on_two_workers(pytester, monkeypatch, tmp_path, GROUPED_TESTS)
    assert len(made) == 1 and workers == set(made), (made, workers)


MODULE_SYNTH_TESTS = (
    TRACED_TESTS
    + """
pytestmark = pytest.mark.synth  # as a module that imports aws_cdk or tests.synth is marked


@pytest.fixture(scope="module")
def template():
    trace("made", os.environ["PYTEST_XDIST_WORKER"])


@pytest.mark.parametrize("n", range(8))
def test_reads_the_modules_template(template, n):
    trace("ran", f"{n}-{os.environ['PYTEST_XDIST_WORKER']}")
"""
)


@pytest.mark.slow  # two xdist workers
def test_a_module_that_synthesizes_once_for_its_tests_runs_them_on_one_worker(pytester, monkeypatch, tmp_path):
    """Spread over the workers, each one would build the module's template again (the pipeline's was
    built three times in one run)."""
    made, workers = _run_on_two_workers(pytester, monkeypatch, tmp_path, MODULE_SYNTH_TESTS)
    assert len(made) == 1 and workers == set(made), (made, workers)


def _run_on_two_workers(pytester, monkeypatch, tmp_path, tests: str) -> tuple[list[str], set[str]]:
    """Runs `tests` (16 of them) on two xdist workers under the project's conftest: (the workers that
    built the shared fixture, the workers that ran the tests using it)."""
    pytester.makeconftest(GROUPED_CONFTEST)
    pytester.makepyfile(test_grouped=tests)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("TRACES", str(tmp_path))
    plugins = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:typeguard"]
    result = pytester.runpytest_inprocess("-n", "2", "--dist", "loadgroup", *plugins)
    result.assert_outcomes(passed=16)
    made = [path.name for path in (tmp_path / "made").iterdir()]
    workers = {path.name.split("-")[1] for path in (tmp_path / "ran").iterdir()}
    return made, workers
