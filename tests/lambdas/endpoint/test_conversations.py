"""Conversations over real HTTP: the app, the emulator's AgentCore Memory behind a real boto3 client.

The session's actor is the verified end user (never a body field), so another user naming the same
session id restores nothing; a session-bound turn never touches the result cache; the request's
session options are validated with clear errors.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from contract.settings import MemorySettings
from lambdas.endpoint.conversation import actor_id_for
from tests.endpoint_server import context_header, iter_frames, start_endpoint, tenant_settings
from tests.lambdas.endpoint.cache.conftest import cached_service
from tests.lambdas.endpoint.conftest import sent_bodies

MEMORY = MemorySettings(memory_id="akb_test_memory-abcdefghij")
ALICE = "arn:aws:sts::123456789012:assumed-role/acme-app/alice"
BOB = "arn:aws:sts::123456789012:assumed-role/acme-app/bob"
UNLISTED = "arn:aws:sts::123456789012:assumed-role/other-app/carol"  # its session name is nobody's id
FIRST, FOLLOW_UP = "What are the Pro plan's rate limits?", "And on Enterprise?"


def post(endpoint, body, caller=ALICE):
    headers = context_header(caller, request_id=str(uuid.uuid4()))
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, headers=headers, timeout=30) as response:
        if response.status_code != 200:
            response.read()
            return response.status_code, response.json()["error"]
        return 200, list(iter_frames(response))


def answer(frames):
    return next(f.data["answer"] for f in frames if f.type == "result")


@pytest.fixture
def endpoint(emulator):
    with start_endpoint(emulator, tenant_settings(user_context="caller", memory=MEMORY)) as running:
        yield running


def test_a_follow_up_is_answered_from_the_restored_session(endpoint, emulator):
    session = f"s-{uuid.uuid4()}"
    status, first = post(endpoint, {"question": FIRST, "sessionId": session})
    assert status == 200 and first[-1].data["memory"] == {"sessionId": session, "persistence": "default"}
    status, second = post(endpoint, {"question": FOLLOW_UP, "sessionId": session})
    assert status == 200
    assert "Enterprise plan: 5,000 requests per minute" in answer(second)
    steps = [f.data["step"] for f in second if f.type == "trace"]
    assert steps[:2] == ["SessionHistoryLoad", "SessionHistoryLoad"]
    sent = sent_bodies(emulator)[-1]
    assert sent["memoryConfiguration"] == {
        "memoryId": MEMORY.memory_id,
        "sessionBinding": {"actorId": actor_id_for("alice"), "sessionId": session},
        "persistenceMode": "DEFAULT",
    }
    assert sent["messages"] == [{"role": "user", "content": {"text": FOLLOW_UP}}]


def test_another_users_same_session_id_restores_nothing_of_the_first_users(endpoint, emulator):
    session = f"s-{uuid.uuid4()}"
    post(endpoint, {"question": FIRST, "sessionId": session}, caller=ALICE)
    status, bobs = post(endpoint, {"question": FOLLOW_UP, "sessionId": session}, caller=BOB)
    assert status == 200
    loaded = [f.data["message"] for f in bobs if f.type == "trace" and f.data["step"] == "SessionHistoryLoad"]
    assert loaded[-1] == "Loaded 0 earlier turns of the session"
    speculative = next(f.data for f in bobs if f.type == "trace" and f.data["step"] == "SpeculativeRetrieval")
    assert [q["text"] for q in speculative["subQueries"]] == [FOLLOW_UP]  # not completed from alice's turn
    assert sent_bodies(emulator)[-1]["memoryConfiguration"]["sessionBinding"]["actorId"] == actor_id_for("bob")


def test_the_body_cannot_name_the_actor_and_persistence_none_leaves_the_session_unchanged(endpoint, emulator):
    session = f"s-{uuid.uuid4()}"
    status, error = post(endpoint, {"question": FIRST, "sessionId": session, "actorId": "bob"})
    assert status == 400 and "unknown field 'actorId'" in error["message"]
    status, frames = post(endpoint, {"question": FIRST, "sessionId": session, "persistence": "none"})
    assert status == 200 and frames[-1].data["memory"]["persistence"] == "none"
    status, follow = post(endpoint, {"question": FOLLOW_UP, "sessionId": session})
    assert "Loaded 0 earlier turns of the session" in [f.data.get("message") for f in follow if f.type == "trace"]


@pytest.mark.parametrize(
    ("body", "code", "fragment"),
    [
        ({"question": "q", "sessionId": "has space"}, "invalid_request", "sessionId"),
        ({"question": "q", "sessionId": "x" * 101}, "invalid_request", "sessionId"),
        ({"question": "q", "persistence": "none"}, "invalid_request", "only with a 'sessionId'"),
        ({"question": "q", "sessionId": "s1", "mode": "retrieve"}, "invalid_request", "mode 'agentic'"),
        ({"question": "q", "sessionId": "s1", "nextToken": "t"}, "invalid_request", "nextToken"),
        (
            {"question": "q", "sessionId": "s1", "generateResponse": False, "persistence": "default"},
            "invalid_request",
            "generateResponse",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c"},
                ],
                "sessionId": "s1",
            },
            "invalid_request",
            "not 'messages'",
        ),
    ],
)
def test_bad_session_options_are_refused_with_what_to_change(endpoint, body, code, fragment):
    status, error = post(endpoint, body)
    assert status == 400 and error["code"] == code and fragment in error["message"], error


def test_a_tenant_without_memory_refuses_a_session_id(emulator):
    with start_endpoint(emulator, tenant_settings(user_context="caller")) as running:
        status, error = post(running, {"question": FIRST, "sessionId": "s1"})
    assert status == 400 and error["code"] == "memory_not_enabled"


def test_no_vouched_end_user_means_no_binding_or_a_refusal_when_memory_is_required(emulator):
    with start_endpoint(emulator, tenant_settings(user_context="none", memory=MEMORY)) as running:
        status, frames = post(running, {"question": FIRST, "sessionId": "s1"}, caller=UNLISTED)
        assert status == 200 and "no verified end user" in frames[-1].data["memory"]["unbound"]
        assert "memoryConfiguration" not in sent_bodies(emulator)[-1]
    required = MemorySettings(memory_id=MEMORY.memory_id, required=True)
    with start_endpoint(emulator, tenant_settings(user_context="none", memory=required)) as running:
        status, error = post(running, {"question": FIRST, "sessionId": "s1"}, caller=UNLISTED)
    assert status == 403 and error["code"] == "memory_user_unverified"


def test_a_session_bound_turn_bypasses_the_cache_and_says_why(emulator):
    settings, cache = cached_service(emulator, memory=MEMORY)
    with start_endpoint(emulator, settings, cache=cache) as running:
        for _ in range(2):  # the same turn twice: never stored, never served
            status, frames = post(running, {"question": FIRST, "sessionId": f"s-{uuid.uuid4()}"})
            assert status == 200
            assert frames[-1].data["cache"] == "bypass"
            assert "conversation session" in frames[-1].data["cacheReason"]
        assert cache.store.stats("acme").counters.get("stored", 0) == 0
        status, plain = post(running, {"question": FIRST})
        assert plain[-1].data["cache"] == "miss"  # the same question outside a session uses the cache


def test_the_actor_id_is_injective_and_fits_the_agentcore_pattern():
    import re

    pattern = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9\-_/]*(?::[a-zA-Z0-9\-_/]+)*[a-zA-Z0-9\-_/]*$")
    ids = ["alice", "alice@example.com", "a/b", "a_2fb", "dana.smith", "x" * 256, "é"]
    actors = [actor_id_for(user) for user in ids]
    assert len(set(actors)) == len(ids)
    assert all(pattern.match(a) and len(a) <= 255 and "/" not in a for a in actors)
