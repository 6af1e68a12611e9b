"""What `akb ask` and the MCP tools show when the tenant is over its share of the agentic quota: a
degraded answer labelled as such, a 429 with its code and retry time (real endpoint, real emulator)."""

from __future__ import annotations

import re

import pytest

from client.endpoint_client import Client, EndpointHTTPError
from client.mcp_tools import Outcome, _failure_message, success_result
from tests.client.test_ask import akb_ask
from tests.lambdas.endpoint.quota.test_quota_over_http import tiny_share_endpoint

COMPARE = "Compare exports and webhooks"  # `auto` routes it to agentic retrieval

pytestmark = pytest.mark.slow  # `akb ask` runs as its own process (tests.client.test_ask.akb_ask)


@pytest.fixture
def over_share(emulator):
    """An endpoint whose tenant has used its one agentic token (6 a minute, a burst of one)."""
    with tiny_share_endpoint(emulator) as endpoint:
        with Client(endpoint.url) as client:
            client.ask(COMPARE, mode="agentic")
        yield endpoint


def test_akb_ask_labels_a_degraded_answer_and_still_exits_0(over_share):
    run = akb_ask("--url", over_share.url, "--mode", "auto", COMPARE)
    assert run.returncode == 0, run.stderr
    assert "DEGRADED (quota): answered with single-shot retrieval (mode retrieve), not agentic retrieval" in run.stdout
    assert "| mode retrieve | stop complete | degraded quota |" in run.stdout.splitlines()[-1]


def test_akb_ask_quiet_keeps_the_answer_alone_on_stdout_and_says_degraded_on_stderr(over_share):
    run = akb_ask("--url", over_share.url, "--mode", "auto", "--quiet", COMPARE)
    assert run.returncode == 0 and "DEGRADED" not in run.stdout
    assert run.stderr.startswith("DEGRADED (quota)")


def test_akb_ask_shows_the_429_code_and_when_to_retry(over_share):
    run = akb_ask("--url", over_share.url, "--mode", "agentic", COMPARE)
    assert run.returncode == 3
    assert run.stderr.startswith("akb ask: HTTP 429 tenant_quota_exceeded: tenant 'acme' has used its share")
    assert re.search(r"\(retry after \d+ s\)", run.stderr)  # Retry-After, as the client read it


def test_the_mcp_tools_label_a_degraded_answer_first_and_report_the_429(over_share):
    outcome = Outcome()
    with Client(over_share.url) as client:
        for event in client.query(COMPARE, mode="auto"):
            outcome.add(event)
        with pytest.raises(EndpointHTTPError) as refused:
            list(client.query(COMPARE, mode="agentic"))
    result = success_result(outcome, with_answer=True)
    assert result.content[0].text.startswith("DEGRADED (quota)") and result.structured_content["degraded"] == "quota"
    message = _failure_message(refused.value)
    assert "HTTP 429 tenant_quota_exceeded" in message and "(retry after " in message
