"""The cache end to end: real HTTP streaming, the real app, the emulator behind real boto3 clients.

A hit keeps the stream's contract (a CacheHit trace first, then text/result, then done with
cache: hit) without calling AgenticRetrieveStream; versions, users, revoked access, bypass and
every kind of unfinished answer keep a request away from a stored one.
"""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from contract import metric_names as names
from lambdas.endpoint.cache.dynamodb_store import DynamoDbStore
from local.emulator import kb_id_for
from tests.children import wait_until
from tests.endpoint_server import context_header, iter_frames, start_endpoint
from tests.lambdas.endpoint.cache.conftest import cached_service
from tests.lambdas.endpoint.conftest import sent_bodies

QUESTION = "How do I rotate an API key without downtime?"
# A question of two parts: the planner retrieves for each (a place for a retrieval to fail).
TWO_PARTS = "How do I rotate an API key, and what are the rate limits?"
# A multi-hop question allowed one iteration: its only plan still searches, so it stops at the limit.
HOPS = "Which team owns the runbook for the error Contoso Analytics hit in TCK-1240?"
ALICE = "arn:aws:sts::123456789012:assumed-role/acme-app/alice"
BOB = "arn:aws:sts::123456789012:assumed-role/acme-app/bob"


def ask(endpoint, question=QUESTION, caller=ALICE, **body):
    headers = context_header(caller, request_id=str(uuid.uuid4()))
    with httpx.stream(
        "POST", f"{endpoint.url}/v1/query", json={"question": question, **body}, headers=headers, timeout=30
    ) as response:
        assert response.status_code == 200, response.read()
        return list(iter_frames(response))


def metric_documents(endpoint, name: str, timeout: float = 5.0) -> list[dict]:
    """EMF documents holding `name`; metrics are written as the stream is finalized, so wait for one."""

    def written() -> list[dict]:
        return [json.loads(line) for line in endpoint.metric_lines if f'"{name}"' in line]

    return wait_until(written, f"an EMF document with {name}", timeout)


def value(document: dict, name: str) -> float:
    """An EMF metric's value (request_metrics.MetricSet writes a one-element list)."""
    found = document[name]
    return found[0] if isinstance(found, list) else found


def wait_stored(cache, before: int, timeout: float = 5.0) -> None:
    """The entry is written after `done` went out; wait for it rather than racing the next request."""
    wait_until(lambda: cache.store.stats("acme").counters["stored"] > before, "the answer stored", timeout)


@pytest.fixture
def cached(emulator):
    settings, cache = cached_service(emulator)
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        yield endpoint, cache


def test_a_repeat_is_served_from_the_cache_with_the_same_contract_and_no_upstream_call(cached, emulator):
    endpoint, cache = cached
    first = ask(endpoint)
    wait_stored(cache, 0)
    calls = len(sent_bodies(emulator))
    second = ask(endpoint)
    assert len(sent_bodies(emulator)) == calls  # no AgenticRetrieveStream call for the hit
    assert first[-1].data["cache"] == "miss" and second[-1].data["cache"] == "hit"
    hit_trace = second[0]
    assert hit_trace.type == "trace" and hit_trace.data["step"] == "CacheHit"
    assert hit_trace.data["ageSeconds"] >= 0 and len(hit_trace.data["keyVersion"]) == 16
    # text/result exactly as the original streamed them, then done.
    assert [(f.type, f.data) for f in second[1:-1]] == [(f.type, f.data) for f in first if f.type in ("text", "result")]
    done = second[-1].data
    assert done["stopReason"] == first[-1].data["stopReason"] == "complete"
    assert done["iterations"] == 0 and done["estimatedCostUsd"] == 0 and done["mode"] == "agentic"


def test_cosmetic_variants_share_the_entry_and_other_users_do_not(cached):
    endpoint, cache = cached
    ask(endpoint)
    wait_stored(cache, 0)
    assert ask(endpoint, "how do I rotate an API key without downtime")[-1].data["cache"] == "hit"
    assert ask(endpoint, caller=BOB)[-1].data["cache"] == "miss"  # another userContext: another scope


def test_a_completed_ingestion_makes_the_entry_stale(emulator):
    settings, cache = cached_service(emulator)
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        ask(endpoint)
        wait_stored(cache, 0)
        emulator.complete_ingestion(kb_id_for("docs"))
        cache.versions.refresh_seconds = 0  # the minute has passed
        frames = ask(endpoint)
        assert frames[-1].data["cache"] == "miss" and frames[0].data["step"] != "CacheHit"
        assert cache.store.stats("acme").counters["stale_rejected"] == 1
        endpoint.wait_idle()  # its metrics are written as the request ends
        stale = metric_documents(endpoint, names.STALE_REJECTED)
        assert any(value(doc, names.STALE_REJECTED) == 1 for doc in stale)


def test_a_revoked_document_is_not_served_from_the_cache(emulator):
    """alice may read the roadmap; once her access is revoked, her cached answer is not reused."""
    settings, cache = cached_service(emulator)
    question = "What is on the 2025 roadmap?"
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        first = ask(endpoint, question)
        shown = [r.get("documentId") for f in first if f.type == "result" for r in f.data.get("results", [])]
        assert "internal/roadmap-2025.md" in shown
        wait_stored(cache, 0)
        assert ask(endpoint, question)[-1].data["cache"] == "hit"
        emulator.set_acl(kb_id_for("docs"), "internal/roadmap-2025.md", ["bob"])  # no new content version
        again = ask(endpoint, question)
    assert again[-1].data["cache"] == "miss"
    shown_now = [r.get("documentId") for f in again if f.type == "result" for r in f.data.get("results", [])]
    assert "internal/roadmap-2025.md" not in shown_now
    assert cache.store.stats("acme").counters["acl_denied"] == 1


