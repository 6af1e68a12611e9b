"""How the emulator's planner reads a question (names, focus, needs) and judges evidence (chains)."""

from __future__ import annotations

import pytest

from local.emulator.corpus import load_corpus
from local.emulator.ids import kb_id_for
from local.emulator.index import KnowledgeBaseIndex
from local.emulator.sufficiency import PlanState, best_chain, focus_of, names_in, needs_for, next_step
from local.emulator.text import root, roots


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Owner: Team Kestrel. On-call rotation: kestrel-primary.", ["Team Kestrel"]),
        ("Customer: Globetrotter Travel (Pro plan). Status: closed.", ["Globetrotter Travel", "Pro"]),
        ("The customer upgraded to Enterprise and enabled SCIM on Monday.", ["Enterprise", "SCIM"]),
        ("Exports fail with ACME-4012 in BulkExport; see the API docs.", ["ACME-4012", "BulkExport"]),
    ],
)
def test_names_are_codes_camel_case_and_capitalised_runs_not_a_sentences_first_word(text, names):
    assert names_in(text) == names


def test_a_question_may_open_with_a_name():
    assert names_in("Starter versus Pro: API rate limit", initial_names=True) == ["Starter", "Pro"]


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        ("Who leads the team that owns Ledgerline?", ["leads"]),
        ("In which city is the team that owns Searchlight based?", ["city"]),
        ("How long are audit logs kept for Litware Inc?", ["audit", "logs"]),
        ("Which Acme team handles the problem in TCK-1262?", ["team"]),
        ("Which team owns the runbook?", ["team"]),
        ("Who is the team lead of Team Falcon?", ["team", "lead"]),
        ("Compare how Ledgerline and Searchlight alert", []),
        ("Tell me about BulkExport", []),
    ],
)
def test_the_focus_is_what_a_wh_question_asks_for(question, focus):
    assert focus_of(question) == focus


def test_each_part_of_a_question_is_a_need_and_a_part_referring_back_keeps_the_first_ones_subject():
    first, second = needs_for("Which team owns the feature behind the error in TCK-1183, and which version fixed it?")
    assert first.anchors == (frozenset({"tck-1183"}),) and first.focus == {root("team")}
    assert second.refers_back and second.anchors == first.anchors
    assert second.terms == {root("version"), root("fixed")}  # its own words, not the first part's


def test_questions_asking_for_a_kind_of_value_need_a_passage_stating_one():
    (city,) = needs_for("In which city is Team Falcon based?")
    (cost,) = needs_for("How much does the Pro plan cost?")
    assert "<place>" in city.focus and {"<money>", "<quantity>"} <= cost.terms
    assert city.satisfied_by(roots("Team Falcon") | {"<place>", root("based")})
    assert not city.satisfied_by(roots("Team Falcon based"))


@pytest.fixture(scope="module")
def wiki():
    return KnowledgeBaseIndex(next(kb for kb in load_corpus().values() if kb.kb_id == kb_id_for("wiki")))


@pytest.fixture(scope="module")
def tickets():
    return KnowledgeBaseIndex(next(kb for kb in load_corpus().values() if kb.kb_id == kb_id_for("tickets")))


def test_a_hop_counts_only_once_a_search_named_the_lead(tickets):
    question = "Which team owns the runbook for the error Contoso Analytics hit in TCK-1240?"
    (need,) = needs_for(question)
    hits = tickets.document_hits("TCK-1240.md") + tickets.document_hits("runbooks/smart-retry.md")
    by_chance = best_chain(need, hits, roots(question), lambda hit, name: False)
    searched = best_chain(need, hits, roots(question), lambda hit, name: True)
    assert by_chance is not None and not by_chance.sufficient_for(need)  # the ticket alone names no team
    assert searched is not None and searched.sufficient_for(need)
    assert [h.document.document_id for h in searched.links] == ["TCK-1240.md", "runbooks/smart-retry.md"]
    assert searched.leads == ("ACME-3007",)  # the error code the ticket names


def test_the_planner_follows_leads_once_then_stops_when_nothing_is_left(wiki):
    (need,) = needs_for("Who is the team lead of Team Orion?")
    hits = wiki.search("team lead Team Orion", 10)
    state = PlanState()
    first = next_step([need], hits, roots("Who is the team lead of Team Orion?"), lambda h, n: True, state)
    second = next_step([need], hits, roots("Who is the team lead of Team Orion?"), lambda h, n: True, state)
    assert first.unsupported == (need,) and not second.queries
    assert second.stop_message().startswith("No further leads in the evidence for")
