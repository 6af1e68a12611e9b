"""The service's settings and stream events are pydantic models: what they accept and refuse.

The wire format itself (field names, SSE/NDJSON framing) is pinned by test_encoding.py and the
streaming tests; these tests pin the validation the models add on the way in.
"""

from __future__ import annotations

import json

import pytest

from contract.events import (
    Citation,
    DoneEvent,
    ResultEvent,
    ResultItem,
    TraceEvent,
    event_from_dict,
    event_to_dict,
)
from contract.settings import Retriever, RoutingSettings, TenantSettings

SETTINGS = TenantSettings(
    tenant="acme", environment="dev", retrievers=[Retriever("docs", "KB00000001", "Product documentation")]
)


def test_settings_survive_their_json_whole_with_nested_retrievers_and_routing():
    again = TenantSettings.from_json(SETTINGS.to_json())
    assert again == SETTINGS
    assert isinstance(again.retrievers[0], Retriever) and isinstance(again.routing, RoutingSettings)


def test_settings_json_is_compact_sorted_and_keeps_every_field():
    data = json.loads(SETTINGS.to_json())
    assert list(data) == sorted(data)
    assert data["retrievers"] == [
        {"alias": "docs", "knowledge_base_id": "KB00000001", "description": "Product documentation"}
    ]
    assert " " not in SETTINGS.to_json().replace("Product documentation", "")


def test_an_unknown_settings_field_is_refused_by_name():
    data = json.loads(SETTINGS.to_json()) | {"max_resuls": 5}
    with pytest.raises(ValueError, match="max_resuls"):
        TenantSettings.from_json(json.dumps(data))


def test_a_settings_field_of_the_wrong_type_is_refused_with_its_path():
    data = json.loads(SETTINGS.to_json())
    data["retrievers"][0]["knowledge_base_id"] = ["not", "a", "string"]
    with pytest.raises(ValueError, match=r"retrievers\.0\.knowledge_base_id"):
        TenantSettings.from_json(json.dumps(data))


def test_events_rebuild_nested_items_and_ignore_fields_a_newer_server_adds():
    event = event_from_dict(
        "result",
        {
            "results": [{"knowledgeBase": "docs", "text": "t", "shinyNewField": 1}],
            "citations": [{"start": 0, "end": 3, "results": [0]}],
            "alsoNew": True,
        },
    )
    assert event == ResultEvent(
        results=[ResultItem(knowledgeBase="docs", text="t")], citations=[Citation(start=0, end=3, results=[0])]
    )


def test_an_event_whose_fields_do_not_match_the_contract_is_a_value_error():
    with pytest.raises(ValueError, match="elapsedMs"):
        event_from_dict("trace", {"step": "Planning", "status": "SUCCEEDED", "elapsedMs": "soon"})
    with pytest.raises(ValueError, match="unknown event type 'nope'"):
        event_from_dict("nope", {})


def test_events_are_still_built_positionally_like_plain_dataclasses():
    assert TraceEvent("Planning", "IN_PROGRESS", 3).elapsedMs == 3


@pytest.mark.parametrize(
    "event",
    [
        ResultEvent(results=[]),
        DoneEvent("r1", "error", 0, 12, None),
        TraceEvent("Planning", "IN_PROGRESS", 0),
    ],
    ids=["result-without-results", "done-without-first-event", "trace-with-zero-elapsed"],
)
def test_an_event_whose_empty_fields_the_encoder_leaves_out_decodes_to_the_same_event(event):
    assert event_from_dict(event.type, event_to_dict(event)) == event
