"""The key holds everything that changes a result, and normalization never erases what changes one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lambdas.endpoint.cache import keys
from lambdas.endpoint.cache.normalize import normalize_text
from lambdas.endpoint.request import Query
from tests.endpoint_server import tenant_settings


@pytest.mark.parametrize(
    "one, other",
    [
        ("How do I rotate an API key?", "how do I  rotate an API key"),
        ("How do I rotate an API key?", "How do I rotate an API key!"),
        # Full-width forms (U+FF28 ...), written as escapes so the source stays plain ASCII.
        ("\uff28\uff4f\uff57 do I rotate an \uff21\uff30\uff29 key\uff1f", "how do I rotate an API key"),
        ("What does error ACME-2204 mean?", "what does error ACME-2204 mean"),
    ],
)
def test_spellings_of_one_question_share_a_normalized_text(one, other):
    assert normalize_text(one) == normalize_text(other)


@pytest.mark.parametrize(
    "one, other",
    [
        ("Can I change the API?", "Can I not change the API?"),  # negation
        ("Can I change the API?", "Can't I change the API?"),
        ("What does error ACME-2204 mean?", "What does error ACME-2205 mean?"),  # other id
        ("What does error ACME-2204 mean?", "What does error acme-2204 mean?"),  # ids keep their case
        ("Incidents on 2025-03-01", "Incidents on 2025-03-02"),  # other date
        ("Changes in v2.3", "Changes in v2.4"),  # other version
        ("How many rows can one export contain, 1000?", "How many rows can one export contain, 10000?"),
        ('Search for "Invalid Token"', 'Search for "invalid token"'),  # quoted strings verbatim
        ("Is the US plan cheaper?", "Is the us plan cheaper?"),  # acronyms keep their case
    ],
)
def test_normalization_never_merges_questions_that_differ_in_meaning(one, other):
    assert normalize_text(one) != normalize_text(other)


def query(**overrides) -> Query:
    base = Query(
        messages=(("user", "How do I rotate an API key?"),),
        knowledge_bases=("docs", "tickets"),
        generate_response=True,
        max_agent_iteration=3,
        max_results=10,
        filter=None,
        mode="agentic",
        user_id=None,
    )
    return replace(base, **overrides)


def key_of(q: Query, scope: str | None = None, settings=None) -> str:
    settings = settings or tenant_settings()
    return keys.lookup_key(settings, q, scope, keys.strategy_version(settings, q))


def test_the_same_request_gets_the_same_key():
    assert key_of(query()) == key_of(query(messages=(("user", "how do I rotate an API key"),)))


@pytest.mark.parametrize(
    "changed",
    [
        {"filter": {"equals": {"key": "product", "value": "skyledger"}}},
        {"knowledge_bases": ("docs",)},
        {"max_agent_iteration": 2},
        {"max_results": 5},
        {"generate_response": False},
        {"mode": "retrieve"},
        {"messages": (("user", "earlier"), ("assistant", "answer"), ("user", "How do I rotate an API key?"))},
    ],
)
def test_every_request_option_that_changes_results_changes_the_key(changed):
    assert key_of(query(**changed)) != key_of(query())


def test_the_callers_scope_and_the_tenant_are_in_the_key():
    assert key_of(query(), scope="alice") != key_of(query(), scope="bob") != key_of(query())
    assert key_of(query(), settings=tenant_settings(tenant="globex")) != key_of(query())


@pytest.mark.parametrize(
    "setting",
    [
        {"planner_type": "CUSTOM", "planner_model_arn": "arn:aws:bedrock:us-west-2::foundation-model/x"},
        {"reranking_type": "NONE"},
        {"guardrail_id": "g1", "guardrail_version": "2"},
        {"retrieval_instruction_id": "i1", "retrieval_instruction_version": "3"},
    ],
)
def test_the_strategy_version_follows_planner_reranking_guardrail_and_instruction(setting):
    assert keys.strategy_version(tenant_settings(**setting), query()) != keys.strategy_version(
        tenant_settings(), query()
    )


def test_a_knowledge_base_id_behind_the_same_alias_is_another_key():
    moved = tenant_settings()
    first = replace(moved.retrievers[0], knowledge_base_id="ZZZZZZZZZZ")
    moved = replace(moved, retrievers=[first, moved.retrievers[1]])
    assert key_of(query(), settings=moved) != key_of(query())


def test_the_version_key_changes_with_any_content_version():
    before = keys.version_key({"KB1": "a", "KB2": "b"}, "s")
    assert keys.version_key({"KB1": "a", "KB2": "c"}, "s") != before
    assert keys.version_key({"KB1": "a", "KB2": "b"}, "t") != before
    assert keys.version_key({"KB2": "b", "KB1": "a"}, "s") == before
