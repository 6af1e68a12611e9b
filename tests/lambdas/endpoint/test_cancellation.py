"""Nothing outlives a request: the upstream call is cut off when the deadline passes or the client
leaves, also while Bedrock has not sent its response headers yet (real uvicorn, real boto3,
the emulator holding its answer with `delay_first_ms`). Threads and descriptors are counted in
this process, which runs the endpoint, its relay threads and the emulator alike."""

from __future__ import annotations

import os
import threading
import time

import httpx
import pytest

from tests.endpoint_server import start_endpoint, tenant_settings
from tests.lambdas.endpoint.test_streaming import QUESTION, wait_for


def _counts() -> tuple[int, int]:
    return threading.active_count(), len(os.listdir("/proc/self/fd"))


def _back_to(baseline: tuple[int, int], within: float = 1.0) -> tuple[int, int]:
    """The counts once both are at or below `baseline`, or the last counts after `within` seconds."""
    deadline = time.monotonic() + within
    counts = _counts()
    while time.monotonic() < deadline and not (counts[0] <= baseline[0] and counts[1] <= baseline[1]):
        time.sleep(0.02)
        counts = _counts()
    return counts


def _post(url: str, timeout: float) -> httpx.Response | None:
    with httpx.Client(timeout=timeout) as client:
        try:
            return client.post(f"{url}/v1/query", json=QUESTION)
        except httpx.ReadTimeout:
            return None


@pytest.fixture
def short_deadline(emulator):
    with start_endpoint(emulator, tenant_settings(deadline_seconds=1)) as handle:
        assert _post(handle.url, 30).status_code == 200  # warm: client, pooled connection, imports
        yield handle


def test_a_deadline_before_bedrocks_headers_releases_the_thread_and_socket_within_a_second(emulator, short_deadline):
    baseline = _counts()
    for _ in range(3):
        emulator.set_faults(delay_first_ms=5000)  # no headers for 5 s; the deadline is 1 s
        response = _post(short_deadline.url, 30)
        assert response is not None and response.status_code == 504
    threads, descriptors = _back_to(baseline)
    assert threads <= baseline[0], f"threads {baseline[0]} -> {threads}"
    assert descriptors <= baseline[1], f"descriptors {baseline[1]} -> {descriptors}"

    def held_calls():
        last = emulator.streams()[-3:]
        return last if len(last) == 3 and all(s["finished"] for s in last) else None

    held = wait_for(held_calls, 2)
    assert [s["outcome"] for s in held] == ["client_closed"] * 3  # each held call was cut off, none answered


def test_a_client_leaving_before_the_first_event_cancels_the_upstream_call(emulator):
    with start_endpoint(emulator) as endpoint:  # the default deadline: only the client can end it
        assert _post(endpoint.url, 30).status_code == 200
        baseline = _counts()
        emulator.set_faults(delay_first_ms=5000)
        assert _post(endpoint.url, 0.3) is None  # the client gives up after 0.3 s
        threads, descriptors = _back_to(baseline)
        assert threads <= baseline[0], f"threads {baseline[0]} -> {threads}"
        assert descriptors <= baseline[1], f"descriptors {baseline[1]} -> {descriptors}"
        record = wait_for(lambda: emulator.streams()[-1] if emulator.streams()[-1]["finished"] else None, 2)
        assert record and record["outcome"] == "client_closed" and record["events_sent"] == 0
