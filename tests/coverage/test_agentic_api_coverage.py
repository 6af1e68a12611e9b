"""Every member of botocore's AgenticRetrieveStream model is handled by the endpoint and the emulator,
or listed in IGNORED with the side that skips it and why. When boto3 is upgraded, the failure names
each new member.

Handling is observed, not declared (tests/coverage/model_walk.py):
- endpoint, request: the member is in what `modes.agentic.build_request` sends for a query that
  uses every option the tenant file and the HTTP API offer;
- endpoint, stream: `Translator` reads the member from a model-generated event that sets every
  member (each union member as its own list item);
- emulator, request: the service rules and `AgenticRun` read the member (the model-shape check
  reads everything, so it is left out of the observation);
- emulator, stream: the member is in an event the emulator sent to a real boto3 client across the
  scenarios below.
"""

from __future__ import annotations

import fnmatch
import itertools
from dataclasses import replace
from typing import Any

import pytest

from lambdas.endpoint.conversation import MemoryBinding
from lambdas.endpoint.modes.agentic import build_request
from lambdas.endpoint.request import Query
from lambdas.endpoint.translate import Translator
from local.emulator.agentic_stream import AgenticRun
from local.emulator.corpus import load_corpus
from local.emulator.index import KnowledgeBaseIndex
from local.emulator.pages import Pages
from local.emulator.validation import check_agentic_rules
from tests.coverage.model_walk import (
    exception_events,
    present_paths,
    request_paths,
    sample_event,
    stream_paths,
    track,
)
from tests.endpoint_server import tenant_settings

ENDPOINT, EMULATOR = "endpoint", "emulator"
BOTH = frozenset({ENDPOINT, EMULATOR})
_MEMORY_FILTERS = (
    "the tenant file scopes long-term memory by the end user's namespace only; metadata filters on memory "
    "records are not offered (docs/conversations.md)"
)
_ONE_PLANNER = "the emulator has one deterministic planner and ranker: the model named does not change them"
# path (fnmatch pattern) -> (sides that skip it, why). Keep it short: each entry is a gap or a choice.
IGNORED: dict[str, tuple[frozenset[str], str]] = {
    "memoryConfiguration.retrievalConfigs*.metadataFilters*": (BOTH, _MEMORY_FILTERS),
    "memoryConfiguration.retrievalConfigs*.namespacePath": (
        frozenset({ENDPOINT}),
        "the endpoint reads the end user's own namespace prefix; a parent path could reach beyond the actor",
    ),
    "memoryConfiguration.retrievalConfigs*.strategyId": (
        frozenset({ENDPOINT}),
        "strategy ids exist only after deploy; each strategy's namespace already isolates its records",
    ),
    "agenticRetrieveConfiguration.foundationModelConfiguration.mantleFoundationModelConfiguration.*": (
        BOTH,
        "the tenant file offers Bedrock foundation-model planners only (schema: planner.model_arn)",
    ),
    "agenticRetrieveConfiguration.foundationModelConfiguration.type": (frozenset({EMULATOR}), _ONE_PLANNER),
    "agenticRetrieveConfiguration.foundationModelConfiguration.bedrockFoundationModelConfiguration.*": (
        frozenset({EMULATOR}),
        _ONE_PLANNER,
    ),
    "agenticRetrieveConfiguration.reranking*": (frozenset({EMULATOR}), _ONE_PLANNER),
    "stream.traceEvent.attributes.retrievalResponse[].*": (
        frozenset({ENDPOINT}),
        "a step reports retrievedCount only; the result event carries the (deduplicated) results, "
        "sending them twice would double every frame",
    ),
    "stream.traceEvent.id": (frozenset({ENDPOINT}), "the endpoint's events carry its own elapsedMs, not Bedrock's ids"),
    "stream.traceEvent.timestamp": (frozenset({ENDPOINT}), "elapsedMs from the endpoint's clock replaces it"),
    "stream.traceEvent.attributes.warnings[].message.message": (
        frozenset({EMULATOR}),
        "no AWS source says what raises a plain warning, so the emulator invents none (ledger: UNVERIFIED)",
    ),
    "stream.*Exception.*": (
        BOTH,
        "modelled errors: botocore raises them as EventStreamError; the endpoint maps them by code "
        "(api_errors.py, tests/lambdas/endpoint/test_errors.py) and the emulator sends them as faults",
    ),
}


