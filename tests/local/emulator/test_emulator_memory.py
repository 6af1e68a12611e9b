"""The emulator's AgentCore Memory, through a real boto3 client: sessions keyed by memory + actor +
session, history restored into planning, write-back on DEFAULT only, memoryRetrieve from long-term
records in scope, and the model's memoryConfiguration rules as ValidationException."""

from __future__ import annotations

import botocore.exceptions
import httpx
import pytest

from local.emulator.follow_up import standalone
from tests.local.emulator_helpers import finished, request, result, run

MEMORY_ID = "akb_test_memory-abcdefghij"
FIRST, FOLLOW_UP = "What are the Pro plan's rate limits?", "And on Enterprise?"


def bound(question, actor="u-alice", session="s1", **memory):
    config = {"memoryId": MEMORY_ID, "sessionBinding": {"actorId": actor, "sessionId": session}, **memory}
    return request(question, memoryConfiguration=config)


def answer(events):
    return result(events)["generatedResponse"]["answer"]


def test_a_follow_up_is_planned_from_the_restored_session(bedrock):
    run(bedrock, **bound(FIRST))
    events = run(bedrock, **bound(FOLLOW_UP))
    assert [t["message"] for t in finished(events, "SessionHistoryLoad")] == ["Loaded 1 earlier turn of the session"]
    assert "Enterprise plan: 5,000 requests per minute" in answer(events)
    speculative = finished(events, "SpeculativeRetrieval")[0]["actions"][0]["retrieve"]["inputQuery"]["text"]
    assert speculative == "Enterprise plan rate limits"


def test_sessions_are_keyed_by_actor_and_session(bedrock):
    run(bedrock, **bound(FIRST, actor="u-alice", session="s1"))
    for actor, session in (("u-bob", "s1"), ("u-alice", "s2")):
        events = run(bedrock, **bound(FOLLOW_UP, actor=actor, session=session))
        assert finished(events, "SessionHistoryLoad")[0]["message"] == "Loaded 0 earlier turns of the session"
        speculative = finished(events, "SpeculativeRetrieval")[0]["actions"][0]["retrieve"]["inputQuery"]["text"]
        assert speculative == FOLLOW_UP  # not completed from another actor's or session's history


def test_persistence_none_leaves_the_session_unchanged(bedrock):
    run(bedrock, **bound(FIRST, persistenceMode="NONE"))
    events = run(bedrock, **bound(FOLLOW_UP))
    assert finished(events, "SessionHistoryLoad")[0]["message"] == "Loaded 0 earlier turns of the session"


def test_long_term_configs_produce_a_memory_retrieve_step_over_records_in_scope(bedrock, emulator):
    for namespace, text in (
        ("/actors/u-alice/facts", "Alice's workspace is on the Enterprise plan"),
        ("/actors/u-bob/facts", "Bob's workspace is on the Enterprise plan"),
    ):
        body = {"memoryId": MEMORY_ID, "namespace": namespace, "text": text}
        assert httpx.post(f"{emulator.url}/_emulator/memory-records", json=body).status_code == 200
    events = run(bedrock, **bound(FIRST, retrievalConfigs=[{"namespace": "/actors/u-alice/"}]))
    (step,) = [t for t in finished(events, "Retrieval") if "memoryRetrieve" in t["actions"][0]]
    assert step["actions"][0]["memoryRetrieve"] == {
        "inputQuery": {"text": FIRST},
        "memoryId": MEMORY_ID,
        "namespace": "/actors/u-alice/",
    }
    assert step["retrievalMetadata"] == [{"identifier": MEMORY_ID, "retrievalType": "BedrockAgentCoreMemory"}]
    assert [r["content"]["text"] for r in step["retrievalResponse"]] == ["Alice's workspace is on the Enterprise plan"]


@pytest.mark.parametrize(
    ("memory", "extra", "fragment"),
    [
        ({}, {}, "needs sessionBinding or retrievalConfigs"),
        (
            {"sessionBinding": {"actorId": "u-a", "sessionId": "s"}},
            {"generateResponse": False},
            "requires generateResponse",
        ),
        ({"retrievalConfigs": [{"namespace": "/a/"}, {"namespace": "/b/"}]}, {}, "less than or equal to 1"),
        ({"retrievalConfigs": [{"namespace": "/a/", "namespacePath": "/a"}]}, {}, "exactly one of namespace"),
    ],
)
def test_memory_configuration_rules_are_validation_errors(bedrock, memory, extra, fragment):
    body = request(FIRST, memoryConfiguration={"memoryId": MEMORY_ID, **memory}, **extra)
    with pytest.raises(botocore.exceptions.ClientError) as caught:
        run(bedrock, **body)
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert fragment in caught.value.response["Error"]["Message"]


def test_history_in_messages_and_a_session_together_are_refused(bedrock):
    body = bound(FOLLOW_UP)
    body["messages"] = [
        {"role": "user", "content": {"text": FIRST}},
        {"role": "assistant", "content": {"text": "1,000 requests per minute"}},
        *body["messages"],
    ]
    with pytest.raises(botocore.exceptions.ClientError, match="not both"):
        run(bedrock, **body)


def test_standalone_questions_are_left_alone_and_follow_ups_borrow_context():
    assert standalone("How do I rotate an API key?", [FIRST]) == "How do I rotate an API key?"
    assert standalone(FOLLOW_UP, []) == FOLLOW_UP
    assert standalone("What about Starter?", [FIRST, FOLLOW_UP]) == "Starter plan rate limits"
