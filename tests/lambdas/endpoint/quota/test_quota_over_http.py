"""Fair sharing as callers see it, through the real endpoint over HTTP in front of the emulator.

The tenant's share is tiny (one request's worth), so the second agentic request of a test is over it:
`agentic` answers 429 `tenant_quota_exceeded` with Retry-After before any Bedrock call; `auto` is
answered with single-shot retrieval, labelled `done.degraded: quota`; `retrieve` never takes a token."""

from __future__ import annotations

import json

from lambdas.endpoint.quota.fair_share import FairShare
from lambdas.endpoint.quota.quota_wrapper import FairShareWrapper
from lambdas.endpoint.quota.sqlite_buckets import SqliteBuckets
from tests.endpoint_server import start_endpoint, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies
from tests.lambdas.endpoint.quota.conftest import shares
from tests.lambdas.endpoint.test_streaming import ask

AGENTIC = {"question": "Compare exports and webhooks", "mode": "agentic"}
AUTO = {"question": "Compare exports and webhooks", "mode": "auto"}  # the router picks agentic
RETRIEVE = {"question": "How do I rotate an API key?", "mode": "retrieve"}


def tiny_share_endpoint(emulator, store=None):
    """acme with 6 guaranteed agentic requests a minute and no borrowing: a burst of one (1 s of it)."""
    quota = shares({"acme": 6, "globex": 294}, burst={"acme": 6}, burst_seconds=1)["acme"]
    settings = tenant_settings(quota=quota)
    fair_share = FairShare("acme", quota, store or SqliteBuckets(":memory:"))
    return start_endpoint(emulator, settings, wrappers=[FairShareWrapper(fair_share)])


def metric_values(endpoint, name):
    """Every value of metric `name` the endpoint wrote (EMF: a list of values per document)."""
    documents = [json.loads(line) for line in endpoint.metric_lines]
    return [value for document in documents if name in document for value in document[name]]


def test_over_its_share_an_agentic_request_is_refused_with_429_and_retry_after(emulator):
    with tiny_share_endpoint(emulator) as endpoint:
        first, frames = ask(endpoint, AGENTIC)
        second, body = ask(endpoint, AGENTIC)
    assert first.status_code == 200 and frames[-1].data["mode"] == "agentic" and "degraded" not in frames[-1].data
    assert second.status_code == 429 and body["error"]["code"] == "tenant_quota_exceeded"
    assert 1 <= int(second.headers["retry-after"]) <= 10 and "retry after" in body["error"]["message"]
    assert len(sent_bodies(emulator)) == 1  # the refused request never reached Bedrock
    assert metric_values(endpoint, "QuotaAdmitted") == [1]
    assert any(json.loads(line).get("ErrorCode") == "tenant_quota_exceeded" for line in endpoint.metric_lines)


def test_over_its_share_auto_is_answered_by_single_shot_retrieval_and_says_so(emulator):
    with tiny_share_endpoint(emulator) as endpoint:
        ask(endpoint, AGENTIC)
        response, frames = ask(endpoint, AUTO)
    done, first = frames[-1].data, frames[0].data
    assert response.status_code == 200 and done["degraded"] == "quota" and done["mode"] == "retrieve"
    assert first["step"] == "Routing" and "quota is used up" in first["message"]
    assert any(f.type == "result" for f in frames) and len(sent_bodies(emulator)) == 1  # no second agentic call
    assert metric_values(endpoint, "QuotaDegraded") == [0, 1]


def test_retrieve_and_auto_routed_to_retrieve_take_no_token(emulator):
    with tiny_share_endpoint(emulator) as endpoint:
        for body in (RETRIEVE, {**RETRIEVE, "mode": "auto"}, RETRIEVE):
            response, frames = ask(endpoint, body)
            assert response.status_code == 200 and "degraded" not in frames[-1].data
        response, frames = ask(endpoint, AGENTIC)
    assert response.status_code == 200 and frames[-1].data["mode"] == "agentic"  # the one token was still there
    assert metric_values(endpoint, "QuotaAdmitted") == [1]


def test_bedrock_throttling_is_still_retried_and_takes_no_second_token(emulator):
    emulator.set_faults(throttle_before=1)
    store = SqliteBuckets(":memory:")
    with tiny_share_endpoint(emulator, store) as endpoint:
        response, frames = ask(endpoint, AGENTIC)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in ("complete", "partial", "iteration_limit")
    assert len(sent_bodies(emulator)) == 2  # Bedrock's ThrottlingException, then the retry
    assert metric_values(endpoint, "QuotaRoundTrips") == [1]


def test_a_degraded_answer_is_never_stored_in_the_result_cache(emulator):
    from tests.lambdas.endpoint.cache.conftest import cached_service

    quota = shares({"acme": 6, "globex": 294}, burst={"acme": 6}, burst_seconds=1)["acme"]
    settings, cache = cached_service(emulator, quota=quota)
    wrapper = FairShareWrapper(FairShare("acme", quota, SqliteBuckets(":memory:")))
    with start_endpoint(emulator, settings, cache=cache, wrappers=[wrapper]) as endpoint:
        ask(endpoint, AGENTIC)  # the one token
        outcomes = [ask(endpoint, AUTO)[1][-1].data for _ in range(2)]
    assert [done["degraded"] for done in outcomes] == ["quota", "quota"]
    assert [done["cache"] for done in outcomes] == ["miss", "miss"]  # the first was not stored
