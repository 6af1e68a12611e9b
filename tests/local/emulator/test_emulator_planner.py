from __future__ import annotations

from dataclasses import dataclass

import pytest

from local.emulator.planner import decompose, entities_in, new_entities, route, wants_full_documents


@dataclass(frozen=True)
class R:
    name: str
    description: str


DOCS = R("docs", "Public product documentation and API reference.")
TICKETS = R("tickets", "Closed customer support tickets and runbooks.")


@pytest.mark.parametrize(
    ("question", "sub_queries"),
    [
        (
            "How do I configure SSO, SCIM and audit logs?",
            ["configure SSO", "SCIM configure", "audit logs configure"],
        ),
        ("SkyLedger vs PipeDream pricing", ["SkyLedger pricing", "PipeDream pricing"]),
        (
            "What is the difference between error ACME-4012 and ACME-5031?",
            ["error ACME-4012", "ACME-5031 error"],
        ),
        (
            "Compare the WebhookRelay retry attempts in the documentation with the runbook",
            ["WebhookRelay retry attempts documentation", "runbook retry attempts"],
        ),
        ("How long are exports kept?", ["long exports kept"]),
    ],
)
def test_questions_split_into_one_sub_query_per_intent(question, sub_queries):
    assert decompose(question) == sub_queries


def test_with_only_splits_comparisons():
    assert len(decompose("Export invoices with BulkExport")) == 1


def test_routing_follows_the_description_overlap_and_falls_back_to_all():
    assert route("runbook retry attempts", [DOCS, TICKETS]) == [TICKETS]
    assert route("WebhookRelay API reference", [DOCS, TICKETS]) == [DOCS]
    assert route("ACME-4012", [DOCS, TICKETS]) == [DOCS, TICKETS]


def test_entities_are_codes_camel_case_and_all_caps_names():
    text = "The ACME-4012 error comes from BulkExport in SkyLedger; see the API and SCIM pages."
    assert entities_in(text) == ["ACME-4012", "BulkExport", "SkyLedger", "SCIM"]


def test_only_entities_not_already_known_are_new_leads():
    leads = new_entities(["BulkExport fails with ACME-4012 in SkyLedger"], ["ticket about BulkExport"])
    assert leads == ["ACME-4012", "SkyLedger"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [("Summarize the BulkExport docs", True), ("List all error codes", True), ("What is ACME-4012?", False)],
)
def test_summaries_and_enumerations_want_full_documents(question, expected):
    assert wants_full_documents(question) is expected


def test_counted_pluralizes_only_when_the_count_is_not_one():
    from local.emulator.text import counted

    assert [counted(n, "new lead") for n in (0, 1, 2)] == ["0 new leads", "1 new lead", "2 new leads"]
    assert counted(1, "sub-query", "sub-queries") == "1 sub-query"
    assert counted(3, "sub-query", "sub-queries") == "3 sub-queries"
