"""Issue 26 item 4: the end user is stated on every agent turn, never inherited from an earlier one.

Through the emulator's InvokeAgent with the real boto3 client (client/agent_client.py), which follows
Bedrock's session-state semantics (docs/facts-and-decisions.md): `sessionAttributes` persist for the
session, `promptSessionAttributes` for one turn. The client states the user in
`promptSessionAttributes` on every turn; the action group reads it there only and refuses a session
that carries a `userId` session attribute, which would outlive the turn that set it.
INC-2041 in the sample wiki is readable only by `dana` and `erin` (its .acl.json side file).
"""

from __future__ import annotations

import pytest
from botocore.exceptions import EventStreamError

from client.agent_client import AgentTarget, ask_agent
from client.evaluation.local_target import corpus_settings
from client.local_agent import register

QUESTION = "What was the root cause of the Ledgerline write outage in INC-2041?"


@pytest.fixture
def target(emulator) -> AgentTarget:
    """The agent of a tenant whose documents carry ACLs (`user_context: trusted`)."""
    settings = corpus_settings(emulator)
    trusted = settings.__class__(**{**settings.__dict__, "user_context": "trusted"})
    agent_id, alias_id = register(emulator.url, "acl-tenant", trusted, response_max_bytes=20_000)  # as akb local does
    return AgentTarget(agent_id, alias_id, "us-west-2", emulator.url)


def _answer(emulator, target: AgentTarget, session_id: str, user_id: str | None) -> str:
    steps = list(ask_agent(target, QUESTION, session_id=session_id, user_id=user_id, client=emulator.client()))
    return steps[-1].text


def _user_contexts(emulator) -> list[object]:
    """The userContext of every AgenticRetrieveStream call the action group made (the emulator's journal)."""
    return [r["body"].get("userContext") for r in emulator.requests() if r.get("path") == "/agenticRetrieveStream"]


def test_a_later_turn_without_a_user_is_refused_not_answered_as_the_first_turns_user(emulator, target):
    first = _answer(emulator, target, "s-dana", "dana")
    assert "incidents/INC-2041" in first  # control: dana may read it, so the refusal below is not luck
    calls = len(_user_contexts(emulator))
    with pytest.raises(EventStreamError) as raised:
        _answer(emulator, target, "s-dana", None)
    assert "dependencyFailedException" in str(raised.value)
    assert len(_user_contexts(emulator)) == calls  # nothing reached the knowledge bases


def test_each_turn_reads_as_the_user_it_states(emulator, target):
    assert "incidents/INC-2041" in _answer(emulator, target, "s-shared", "dana")
    second = _answer(emulator, target, "s-shared", "alice")
    assert _user_contexts(emulator)[-1] == {"userId": "alice"}
    assert "incidents/INC-2041" not in second  # its source, not a page that mentions it


def _invoke_raw(emulator, target: AgentTarget, session_id: str, state: dict | None) -> list[dict]:
    extra = {"sessionState": state} if state is not None else {}
    response = emulator.client().invoke_agent(
        agentId=target.agent_id, agentAliasId=target.alias_id, sessionId=session_id, inputText=QUESTION, **extra
    )
    return list(response["completion"])


def test_a_user_id_session_attribute_is_refused_on_its_turn_and_every_later_one(emulator, target):
    """An older client's `sessionAttributes.userId` would persist for the session: refused, and the
    emulator keeps it as Bedrock does, so the next turn (no state at all) is refused too."""
    for state in ({"sessionAttributes": {"userId": "dana"}}, None):
        with pytest.raises(EventStreamError) as raised:
            _invoke_raw(emulator, target, "s-old-client", state)
        assert "promptSessionAttributes" in str(raised.value)
    assert _user_contexts(emulator) == []


def test_prompt_session_attributes_reach_only_their_own_turn(emulator, target):
    _invoke_raw(emulator, target, "s-raw", {"promptSessionAttributes": {"userId": "erin"}})
    assert _user_contexts(emulator)[-1] == {"userId": "erin"}
    with pytest.raises(EventStreamError):
        _invoke_raw(emulator, target, "s-raw", None)


def test_prompt_session_attributes_must_map_strings_to_strings(emulator, target):
    from botocore.exceptions import ClientError

    client = emulator.client(parameter_validation=False)
    with pytest.raises(ClientError) as raised:
        client.invoke_agent(
            agentId=target.agent_id,
            agentAliasId=target.alias_id,
            sessionId="s-bad",
            inputText=QUESTION,
            sessionState={"promptSessionAttributes": {"userId": 7}},
        )
    assert raised.value.response["Error"]["Code"] == "ValidationException"
