"""Issue 26 item 5: only methods the interceptor knows pass, and `userContext` is accepted in one place only.

JSON-RPC method names are case-sensitive: `Tools/Call` or `tools/call ` is not `tools/call`, so it is
refused (-32601), never normalised and never forwarded unchecked. A `userContext` anywhere but
`params.arguments.userContext` of a tools/call (in `params`, in `_meta`, nested in a message) is
refused for every caller: the interceptor cannot vouch for a copy it does not check.
"""

from __future__ import annotations

import pytest

from lambdas.gateway_interceptor import mcp_payloads as mcp
from tests.lambdas.gateway_interceptor.gateway_events import (
    AGENTIC_TOOL,
    TRUSTED_CALLER,
    UNTRUSTED_CALLER,
    event,
    forwarded_arguments,
    question,
    refusal,
    run,
)

UNTRUSTED = UNTRUSTED_CALLER
TRUSTED = TRUSTED_CALLER


@pytest.mark.parametrize(
    "method", ["Tools/Call", "tools/call ", " tools/call", "TOOLS/CALL", "tools/Call", "tools/call\u200b", "x/y", ""]
)
def test_a_method_the_interceptor_does_not_know_is_refused_not_normalised(method):
    forged = question(userContext={"userId": "ceo"})
    evt = event(method=method, params={"name": AGENTIC_TOOL, "arguments": forged}, authorization=UNTRUSTED)
    error = refusal(run(evt))
    assert error["code"] == mcp.METHOD_NOT_FOUND == -32601
    assert error["message"].startswith("unknown_method:") and "case-sensitive" in error["message"]


def test_a_body_without_a_method_string_is_refused():
    evt = event(authorization=UNTRUSTED)
    evt["mcp"]["gatewayRequest"]["body"]["method"] = ["tools/call"]
    assert refusal(run(evt))["code"] == -32601


@pytest.mark.parametrize("method", ["initialize", "notifications/initialized", "ping", "tools/list"])
def test_the_methods_an_mcp_client_needs_still_pass_unchanged(method):
    evt = event(method=method, params={"cursor": "abc"} if method == "tools/list" else {}, authorization=UNTRUSTED)
    assert run(evt)["transformedGatewayRequest"]["body"] == evt["mcp"]["gatewayRequest"]["body"]


MISPLACED = [
    (
        "params._meta.userContext",
        {"name": AGENTIC_TOOL, "arguments": question(), "_meta": {"userContext": {"userId": "ceo"}}},
    ),
    ("params.userContext", {"name": AGENTIC_TOOL, "arguments": question(), "userContext": {"userId": "ceo"}}),
    (
        "params.arguments.messages[0].content.userContext",
        {
            "name": AGENTIC_TOOL,
            "arguments": {"messages": [{"role": "user", "content": {"text": "q", "userContext": {"userId": "ceo"}}}]},
        },
    ),
    ("params._meta.UserContext", {"name": AGENTIC_TOOL, "arguments": question(), "_meta": {"UserContext": "ceo"}}),
]


@pytest.mark.parametrize(("where", "params"), MISPLACED, ids=[where for where, _ in MISPLACED])
@pytest.mark.parametrize("caller", [UNTRUSTED, TRUSTED], ids=["untrusted", "trusted"])
def test_user_context_outside_the_tool_arguments_is_refused_for_every_caller(where, params, caller):
    error = refusal(run(event(params=params, authorization=caller)))
    assert error["code"] == mcp.INVALID_PARAMS
    assert error["message"].startswith("user_id_not_allowed:") and where in error["message"]


def test_user_context_in_the_meta_of_another_method_is_refused_too():
    evt = event(method="tools/list", params={"_meta": {"userContext": {"userId": "ceo"}}}, authorization=UNTRUSTED)
    assert "params._meta.userContext" in refusal(run(evt))["message"]


def test_the_one_place_for_user_context_still_works_for_a_trusted_front_end():
    evt = event(arguments=question(userContext={"userId": "bob"}), authorization=TRUSTED)
    assert forwarded_arguments(run(evt))["userContext"] == {"userId": "bob"}


def test_a_meta_without_user_context_is_forwarded_as_sent():
    params = {"name": AGENTIC_TOOL, "arguments": question(), "_meta": {"progressToken": 3}}
    output = run(event(params=params, authorization=UNTRUSTED))
    assert output["transformedGatewayRequest"]["body"]["params"]["_meta"] == {"progressToken": 3}
    assert forwarded_arguments(output)["userContext"] == {"userId": "mallory"}


def test_a_body_nested_past_the_bound_is_refused_without_walking_it():
    from lambdas.gateway_interceptor.tool_rules import MAX_BODY_DEPTH

    deep: dict = {"userContext": {"userId": "ceo"}}
    for _ in range(200):  # 400 levels, far past MAX_BODY_DEPTH
        deep = {"x": [deep]}
    error = refusal(run(event(method="tools/list", params={"_meta": deep}, authorization=UNTRUSTED)))
    assert error["code"] == mcp.INVALID_PARAMS and f"deeper than {MAX_BODY_DEPTH} levels" in error["message"]
