"""`--account-rpm`: the emulator meters AgenticRetrieveStream per account and answers Bedrock's
ThrottlingException (HTTP 429) beyond it, through boto3 like any caller; Retrieve does not count."""

from __future__ import annotations

import httpx
import pytest
from botocore.exceptions import ClientError

from local.emulator import start_emulator
from local.emulator.account_quota import AccountQuota
from tests.local.emulator_helpers import request, run


@pytest.fixture
def metered():
    """An emulator enforcing 60 agentic requests a minute: a bucket of 10 (10 s of the rate)."""
    with start_emulator(port=0, delay_ms=0, account_rpm=60) as handle:
        yield handle


def test_beyond_the_account_quota_agentic_calls_get_throttling_exception_429(metered):
    client = metered.client(retries={"mode": "standard", "total_max_attempts": 1})
    for _ in range(10):
        assert "result" in run(client, **request("exports"))[-1]
    with pytest.raises(ClientError) as caught:
        client.agentic_retrieve_stream(**request("exports"))
    error = caught.value.response
    assert (error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"]) == ("ThrottlingException", 429)
    assert "60 AgenticRetrieveStream requests per minute" in error["Error"]["Message"]
    assert metered.account_quota() == {"per_minute": 60, "admitted": 10, "throttled": 1}
    assert httpx.get(f"{metered.url}/_emulator/account-quota", timeout=5).json()["throttled"] == 1


def test_retrieve_is_not_metered_by_the_account_quota(metered):
    client = metered.client()
    kb = metered.knowledge_bases["docs"]
    for _ in range(15):
        client.retrieve(knowledgeBaseId=kb, retrievalQuery={"text": "rotate an API key"})
    assert metered.account_quota()["admitted"] == 0


def test_the_bucket_refills_at_the_rate_and_the_quota_is_off_by_default(emulator):
    now = [0.0]
    quota = AccountQuota(60, clock=lambda: now[0])
    assert [quota.take() is None for _ in range(11)] == [True] * 10 + [False]
    now[0] += 1.0  # one request's worth at 60 a minute
    assert quota.take() is None and quota.take() is not None
    assert emulator.account_quota() == {"per_minute": None}
