"""Fixtures shared by every test folder."""

from __future__ import annotations

import copy
import functools
import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from tests import child_guard

# Node 20 works for synth; jsii's end-of-life banner would only clutter test output (README, Toolchain).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

if TYPE_CHECKING:
    from schema import Project
    from tests.synth import Synthesized

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_CONFIG = REPO / "config"


def example_project(env_name: str = "dev") -> Project:
    """The example config's environment `env_name`, loaded and validated (no CDK involved): a copy of
    one load per process, so a test may change its copy (a copy takes ~1 ms, a load ~10 ms)."""
    return copy.deepcopy(_loaded_example(env_name))


@functools.cache
def _loaded_example(env_name: str) -> Project:
    from schema import load_project

    return load_project(EXAMPLE_CONFIG, env_name)


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory) -> Synthesized:
    """The example `dev` environment, synthesized once per session (cdk-nag runs as part of it)."""
    from tests.synth import synthesize  # imports aws_cdk: only sessions that synthesize pay for it

    return synthesize(EXAMPLE_CONFIG, "dev", tmp_path_factory.mktemp("cdk.out"))


@pytest.fixture(scope="session")
def emulator() -> Iterator:
    """One local Bedrock emulator per test session (per xdist worker), serving the sample corpus.

    No delay between events, to keep tests fast; a test that needs one sets `delay_ms` through
    `emulator.set_faults(...)`. Call `emulator.reset()` after changing faults (tests/local does it
    automatically). Point boto3 at `emulator.url`, or use `emulator.client()`.
    """
    from local.emulator import start_emulator

    with start_emulator(port=0, delay_ms=0) as handle:
        yield handle


@pytest.fixture(scope="session")
def endpoint(emulator) -> Iterator:
    """One streaming endpoint per session (real uvicorn on 127.0.0.1, port 0) in front of `emulator`,
    configured like the example `acme` tenant over the emulator's corpus (tests/endpoint_server.py).

    Yields an EndpointHandle: `.url`, `.settings`, `.metric_lines` (EMF JSON it wrote). Local mode is
    on: requests without an `x-amzn-request-context` header act as `endpoint.default_caller`.
    For other tenant settings, start your own with `tests.endpoint_server.start_endpoint(...)`.
    """
    from tests.endpoint_server import start_endpoint

    with start_endpoint(emulator) as handle:
        yield handle


