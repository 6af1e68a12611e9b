"""InvokeAgent on the emulator, decoded by botocore's own event-stream parser (a real boto3 client)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from botocore.exceptions import EventStreamError

from client.evaluation.local_target import corpus_settings
from local.emulator.agent_runtime import local_agent_ids


def _register(emulator, tenant: str, settings_json: str, max_bytes: int = 20_000) -> tuple[str, str]:
    agent_id, alias_id = local_agent_ids(tenant)
    body = {"agentId": agent_id, "agentAliasId": alias_id, "settings": settings_json, "responseMaxBytes": max_bytes}
    request = urllib.request.Request(f"{emulator.url}/_emulator/agents", data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.loads(response.read()) == {"agentId": agent_id, "agentAliasId": alias_id}
    return agent_id, alias_id


@pytest.fixture
def agent(emulator):
    return _register(emulator, "sample", corpus_settings(emulator).to_json())


def _events(emulator, agent, **extra) -> list[dict]:
    agent_id, alias_id = agent
    response = emulator.client().invoke_agent(
        agentId=agent_id, agentAliasId=alias_id, sessionId="s-1", inputText="How do I rotate an API key?", **extra
    )
    assert response["sessionId"] == "s-1"
    return list(response["completion"])


def test_trace_shows_rationale_tool_call_and_observation_then_the_answer(emulator, agent):
    events = _events(emulator, agent, enableTrace=True)
    steps = [next(iter(e["trace"]["trace"]["orchestrationTrace"])) for e in events if "trace" in e]
    assert steps == ["rationale", "invocationInput", "observation", "observation"]
    call = events[1]["trace"]["trace"]["orchestrationTrace"]["invocationInput"]["actionGroupInvocationInput"]
    assert call["function"] == "search_knowledge" and call["executionType"] == "LAMBDA"
    observed = events[2]["trace"]["trace"]["orchestrationTrace"]["observation"]["actionGroupInvocationOutput"]["text"]
    assert observed.startswith("status: complete") and "[1] docs/" in observed
    answer = events[-1]["chunk"]["bytes"].decode()
    assert "rotate" in answer and "Sources:" in answer


def test_without_trace_only_the_answer_chunk_arrives(emulator, agent):
    events = _events(emulator, agent)
    assert [next(iter(e)) for e in events] == ["chunk"]


def test_identity_refusal_ends_the_stream_with_dependency_failed(emulator):
    settings = corpus_settings(emulator)
    trusted = settings.__class__(**{**settings.__dict__, "user_context": "trusted"})
    agent = _register(emulator, "trusted-tenant", trusted.to_json())
    with pytest.raises(EventStreamError) as raised:
        _events(emulator, agent, enableTrace=True)
    assert "dependencyFailedException" in str(raised.value)


def test_the_turns_user_id_reaches_the_retrieval_as_user_context(emulator):
    settings = corpus_settings(emulator)
    trusted = settings.__class__(**{**settings.__dict__, "user_context": "trusted"})
    agent = _register(emulator, "trusted-tenant", trusted.to_json())
    emulator.client()  # same journal as the handler's calls
    events = _events(emulator, agent, sessionState={"promptSessionAttributes": {"userId": "alice"}})
    assert "chunk" in events[-1]
    with urllib.request.urlopen(f"{emulator.url}/_emulator/requests", timeout=10) as response:
        requests = json.loads(response.read())
    agentic = [r for r in requests if r.get("path") == "/agenticRetrieveStream"]
    assert agentic and agentic[-1]["body"]["userContext"] == {"userId": "alice"}


def test_small_response_limit_truncates_and_the_answer_says_so(emulator):
    agent = _register(emulator, "tiny", corpus_settings(emulator).to_json(), max_bytes=600)
    events = _events(emulator, agent, enableTrace=True)
    observed = events[2]["trace"]["trace"]["orchestrationTrace"]["observation"]["actionGroupInvocationOutput"]["text"]
    assert len(observed.encode()) <= 600 and "truncated:" in observed
    assert "truncated" in events[-1]["chunk"]["bytes"].decode()


def test_unknown_agent_is_resource_not_found(emulator):
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as raised:
        emulator.client().invoke_agent(agentId="NOPE000000", agentAliasId="NOPE000000", sessionId="s-1", inputText="q")
    assert raised.value.response["Error"]["Code"] == "ResourceNotFoundException"