def ignored_sides(path: str) -> frozenset[str]:
    return frozenset().union(*(sides for pattern, (sides, _) in IGNORED.items() if fnmatch.fnmatchcase(path, pattern)))


def handled(path: str, observed: set[str]) -> bool:
    """A leaf is handled when read (a list of scalars: when the list is)."""
    return path in observed or (path.endswith("[]") and path[:-2] in observed)


def unhandled(paths: set[str], observed: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{path} ({side})"
        for path, side in itertools.product(paths, (ENDPOINT, EMULATOR))
        if side not in ignored_sides(path) and not handled(path, observed[side])
    )


# --- what the endpoint sends and reads ---------------------------------------------------------


def _full_settings() -> Any:
    model = "arn:aws:bedrock:us-west-2::foundation-model/amazon.nova-pro-v1:0"
    return tenant_settings(
        planner_type="CUSTOM",
        planner_model_arn=model,
        reranking_type="CUSTOM",
        reranking_model_arn="arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0",
        guardrail_id="gr1",
        guardrail_version="1",
        retrieval_instruction_id="ri1",
        retrieval_instruction_version="2",
    )


def _full_query(question: str, next_token: str | None = None, max_results: int = 10) -> Query:
    return Query(
        messages=(("user", "Earlier question"), ("assistant", "Earlier answer"), ("user", question)),
        knowledge_bases=("docs", "tickets"),
        generate_response=True,
        max_agent_iteration=3,
        max_results=max_results,
        filter={"notEquals": {"key": "team", "value": "nobody"}},
        mode="agentic",
        user_id="alice",
        next_token=next_token,
    )


def _bound(question: str) -> Query:
    """A conversation turn of alice with long-term retrieval (what conversation.bind produces)."""
    binding = MemoryBinding("akb_test_memory-abcdefghij", "u-alice", "s1", "DEFAULT", "/actors/u-alice/facts")
    return replace(_full_query(question), messages=(("user", question),), memory=binding)


def endpoint_request_paths() -> set[str]:
    return present_paths(build_request(_full_query("q", next_token="tok"), _full_settings(), "alice")) | present_paths(
        build_request(_bound("q"), _full_settings(), "alice")
    )


def endpoint_stream_reads() -> set[str]:
    reads: set[str] = set()
    translator = Translator({"x1": "alias"})
    stream = [name for name in ("traceEvent", "responseEvent", "result")]
    for name in stream:
        translator.translate(track(sample_event(name), "stream", reads))
    return reads


# --- what the emulator reads and sends ---------------------------------------------------------


@pytest.fixture(scope="module")
def indexes() -> dict[str, KnowledgeBaseIndex]:
    return {kb_id: KnowledgeBaseIndex(kb) for kb_id, kb in load_corpus().items()}


def emulator_request_reads(indexes: dict[str, KnowledgeBaseIndex]) -> set[str]:
    reads: set[str] = set()
    pages = Pages()
    first = build_request(
        _full_query("Summarize BulkExport and list all its limits", max_results=1), _full_settings(), "alice"
    )
    check_agentic_rules(track(first, "", reads), indexes)
    events = [m.body for m in AgenticRun(track(first, "", reads), indexes, pages=pages).messages()]
    token = events[-1]["nextToken"]
    follow = build_request(
        _full_query("Summarize BulkExport and list all its limits", next_token=token), _full_settings(), "alice"
    )
    list(AgenticRun(track(follow, "", reads), indexes, pages=pages).messages())
    for config in ({"namespace": "/actors/u-alice/facts"}, {"namespacePath": "/actors/u-alice", "strategyId": "f1"}):
        bound = build_request(_bound("What are the Pro plan's rate limits?"), _full_settings(), "alice")
        bound["memoryConfiguration"]["retrievalConfigs"] = [config]
        check_agentic_rules(track(bound, "", reads), indexes)
        list(AgenticRun(track(bound, "", reads), indexes).messages())
    return reads


def _ask(bedrock: Any, question: str, **overrides: Any) -> list[dict[str, Any]]:
    body = build_request(_full_query(question, max_results=overrides.pop("max_results", 10)), _full_settings(), "alice")
    return list(bedrock.agentic_retrieve_stream(**{**body, **overrides})["stream"])


