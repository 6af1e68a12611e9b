"""What a caller may put in a `tools/call`, and whose documents it reads: checked before the target runs.

The target fixes everything a caller must not choose (knowledge bases, planner, reranking,
guardrail, iteration cap) in its parameter values; these rules refuse any attempt to send them
anyway, cap what a caller may choose, and set `userContext` from the verified caller with the
endpoint's own identity code (lambdas/endpoint/identity.py) — one identity module, every door.
What a caller may choose is held to the endpoint's own rules, not copies: the user id a trusted
front end names (contract/request_body.py `user_id_problem`), Retrieve's query text (the endpoint's
text limit and blank check) and its metadata filter (lambdas/endpoint/filters.py).

`userContext` has one place: `params.arguments.userContext` of a tools/call. A copy anywhere else
(`params`, `_meta`, inside a message; any spelling of the key) is refused for every caller rather
than removed: a trusted front end that put the end user there would otherwise be answered silently
with its own token's identity, and an untrusted one learns that forging does not work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contract.request_body import MAX_TEXT_CHARS, user_id_problem, visible
from lambdas.endpoint.filters import FilterError, validate_filter
from lambdas.endpoint.identity import Caller, resolve_user_id
from lambdas.gateway_interceptor.gateway_settings import AGENTIC, RETRIEVE, GatewaySettings

USER_CONTEXT = "userContext"
USER_CONTEXT_PATH = f"params.arguments.{USER_CONTEXT}"  # the one place a caller may send it (tools/call)
FILTER_PATH = "retrievalConfiguration.managedSearchConfiguration.filter"
MAX_BODY_DEPTH = 32  # nesting of a JSON-RPC body; deeper is refused, never walked
# Top-level arguments a caller may send, per connector tool (the target's visible parameters).
ALLOWED_ARGUMENTS = {
    AGENTIC: frozenset({"messages", USER_CONTEXT}),
    RETRIEVE: frozenset({"retrievalQuery", "retrievalConfiguration", USER_CONTEXT}),
}
SEARCH_OPTIONS = frozenset({"numberOfResults", "filter"})
# An IAM caller behind the gateway: the documented interceptor input names no principal, so there
# is no one to derive a user from and no one to trust (docs/security.md, "The MCP gateway").
UNIDENTIFIED_IAM_CALLER = Caller("an IAM caller (the gateway does not name it to the interceptor)", "", "", None)


class InvalidArguments(ValueError):
    """The arguments break a rule; the message says which and how to fix it."""


@dataclass(frozen=True)
class Decision:
    arguments: dict[str, Any]
    user_id: str | None


def check_call(settings: GatewaySettings, tool: str | None, arguments: Any, caller: Caller) -> Decision:
    """The arguments to forward (userContext set or removed), or InvalidArguments / ApiError (403)."""
    kind = settings.tools.get(tool or "")
    if kind is None:
        known = ", ".join(sorted(settings.tools))
        raise InvalidArguments(f"unknown tool '{tool}' on the gateway of tenant {settings.tenant} (tools: {known})")
    if not isinstance(arguments, dict):
        raise InvalidArguments("arguments must be a JSON object")
    _refuse_fixed_settings(settings, arguments)
    extra = sorted(set(arguments) - ALLOWED_ARGUMENTS[kind])
    if extra:
        allowed = ", ".join(sorted(ALLOWED_ARGUMENTS[kind] - {USER_CONTEXT}))
        raise InvalidArguments(f"{tool} does not take {', '.join(extra)} from callers (it takes {allowed})")
    if kind == RETRIEVE:
        _check_retrieval_query(arguments.get("retrievalQuery"))
        _check_search_options(settings, arguments.get("retrievalConfiguration"))
    requested = _requested_user_id(arguments.get(USER_CONTEXT, None))
    user_id = resolve_user_id(settings.user_context, caller, requested, settings.trusted_callers)
    forwarded = {key: value for key, value in arguments.items() if key != USER_CONTEXT}
    if user_id is not None:
        forwarded[USER_CONTEXT] = {"userId": user_id}
    return Decision(forwarded, user_id)


def _refuse_fixed_settings(settings: GatewaySettings, arguments: dict[str, Any]) -> None:
    if "agenticRetrieveConfiguration" in arguments or _mentions(arguments, "maxAgentIteration"):
        raise InvalidArguments(
            f"the planner's iteration cap is fixed at {settings.max_agent_iteration} by tenant "
            f"{settings.tenant}; remove agenticRetrieveConfiguration/maxAgentIteration"
        )
    for fixed in ("retrievers", "knowledgeBaseId", "policyConfiguration", "generateResponse"):
        if fixed in arguments:
            raise InvalidArguments(f"'{fixed}' is fixed by the platform for tenant {settings.tenant}; remove it")


def _mentions(value: Any, key: str, depth: int = 0) -> bool:
    if depth > 20:  # deeper than any legitimate argument: refuse rather than recurse
        return True
    if isinstance(value, dict):
        return key in value or any(_mentions(item, key, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_mentions(item, key, depth + 1) for item in value)
    return False


def _check_search_options(settings: GatewaySettings, configuration: Any) -> None:
    if configuration is None:
        return
    search = configuration.get("managedSearchConfiguration") if isinstance(configuration, dict) else None
    if not isinstance(configuration, dict) or set(configuration) != {"managedSearchConfiguration"}:
        raise InvalidArguments("retrievalConfiguration may only hold managedSearchConfiguration")
    if not isinstance(search, dict) or not set(search) <= SEARCH_OPTIONS:
        raise InvalidArguments(f"managedSearchConfiguration takes only {', '.join(sorted(SEARCH_OPTIONS))}")
    count = search.get("numberOfResults")
    if count is not None and (
        not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= settings.max_results
    ):
        raise InvalidArguments(f"numberOfResults must be an integer from 1 to {settings.max_results} (tenant cap)")
    if "filter" in search:
        try:
            validate_filter(search["filter"], FILTER_PATH)
        except FilterError as error:
            raise InvalidArguments(str(error)) from None


def _check_retrieval_query(query: Any) -> None:
    """Retrieve's `retrievalQuery`: the one visible part the target exposes, `text`, within the endpoint's limit."""
    text = query.get("text") if isinstance(query, dict) else None
    if (
        not isinstance(query, dict)
        or set(query) != {"text"}
        or not isinstance(text, str)
        or not 1 <= len(text) <= MAX_TEXT_CHARS
        or not visible(text)
        or not _encodes(text)
    ):
        raise InvalidArguments(
            f'retrievalQuery must be {{"text": "<the question>"}}: 1 to {MAX_TEXT_CHARS} characters, not blank, '
            "whole characters (no lone UTF-16 surrogate)"
        )


def _encodes(text: str) -> bool:
    """Whether `text` is text: a lone surrogate (a `\\ud800` escape without its pair) has no UTF-8 form, so
    the endpoint refuses it (lambdas/endpoint/request.py) and so does its gateway."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _requested_user_id(user_context: Any) -> str | None:
    if user_context is None:
        return None
    user_id = user_context.get("userId") if isinstance(user_context, dict) else None
    if not isinstance(user_context, dict) or set(user_context) != {"userId"} or not isinstance(user_id, str):
        raise InvalidArguments('userContext must be {"userId": "<the end user\'s id>"}')
    problem = user_id_problem(user_id)
    if problem is not None:
        raise InvalidArguments(f"userContext.userId {problem}")
    return user_id


def misplaced_user_context(body: dict[str, Any], tool_call: bool) -> str | None:
    """The path of a `userContext` key (any spelling) outside its one place, or None; the walk is
    iterative and refuses (InvalidArguments) a body nested deeper than MAX_BODY_DEPTH."""
    allowed = USER_CONTEXT_PATH if tool_call else None
    pending: list[tuple[Any, str, int]] = [(body, "", 0)]
    while pending:
        node, path, depth = pending.pop()
        if depth > MAX_BODY_DEPTH:
            raise InvalidArguments(f"the request nests deeper than {MAX_BODY_DEPTH} levels")
        if isinstance(node, list):
            pending.extend((item, f"{path}[{index}]", depth + 1) for index, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            here = f"{path}.{key}" if path else str(key)
            if here == allowed:
                continue  # checked by the identity rules (check_call)
            if str(key).lower() == USER_CONTEXT.lower():
                return here
            pending.append((value, here, depth + 1))
    return None
