"""The AgenticRetrieveStream request built from the tenant's settings and the query."""

from __future__ import annotations

import json

import botocore.session
import pytest
from botocore.validate import ParamValidator

from lambdas.endpoint.modes.agentic import build_request, estimated_cost_usd, excludes_planner_model_cost
from lambdas.endpoint.request import parse_query
from lambdas.endpoint.translate import RunStats
from tests.endpoint_server import CORPUS_DESCRIPTIONS, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

PLANNER = "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-lite-v1:0"
RERANKER = "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0"


def botocore_errors(request):
    model = botocore.session.get_session().get_service_model("bedrock-agent-runtime")
    report = ParamValidator().validate(request, model.operation_model("AgenticRetrieveStream").input_shape)
    return report.generate_report() if report.has_errors() else ""


def build(body, **settings):
    tenant = tenant_settings(**settings)
    return build_request(parse_query(__import__("json").dumps(body).encode(), tenant, {"agentic"}), tenant, "alice")


def test_managed_request_is_valid_for_botocore_and_carries_descriptions_and_defaults():
    request = build({"question": "q"})
    assert botocore_errors(request) == ""
    assert [r["description"] for r in request["retrievers"]] == [
        CORPUS_DESCRIPTIONS["docs"],
        CORPUS_DESCRIPTIONS["tickets"],
    ]
    # No rerankingModelType unless configured: the service's default is MANAGED for managed-embedding
    # knowledge bases and NONE for custom-embedding ones (botocore AgenticRetrieveConfiguration).
    assert request["agenticRetrieveConfiguration"] == {"foundationModelType": "MANAGED", "maxAgentIteration": 3}
    assert all(
        r["configuration"]["knowledgeBase"]["retrievalOverrides"] == {"maxNumberOfResults": 10}
        for r in request["retrievers"]
    )
    assert request["userContext"] == {"userId": "alice"} and request["generateResponse"] is True
    assert "policyConfiguration" not in request and "retrievalInstructionConfiguration" not in request


@pytest.mark.parametrize("reranking_type", ["MANAGED", "NONE"])
def test_a_configured_reranking_type_is_sent_as_configured(reranking_type):
    request = build({"question": "q"}, reranking_type=reranking_type)
    assert botocore_errors(request) == ""
    assert request["agenticRetrieveConfiguration"]["rerankingModelType"] == reranking_type
    assert "rerankingConfiguration" not in request["agenticRetrieveConfiguration"]


def test_custom_planner_reranker_guardrail_and_instruction_have_botocore_shapes():
    request = build(
        {
            "messages": [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b"},
                {"role": "user", "content": "c"},
            ],
            "filter": {
                "andAll": [
                    {"equals": {"key": "product", "value": "pipedream"}},
                    {"greaterThan": {"key": "year", "value": 2023}},
                ]
            },
        },
        planner_type="CUSTOM",
        planner_model_arn=PLANNER,
        reranking_type="CUSTOM",
        reranking_model_arn=RERANKER,
        guardrail_id="abc123",
        guardrail_version="2",
        retrieval_instruction_id="instr1",
        retrieval_instruction_version="3",
    )
    assert botocore_errors(request) == ""
    config = request["agenticRetrieveConfiguration"]
    assert config["foundationModelConfiguration"] == {
        "type": "BEDROCK_FOUNDATION_MODEL",
        "bedrockFoundationModelConfiguration": {"modelConfiguration": {"modelArn": PLANNER}},
    }
    assert config["rerankingConfiguration"] == {
        "type": "BEDROCK_RERANKING_MODEL",
        "bedrockRerankingConfiguration": {"modelConfiguration": {"modelArn": RERANKER}},
    }
    assert request["policyConfiguration"] == {
        "bedrockGuardrailConfiguration": {"guardrailId": "abc123", "guardrailVersion": "2"}
    }
    assert request["retrievalInstructionConfiguration"] == {
        "retrievalInstructionId": "instr1",
        "version": "3",
    }
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user"]
    assert request["retrievers"][0]["configuration"]["knowledgeBase"]["retrievalOverrides"]["filter"]["andAll"][1] == {
        "greaterThan": {"key": "year", "value": 2023}
    }