@pytest.fixture(scope="module")
def akb_local(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """`akb local` as a child process, one per test module (tests/akb_local.py): the real emulator and
    endpoint, on free ports, ready once its banner is printed, stopped with Ctrl-C after the module.

    Configure it with the module's marker, e.g. `pytestmark = pytest.mark.akb_local(tenant="globex",
    front_door="api_gateway", caller_arn=PORTAL)` (fields of LocalOptions). Yields an AkbLocal: `.url`,
    `.emulator_url`, `.banner`, `.sent()` (the emulator's journal), `.faults`, `.client_env()`.
    Its result cache is a fresh folder. Tests using it are marked `slow` and run on one xdist worker.
    """
    from tests.akb_local import LocalOptions, run_akb_local

    marker = request.node.get_closest_marker("akb_local")
    options = LocalOptions(**marker.kwargs) if marker else LocalOptions()
    with run_akb_local(options, tmp_path_factory.mktemp("akb-local-cache")) as running:
        yield running


@pytest.fixture
def start_akb_local(tmp_path: Path) -> Iterator:
    """Factory for a test that needs an `akb local` of its own (to stop it itself, or with a config it
    writes): `start_akb_local(tenant="acme", config=path, ...)` (LocalOptions fields) returns a running
    AkbLocal; each is stopped after the test if the test did not stop it. Tests using it are `slow`."""
    from contextlib import ExitStack
    from itertools import count

    from tests.akb_local import LocalOptions, run_akb_local

    numbers = count()
    with ExitStack() as running:

        def start(**options: Any) -> Any:
            cache = tmp_path / f"akb-local-cache-{next(numbers)}"
            cache.mkdir()
            return running.enter_context(run_akb_local(LocalOptions(**options), cache))

        yield start


@pytest.fixture(autouse=True)
def no_process_wide_sse_exit() -> Iterator[None]:
    """Fails the test that set sse-starlette's process-wide exit flag, and clears it for the next one.

    uvicorn's signal handler, once called in a process (sse-starlette wraps it), sets that flag, and from
    then on every SSE response in the process ends at once: the MCP SDK's among them, so a later test of
    the same xdist worker would fail far from the cause (a CI run lost the gateway door's tests so)."""
    yield
    sse = sys.modules.get("sse_starlette.sse")
    if sse is not None and sse.AppStatus.should_exit:
        sse.AppStatus.should_exit = False
        pytest.fail("this test set sse-starlette's AppStatus.should_exit (a uvicorn exit signal in-process)")


# What a test uses that keeps it out of `make test-fast`: session servers (in-process threads),
# the session synth, a child process.
# (dynamodb_server, quota_dynamodb: moto's DynamoDB-compatible server on 127.0.0.1.)
_SERVER_FIXTURES = frozenset({"emulator", "endpoint", "dynamodb_server", "quota_dynamodb"})
_SYNTH_FIXTURES = frozenset({"synthesized"})
_CHILD_FIXTURES = frozenset({"akb_local", "start_akb_local"})
# Per-test timeout for synth tests (the default is pyproject's `timeout`): the session synth takes
# ~10 s on a quiet machine and, in a new worktree, first bundles the Lambda's wheels (~1 min).
SYNTH_TIMEOUT_SECONDS = 300


# Modules whose use starts a process: the standard library's, and tests/iam_simulation.py (IAM's
# evaluator runs in node).
_CHILD_MODULES = ("subprocess", "tests.iam_simulation")


def _imports(module: ModuleType, *prefixes: str) -> bool:
    """Whether `module` imported one of `prefixes` (a module, or a function or class of it) at its top."""
    names = _origins(module)
    return any(name == prefix or name.startswith(prefix + ".") for name in names for prefix in prefixes)


@functools.cache
def _origins(module: ModuleType) -> frozenset[str]:
    """The modules the names at `module`'s top come from; once per test module, not once per test (a
    module's hundred parametrized tests read the same names)."""

    def origin(value: object) -> str:
        return value.__name__ if isinstance(value, ModuleType) else str(getattr(value, "__module__", "") or "")

    return frozenset(origin(value) for value in vars(module).values())


@pytest.hookimpl(tryfirst=True)  # before the -m deselection and xdist's loadgroup read the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks what `make test-fast` leaves out, from what each test uses, so nothing is tagged by hand.

    - `server`: the test's fixture closure reaches a session server (emulator, endpoint);
    - `synth`: it uses the session synth, or its module imports aws_cdk or tests.synth (it builds a stack of its own);
      with a longer timeout; the session synth's users share one xdist group (one synth per run), and
      so do the tests of a module that synthesizes once for them all (a module-scoped fixture), or each
      worker that runs one of them would synthesize it again;
    - `slow`: its module imports subprocess or tests/iam_simulation.py, or it uses a fixture that starts a child process
      (`akb_local`, whose users share one xdist group per module: one `akb local` per module).
    A test marked none of these that starts a process anyway fails (tests/child_guard.py).
    """
    for item in items:
        module = getattr(item, "module", None)
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & _SERVER_FIXTURES:
            item.add_marker(pytest.mark.server)
        imports_cdk = module is not None and _imports(module, "aws_cdk", "tests.synth")
        if (fixtures & _SYNTH_FIXTURES or imports_cdk) and not item.get_closest_marker("synth"):
            item.add_marker(pytest.mark.synth)
        if fixtures & _SYNTH_FIXTURES:
            item.add_marker(pytest.mark.xdist_group("synth"))
        if item.get_closest_marker("synth") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SYNTH_TIMEOUT_SECONDS))
        if fixtures & _CHILD_FIXTURES or (module is not None and _imports(module, *_CHILD_MODULES)):
            item.add_marker(pytest.mark.slow)
        if "akb_local" in fixtures:
            item.add_marker(pytest.mark.xdist_group(f"akb_local:{item.nodeid.split('::')[0]}"))
        is_grouped = item.get_closest_marker("xdist_group") is not None
        if item.get_closest_marker("synth") and not is_grouped and _shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(f"module:{item.nodeid.split('::')[0]}"))


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a fixture built once per module (or package) and shared by its tests."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope in ("module", "package") for chain in definitions for d in chain)


def pytest_configure(config: pytest.Config) -> None:
    child_guard.install()
    # The young generation is collected every 700 allocations by default: the tests allocate millions of
    # short-lived objects (templates, events, JSON) and each pass walks them all. 50,000 keeps the same
    # collections, a few hundred times less often: `make test-fast` took 17.6-17.7 user-seconds against
    # 18.7-19.8 without it (two runs each, alternating); `make test` is dominated by children and synths.
    gc.set_threshold(50_000, 20, 20)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What collecting imported (modules, their classes and functions) lives until the run ends: frozen
    out of the garbage collector's way (gc.freeze), its full collections walk only what the tests
    create. About a tenth of `make test-fast`'s CPU."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session) -> None:
    """One full collection of what the tests left (unraisable exceptions it finds are still reported),
    then the rest frozen too: pytest's own end-of-run cleanup repeats five full passes over a heap the
    run has filled, which took ~2 s at the end of every run."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """While a test marked none of slow/server/synth runs (setup to teardown), it may start no process."""
    unit = not any(item.get_closest_marker(name) for name in child_guard.MARKERS)
    child_guard.watch(item.nodeid if unit else None)
    try:
        return (yield)
    finally:
        child_guard.watch(None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> object:
    """Fails a unit test that started a process even if its code caught the guard's exception."""
    result = yield
    problem = child_guard.violation()
    if problem:
        pytest.fail(problem, pytrace=False)
    return result
