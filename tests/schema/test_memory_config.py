"""A tenant's `memory:` block: every mistake names the file and the field; namespaces are per user."""

from __future__ import annotations

import pytest

from schema import load_project
from tests.schema.test_loader import _problems

CASES = [
    ("expiry-too-short", {"event_expiry_days": 2}, "memory.event_expiry_days", ["greater than or equal to 3"]),
    (
        "namespace-without-actor",
        {"strategies": [{"name": "facts", "type": "semantic", "namespace": "/facts"}]},
        "memory.strategies[0].namespace",
        ["{actorId}/", "one end user"],
    ),
    (
        "actor-as-last-segment",  # "/actors/u-al" would prefix "/actors/u-alice"
        {"strategies": [{"name": "facts", "type": "semantic", "namespace": "/actors/{actorId}"}]},
        "memory.strategies[0].namespace",
        ["followed by at least one more"],
    ),
    (
        "wildcard-before-actor",
        {"strategies": [{"name": "facts", "type": "semantic", "namespace": "/*/{actorId}/facts"}]},
        "memory.strategies[0].namespace",
        ["literal segments"],
    ),
    (
        "retrieval-of-unknown-strategy",
        {"long_term_retrieval": {"strategy": "prefs"}},
        "memory",
        ["'prefs' is not one of memory.strategies"],
    ),
    (
        "unknown-type",
        {"strategies": [{"name": "x", "type": "episodic", "namespace": "/a/{actorId}/b"}]},
        "memory.strategies[0].type",
        ["semantic"],
    ),
    ("typo", {"event_expiry": 30}, "memory", ["did you mean 'event_expiry_days'"]),
]


@pytest.mark.parametrize(("change", "field", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_memory_block_names_the_file_the_field_and_what_is_allowed(config_copy, change, field, words):
    path = config_copy.edit("tenants", "acme", lambda t: t["memory"].update(change))
    problems = _problems(config_copy)
    matching = [p for p in problems if p.startswith(f"{path}: {field}:")]
    assert matching, problems
    assert all(word in matching[0] for word in words), matching[0]


def test_the_example_turns_conversations_on_for_acme_only_with_actor_scoped_retrieval():
    project = load_project("config", "dev")
    acme, globex = project.tenants["acme"], project.tenants["globex"]
    assert acme.memory_on and not globex.memory_on
    assert acme.memory.retrieval_namespace() == "/actors/{actorId}/facts"
