"""A tenant's `quality:` block: every problem names the tenant file and the field; the golden set's by its line."""

from __future__ import annotations

import pytest

from schema import load_project
from schema.quality_config import DEFAULT_SESSION_NAME, Quality, gate_identity
from tests.schema.test_loader import _problems

CASES = [
    ("escapes-config", {"golden_set": "../secrets.jsonl"}, "quality.golden_set", ["inside the config folder"]),
    ("absolute", {"golden_set": "/etc/golden.jsonl"}, "quality.golden_set", ["relative to it"]),
    ("not-jsonl", {"golden_set": "quality/acme.csv"}, "quality.golden_set", [".jsonl"]),
    ("missing-file", {"golden_set": "quality/nope.jsonl"}, "quality.golden_set", ["no file", "nope.jsonl"]),
    ("share-above-one", {"thresholds": {"min_mrr": 1.5}}, "quality.thresholds.min_mrr", ["less than or equal to 1"]),
    ("unknown-mode", {"modes": ["agent"]}, "quality.modes[0]", ["agentic", "retrieve", "auto"]),
    ("mode-twice", {"modes": ["agentic", "agentic"]}, "quality.modes", ["agentic"]),
    ("typo", {"thresholds": {"min_recall": 0.9}}, "quality.thresholds", ["did you mean 'min_recall_at_5'"]),
    (
        "schedule-without-canary",  # acme: user_context caller, no canary
        {"schedule": {"environments": ["prod"]}},
        "",
        ["quality.schedule needs canary.user_id with user_context caller"],
    ),
]


@pytest.mark.parametrize(("change", "field", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_quality_block_names_the_file_the_field_and_what_is_allowed(config_copy, change, field, words):
    path = config_copy.edit("tenants", "acme", lambda t: t["quality"].update(change))
    problems = _problems(config_copy)
    prefix = f"{path}: {field}:" if field else f"{path}: "
    matching = [p for p in problems if p.startswith(prefix) and all(word in p for word in words)]
    assert matching, problems


def test_a_schedule_names_existing_environments(config_copy):
    def schedule_in_stage(tenant: dict) -> None:
        tenant["canary"] = {"user_id": "canary@acme.example"}
        tenant["quality"]["schedule"] = {"environments": ["prod", "stage"]}

    path = config_copy.edit("tenants", "acme", schedule_in_stage)
    assert [p for p in _problems(config_copy) if "schedule" in p] == [
        f"{path}: quality.schedule.environments[1]: unknown environment 'stage': no file environments/stage.yaml "
        "(environments: dev, prod)"
    ]


def test_every_problem_of_a_golden_set_is_named_by_line_at_once(config_copy):
    golden = config_copy.root / "quality" / "acme.jsonl"
    lines = golden.read_text().splitlines()
    lines[0] = '{"question": "", "type": "single", "documents": ["docs/a.md"]}'
    lines[1] = '{"question": "Q?", "type": "single", "documents": ["handbook/a.md", ["docs/b.md", "wiki/c.md"]]}'
    lines[3] = '{"question": "Q?", "type": "single", "knowledge_bases": ["faq"], "documents": ["docs/a.md"]}'
    lines[5] = "not json"
    golden.write_text("\n".join(lines) + "\n")
    problems = _problems(config_copy)
    tenant = config_copy.path("tenants", "acme")
    field = f"{tenant}: quality.golden_set: {golden}"
    assert [p for p in problems if p.startswith(field)] == [
        f"{field}:1: question: required, a non-empty string",
        f"{field}:2: documents: knowledge base handbook, wiki is not one of this tenant's (docs, tickets); "
        "write documents as <alias>/<path>",
        f"{field}:4: knowledge_bases: faq not among docs, tickets",
        f"{field}:6: not valid JSON (Expecting value at column 1)",
    ]


def test_an_empty_golden_set_is_a_problem(config_copy):
    (config_copy.root / "quality" / "acme.jsonl").write_text("\n")
    assert any("quality.golden_set" in p and "no questions" in p for p in _problems(config_copy))


def test_a_scheduled_gate_cannot_ask_through_an_api_front_door(config_copy):
    config_copy.edit(
        "tenants",
        "acme",
        lambda t: (
            t.update(endpoint={"front_door": "api_gateway"}),
            t.__setitem__("canary", {"user_id": "canary@acme.example"}),
            t["quality"].update(schedule={"environments": ["dev"]}),
        ),
    )
    problems = _problems(config_copy)
    assert any(": quality.schedule: the scheduled gate asks through the function URL" in p for p in problems), problems


def test_with_user_context_caller_the_canary_must_be_a_session_name(config_copy):
    path = config_copy.edit("tenants", "acme", lambda t: t.__setitem__("canary", {"user_id": "Jane Doe"}))
    assert any(p.startswith(f"{path}: ") and "cannot be a role session name" in p for p in _problems(config_copy))


def test_the_examples_gate_acme_with_its_shipped_golden_set():
    acme = load_project("config", "dev").tenants["acme"]
    assert acme.quality is not None and acme.quality.golden_set == "quality/acme.jsonl"
    assert acme.quality.modes == ["agentic"] and acme.quality.thresholds.min_complete_rate == 0.9


@pytest.mark.parametrize(
    ("user_context", "canary", "expected"),
    [
        ("none", "c@x", (None, DEFAULT_SESSION_NAME)),
        ("trusted", "c@x", ("c@x", DEFAULT_SESSION_NAME)),  # a trusted invoker passes the user id
        ("caller", "c@x", (None, "c@x")),  # the role session name is the user id
        ("caller", None, (None, DEFAULT_SESSION_NAME)),
    ],
)
def test_the_gate_asks_as_the_canary_the_way_the_tenants_identity_rules_vouch_for(user_context, canary, expected):
    from schema.canary_config import Canary

    identity = gate_identity(user_context, Canary(user_id=canary) if canary else None)
    assert (identity.user_id, identity.session_name) == expected


def test_defaults_check_agentic_with_no_absolute_bounds():
    quality = Quality.model_validate({"golden_set": "q/a.jsonl"})
    assert quality.modes == ["agentic"] and quality.thresholds.min_mrr is None
    assert quality.tolerance.max_drop == 0.05 and not quality.scheduled_in("prod")
