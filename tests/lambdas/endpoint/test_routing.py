"""The `auto` router's decisions on a table of questions, its reasons, and its tenant thresholds."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest

from contract.settings import RoutingSettings, TenantSettings
from lambdas.endpoint.routing import ROUTING_STEP, route, routing_trace
from schema.tenant import Routing

DEFAULTS = RoutingSettings()

# question, knowledge bases searched, expected mode, a phrase the reasons must contain
TABLE = [
    ("How do I rotate an API key?", 4, "retrieve", "7 words <= 12"),
    ("What does error ACME-4012 mean?", 4, "retrieve", "1 intent <= 1"),
    ("Who approves expense reports?", 1, "retrieve", "no comparison, time-range, exploratory cue"),
    ("Which team owns the billing service that caused the outage?", 4, "retrieve", "10 words"),
    ("Compare the Starter and Pro plans", 4, "agentic", "comparison cue 'compare'"),
    ("Starter vs Pro pricing", 4, "agentic", "comparison cue 'vs'"),
    ("What is the difference between webhooks and polling?", 4, "agentic", "'difference'"),
    ("What are the rate limits and retry headers?", 4, "agentic", "2 intents > 1"),
    ("Configure SSO, SCIM and audit logs", 4, "agentic", "3 intents > 1 (split at ',', 'and')"),
    ("How do refunds work? Who approves them?", 4, "agentic", "2 intents"),
    ("How did refund volume evolve from 2022 to 2024?", 4, "agentic", "years 2022, 2024"),
    ("Incidents in the last 30 days", 4, "agentic", "time-range cue 'last 30 days'"),
    ("Summarize the onboarding handbook", 1, "agentic", "exploratory cue 'summarize'"),
    ("List all supported export formats", 4, "agentic", "'list all'"),
    (
        "What is the price of one Pro seat per month on annual billing in Europe?",
        4,
        "agentic",
        "15 words > 12",
    ),
]


@pytest.mark.parametrize(("question", "kbs", "mode", "reason"), TABLE, ids=[row[0][:40] for row in TABLE])
def test_router_decides_each_question_in_the_table(question, kbs, mode, reason):
    decision = route(question, kbs, DEFAULTS)
    assert decision.mode == mode, decision.message
    assert reason in decision.message


def test_the_table_covers_both_paths():
    assert {row[2] for row in TABLE} == {"retrieve", "agentic"} and len(TABLE) >= 12


def test_between_and_is_one_comparison_not_two_intents():
    signals = route("the gap between Starter and Pro", 1, DEFAULTS).signals
    assert signals.intents == 1
    assert "between ... and" in signals.comparison_cues


def test_thresholds_are_per_tenant():
    question = "What are the rate limits and retry headers?"
    assert route(question, 1, DEFAULTS).mode == "agentic"
    assert route(question, 1, replace(DEFAULTS, max_intents_for_retrieve=2)).mode == "retrieve"
    long_question = "What is the price of one Pro seat per month on annual billing?"
    assert route(long_question, 1, replace(DEFAULTS, max_words_for_retrieve=20)).mode == "retrieve"


def test_cue_families_can_be_switched_off():
    rules = replace(DEFAULTS, comparison_to_agentic=False)
    assert route("Starter vs Pro pricing", 1, rules).mode == "retrieve"
    assert "no time-range, exploratory cue" in route("Starter vs Pro pricing", 1, rules).message


def test_more_knowledge_bases_than_allowed_go_agentic():
    rules = replace(DEFAULTS, max_knowledge_bases_for_retrieve=1)
    decision = route("How do I rotate an API key?", 3, rules)
    assert decision.mode == "agentic"
    assert "3 knowledge bases > 1" in decision.message


def test_every_reason_is_listed_when_several_cues_fire():
    decision = route("Compare refunds in 2022 and 2024, and summarize the policy changes", 1, DEFAULTS)
    assert decision.mode == "agentic"
    assert len(decision.reasons) >= 4  # words, intents, comparison, time range, exploratory
    assert decision.message.startswith("auto -> agentic: ")


def test_the_routing_trace_carries_the_decision_and_its_reasons():
    decision = route("How do I rotate an API key?", 2, DEFAULTS)
    event = routing_trace(decision.message, elapsed_ms=1)
    assert event.step == ROUTING_STEP == "Routing"
    assert event.status == "SUCCEEDED"
    assert event.message == decision.message and "retrieve" in event.message


def test_tenant_config_block_and_runtime_settings_have_the_same_fields_and_defaults():
    config = Routing()
    runtime = RoutingSettings(**config.model_dump())
    assert runtime == RoutingSettings()
    assert [f.name for f in fields(RoutingSettings)] == list(Routing.model_fields)


def test_routing_settings_survive_the_settings_json_round_trip():
    settings = TenantSettings(
        tenant="acme", environment="dev", retrievers=[], routing=RoutingSettings(default_mode="auto", rrf_k=10)
    )
    again = TenantSettings.from_json(settings.to_json())
    assert again.routing == RoutingSettings(default_mode="auto", rrf_k=10)
    without_block = json.loads(settings.to_json())
    del without_block["routing"]  # settings rendered before the routing block existed
    assert TenantSettings.from_json(json.dumps(without_block)).routing == RoutingSettings()