def test_estimated_cost_is_one_agentic_call_plus_one_retrieve_per_planner_iteration():
    """The sample's price book: $4/1,000 calls + $1/1,000 underlying Retrieve, TotalIterationCount as proxy."""
    assert estimated_cost_usd(RunStats(iterations=3, sub_queries=7), tenant_settings()) == pytest.approx(0.004 + 0.003)
    assert estimated_cost_usd(
        RunStats(iterations=2, sub_queries=9),
        tenant_settings(agentic_price_per_1000_usd=0, retrieve_price_per_1000_usd=2),
    ) == pytest.approx(0.004)


def test_a_custom_planner_is_not_charged_the_managed_planner_fee():
    custom = tenant_settings(planner_type="CUSTOM", planner_model_arn=PLANNER)
    assert estimated_cost_usd(RunStats(iterations=5), custom) == pytest.approx(0.005)  # Retrieve calls only
    assert excludes_planner_model_cost(custom) and not excludes_planner_model_cost(tenant_settings())


@pytest.mark.parametrize("planner", ["MANAGED", "CUSTOM"])
def test_the_done_event_says_when_the_estimate_leaves_out_the_planner_model(app_client, planner):
    arn = PLANNER if planner == "CUSTOM" else None
    client = app_client(tenant_settings(planner_type=planner, planner_model_arn=arn))
    response = client.post("/v1/query", json={"question": "api keys"}, headers={"accept": "application/x-ndjson"})
    assert response.status_code == 200, response.text
    events = [json.loads(line) for line in response.text.splitlines() if line.strip()]
    planning_steps = sum(
        1 for e in events if e["type"] == "trace" and e["step"] == "Planning" and e["status"] == "IN_PROGRESS"
    )
    done = events[-1]
    assert done["type"] == "done" and planning_steps > 0 and done["iterations"] == planning_steps
    planner_fee = 0.004 if planner == "MANAGED" else 0.0
    assert done["estimatedCostUsd"] == pytest.approx(planner_fee + 0.001 * planning_steps)
    assert done.get("estimatedCostExcludesPlannerModel") is (True if planner == "CUSTOM" else None)


def test_the_emulator_receives_subset_caps_filter_guardrail_and_user(app_client, emulator):
    emulator.register_guardrail("g1", "1", {})  # the emulator answers only guardrails it knows
    client = app_client(
        tenant_settings(
            ("docs", "tickets", "wiki"),
            guardrail_id="g1",
            guardrail_version="1",
            user_context="caller",
            max_agent_iteration=4,
            max_results=8,
        )
    )
    body = {
        "question": "smart retry limits",
        "knowledgeBases": ["wiki", "docs"],
        "maxAgentIteration": 2,
        "maxResults": 5,
        "generateResponse": False,
        "filter": {"startsWith": {"key": "x-amz-bedrock-kb-source-uri", "value": "s3://"}},
    }
    response = client.post("/v1/query", json=body)
    assert response.status_code == 200, response.text
    (sent,) = sent_bodies(emulator)
    assert [r["description"] for r in sent["retrievers"]] == [
        CORPUS_DESCRIPTIONS["docs"],
        CORPUS_DESCRIPTIONS["wiki"],
    ]
    overrides = [r["configuration"]["knowledgeBase"]["retrievalOverrides"] for r in sent["retrievers"]]
    assert all(o["maxNumberOfResults"] == 5 and o["filter"] == body["filter"] for o in overrides)
    assert sent["agenticRetrieveConfiguration"]["maxAgentIteration"] == 2
    assert sent["generateResponse"] is False
    assert sent["policyConfiguration"]["bedrockGuardrailConfiguration"] == {
        "guardrailId": "g1",
        "guardrailVersion": "1",
    }
    assert sent["userContext"] == {"userId": "alice"}  # the default test caller's session name
    assert '"type":"text"' not in response.text and "event: text" not in response.text


def test_tenant_defaults_fill_what_the_request_leaves_out(app_client, emulator):
    client = app_client(tenant_settings(max_agent_iteration=2, max_results=4, generate_response=False))
    assert client.post("/v1/query", json={"question": "api keys"}).status_code == 200
    (sent,) = sent_bodies(emulator)
    assert sent["agenticRetrieveConfiguration"]["maxAgentIteration"] == 2
    assert sent["generateResponse"] is False
    assert {
        r["configuration"]["knowledgeBase"]["retrievalOverrides"]["maxNumberOfResults"] for r in sent["retrievers"]
    } == {4}