def test_a_request_may_bypass_the_cache(cached, emulator):
    endpoint, cache = cached
    ask(endpoint)
    wait_stored(cache, 0)
    calls = len(sent_bodies(emulator))
    assert ask(endpoint, cache="bypass")[-1].data["cache"] == "bypass"
    assert len(sent_bodies(emulator)) == calls + 1


@pytest.mark.parametrize(
    "faults, question",
    [
        ({"fail_retrievals": 1}, TWO_PARTS),  # a FAILED retrieval: a partial answer
        ({"error_after_events": 3}, QUESTION),  # an error mid-stream
    ],
)
def test_unfinished_answers_are_never_stored(cached, emulator, faults, question):
    endpoint, cache = cached
    emulator.set_faults(**faults)
    first = ask(endpoint, question)
    assert first[-1].data["cache"] == "miss"
    endpoint.wait_idle()  # the request is over: had it stored the answer, the counter would say so
    assert cache.store.stats("acme").counters["stored"] == 0
    assert ask(endpoint, question)[-1].data["cache"] == "miss"


def test_a_guardrail_intervention_is_never_stored(emulator):
    emulator.register_guardrail(
        "localacmeguardrail", "1", {"wordPolicyConfig": {"wordsConfig": [{"text": "forbidden"}]}}
    )
    settings, cache = cached_service(emulator, guardrail_id="localacmeguardrail", guardrail_version="1")
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        frames = ask(endpoint, "Tell me something forbidden")
        warnings = [g for f in frames if f.type == "trace" for g in f.data.get("guardrail", [])]
        assert any(g["action"] == "INTERVENED" for g in warnings)
        endpoint.wait_idle()
        assert cache.store.stats("acme").counters["stored"] == 0


def test_a_deadline_stop_is_never_stored(emulator):
    emulator.set_faults(delay_ms=400)
    settings, cache = cached_service(emulator, deadline_seconds=1)
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        headers = context_header(ALICE, request_id=str(uuid.uuid4()))
        with httpx.stream(
            "POST", f"{endpoint.url}/v1/query", json={"question": QUESTION}, headers=headers, timeout=30
        ) as response:
            # Either way the deadline won: in the stream (`done` says so), or before the first event
            # reached the client (a 504 `deadline`, when the machine is slow).
            if response.status_code == 504:
                assert json.loads(response.read())["error"]["code"] == "deadline"
            else:
                assert list(iter_frames(response))[-1].data["stopReason"] == "deadline"
        endpoint.wait_idle()
        assert cache.store.stats("acme").counters["stored"] == 0


def test_an_iteration_limit_answer_is_replayed_with_its_honest_stop_reason(cached):
    endpoint, cache = cached
    first = ask(endpoint, HOPS, maxAgentIteration=1)
    assert first[-1].data["stopReason"] == "iteration_limit"
    wait_stored(cache, 0)
    second = ask(endpoint, HOPS, maxAgentIteration=1)
    assert second[-1].data["cache"] == "hit" and second[-1].data["stopReason"] == "iteration_limit"


def test_a_tenant_without_a_cache_reports_cache_off(emulator):
    from tests.endpoint_server import tenant_settings

    with start_endpoint(emulator, tenant_settings()) as endpoint:
        assert ask(endpoint)[-1].data["cache"] == "off"


def test_an_unreadable_version_bypasses_the_cache_instead_of_guessing(emulator):
    settings, cache = cached_service(emulator)

    def broken():
        raise ConnectionError("bedrock-agent unreachable")

    cache.versions._client_factory = broken
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        frames = ask(endpoint)
    assert frames[-1].data["cache"] == "bypass" and frames[-1].data["stopReason"] == "complete"


def test_cache_metrics_are_emitted_per_request_with_the_tenant_dimension(cached):
    endpoint, cache = cached
    ask(endpoint)
    wait_stored(cache, 0)
    done = ask(endpoint)[-1].data
    endpoint.wait_idle()  # its metrics are written as the request ends
    documents = metric_documents(endpoint, names.CACHE_HITS)
    (mine,) = [d for d in documents if d.get("correlation_id") == done["requestId"] and names.CACHE_HITS in d]
    (directive,) = mine["_aws"]["CloudWatchMetrics"]
    assert directive["Dimensions"] == [[names.TENANT_DIMENSION]]
    assert {m["Name"] for m in directive["Metrics"]} == set(names.CACHE_METRICS)
    assert value(mine, names.CACHE_HITS) == 1 and value(mine, names.CACHE_MISSES) == 0
    assert value(mine, names.CACHE_HIT_LATENCY_MS) >= 0


def test_the_dynamodb_store_serves_hits_through_real_boto3_calls(emulator, cache_table):
    client, table = cache_table()
    settings, cache = cached_service(emulator, DynamoDbStore(client, table))
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        ask(endpoint)
        wait_stored(cache, 0)
        assert ask(endpoint)[-1].data["cache"] == "hit"
    items = client.scan(TableName=table)["Items"]
    assert {item["pk"]["S"] for item in items} == {"acme"}  # every item under the tenant's partition


def test_an_answer_with_more_pages_is_never_stored_and_a_later_page_bypasses(emulator):
    """A page token is single-use and bound to the service's state: it cannot be replayed from a cache."""
    settings, cache = cached_service(emulator, max_results=2)
    with start_endpoint(emulator, settings, cache=cache) as endpoint:
        first = ask(endpoint, TWO_PARTS)
        token = first[-1].data.get("nextToken")
        assert token and first[-1].data["cache"] == "miss"
        endpoint.wait_idle()
        assert cache.store.stats("acme").counters["stored"] == 0
        page = ask(endpoint, TWO_PARTS, nextToken=token)
    assert page[-1].data["cache"] == "bypass"