def emulator_stream_paths(emulator: Any) -> set[str]:
    bedrock = emulator.client()
    emulator.register_guardrail("gr1", "1", {"wordPolicyConfig": {"wordsConfig": [{"text": "forbidden"}]}})
    runs = [
        _ask(bedrock, "Summarize BulkExport and list all its limits"),  # planning, expansion, instruction
        _ask(bedrock, "Is this forbidden?"),  # a guardrail intervention with its message
        _ask(bedrock, "What is the total monthly price of the Starter and Pro plans?"),  # code execution
        _ask(bedrock, "topology diagram ingest relay"),  # an image result
    ]
    paged = _ask(bedrock, "Summarize BulkExport and list all its limits", max_results=1)
    runs += [
        paged,
        _ask(bedrock, "Summarize BulkExport and list all its limits", nextToken=paged[-1]["result"]["nextToken"]),
    ]
    bound = build_request(_bound("What are the Pro plan's rate limits?"), _full_settings(), "alice")
    runs.append(list(bedrock.agentic_retrieve_stream(**bound)["stream"]))  # SessionHistoryLoad, memoryRetrieve
    bound["memoryConfiguration"]["retrievalConfigs"] = [{"namespacePath": "/actors/u-alice", "strategyId": "f1"}]
    runs.append(list(bedrock.agentic_retrieve_stream(**bound)["stream"]))
    emulator.set_faults(fail_retrievals=1)
    runs.append(_ask(bedrock, "How long are exports kept, and how do I rotate an API key?"))  # a failed retrieval
    return {path for events in runs for event in events for path in present_paths(event, "stream")}


@pytest.fixture(scope="module")
def observed(emulator, indexes) -> dict[str, set[str]]:
    emulator.reset()
    try:
        return {
            ENDPOINT: endpoint_request_paths() | endpoint_stream_reads(),
            EMULATOR: emulator_request_reads(indexes) | emulator_stream_paths(emulator),
        }
    finally:
        emulator.reset()


def test_every_request_member_is_handled_or_ignored_with_a_reason(observed):
    missing = unhandled(request_paths(), observed)
    assert not missing, (
        "AgenticRetrieveStream request members not handled (handle them or add to IGNORED):\n" + "\n".join(missing)
    )


def test_every_stream_event_and_trace_member_is_handled_or_ignored_with_a_reason(observed):
    missing = unhandled(stream_paths(), observed)
    assert not missing, (
        "AgenticRetrieveStream stream members not handled (handle them or add to IGNORED):\n" + "\n".join(missing)
    )


def test_every_ignore_entry_names_model_members_and_a_reason():
    paths = request_paths() | stream_paths()
    for pattern, (sides, reason) in IGNORED.items():
        assert sides and sides <= BOTH and len(reason) > 20, pattern
        assert any(fnmatch.fnmatchcase(path, pattern) for path in paths), f"stale IGNORED entry: {pattern}"


def test_no_ignore_entry_hides_a_member_that_is_now_handled(observed):
    """An entry for a side that handles every member it covers is stale: the list stays short."""
    paths = request_paths() | stream_paths()
    for pattern, (sides, _) in IGNORED.items():
        covered = [path for path in paths if fnmatch.fnmatchcase(path, pattern)]
        for side in sides:
            if "Exception" not in pattern:  # errors are observed by the error tests, not here
                assert not all(handled(path, observed[side]) for path in covered), f"{pattern} ({side}) is handled now"


def test_the_walk_sees_the_members_issue_21_names():
    """A guard on the walker itself: an empty or truncated walk would make the checks above vacuous."""
    assert {"nextToken", "memoryConfiguration.sessionBinding.actorId", "messages[].content.text"} <= request_paths()
    assert {
        "stream.result.nextToken",
        "stream.result.results[].content.byteContent",
        "stream.traceEvent.attributes.actions[].codeExecution.documents[].documentId",
        "stream.traceEvent.attributes.appliedInstruction.version",
        "stream.traceEvent.attributes.retrievalMetadata[].retrievalType",
    } <= stream_paths()
    assert "throttlingException" in exception_events()
