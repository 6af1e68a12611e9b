"""The endpoint role's policy: scoped to one tenant's resources; every `*` is one AWS requires."""

from __future__ import annotations

import pytest

from contract import metric_names
from policies.endpoint_role import WILDCARD_REASONS, EndpointRoleInputs, endpoint_role_policy, inputs_for
from policies.model_access import parse_model_arn
from schema import load_project

KB_ARNS = (
    "arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KBDOCS0001",
    "arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KBTICK0002",
)
LOG_GROUP = "arn:aws:logs:us-west-2:111122223333:log-group:/aws/lambda/akb-dev-acme-endpoint"
GUARDRAIL = "arn:aws:bedrock:us-west-2:111122223333:guardrail/abcdefgh1234"
PROFILE = "arn:aws:bedrock:us-west-2:111122223333:inference-profile/us.amazon.nova-lite-v1:0"
FOUNDATION = "arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0"
RERANKER = "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0"


def _policy(**overrides) -> dict:
    return endpoint_role_policy(EndpointRoleInputs(knowledge_base_arns=KB_ARNS, log_group_arn=LOG_GROUP, **overrides))


def _by_sid(policy: dict) -> dict[str, dict]:
    return {statement["Sid"]: statement for statement in policy["Statement"]}


def _actions(statement: dict) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


def _resources(statement: dict) -> list[str]:
    resource = statement["Resource"]
    return [resource] if isinstance(resource, str) else resource


def test_every_statement_has_a_unique_sid_and_allows():
    policy = _policy(guardrail_arn=GUARDRAIL, kms_key_arns=("arn:aws:kms:us-west-2:111122223333:key/k",))
    sids = [statement["Sid"] for statement in policy["Statement"]]
    assert len(sids) == len(set(sids)) and all(sids)
    assert {statement["Effect"] for statement in policy["Statement"]} == {"Allow"}


def test_retrieve_and_document_content_are_scoped_to_exactly_the_tenants_knowledge_bases():
    statement = _by_sid(_policy())["RetrieveFromTheTenantsKnowledgeBasesOnly"]
    assert _actions(statement) == {"bedrock:Retrieve", "bedrock:GetDocumentContent"}
    assert _resources(statement) == list(KB_ARNS)


def test_agentic_retrieve_stream_is_the_only_bedrock_retrieval_action_on_star():
    metrics = "PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces"
    wildcard = [s for s in _policy()["Statement"] if "*" in _resources(s) and s["Sid"] != metrics]
    # MANAGED planner (the default) adds its own `*`; everything else on `*` is AgenticRetrieveStream.
    assert {action for s in wildcard for action in _actions(s)} == {
        "bedrock:AgenticRetrieveStream",
        "bedrock:InvokeModelWithResponseStream",
    }


def test_managed_planner_gets_star_with_a_sid_saying_why():
    statement = _by_sid(_policy(planner_type="MANAGED"))["ManagedPlannerModelIsChosenByBedrockSoNoResourceScope"]
    assert statement["Resource"] == "*"
    assert _actions(statement) == {"bedrock:InvokeModelWithResponseStream"}


def test_custom_foundation_model_planner_is_scoped_to_that_model_only():
    policy = _policy(planner_type="CUSTOM", planner_model_arn=FOUNDATION)
    invoke = [s for s in policy["Statement"] if "bedrock:InvokeModelWithResponseStream" in _actions(s)]
    assert [_resources(s) for s in invoke] == [[FOUNDATION]]
    assert "Condition" not in invoke[0]


def test_custom_inference_profile_planner_gets_profile_and_its_model_narrowed_to_the_profile():
    statements = _by_sid(_policy(planner_type="CUSTOM", planner_model_arn=PROFILE))
    assert statements["InvokeTheCustomPlannerModelProfile"]["Resource"] == PROFILE
    through = statements["InvokeTheCustomPlannerModelThroughProfile"]
    assert through["Resource"] == "arn:aws:bedrock:*::foundation-model/amazon.nova-lite-v1:0"
    assert through["Condition"] == {"StringEquals": {"bedrock:InferenceProfileArn": PROFILE}}
    assert "ManagedPlannerModelIsChosenByBedrockSoNoResourceScope" not in statements


@pytest.mark.parametrize(
    ("profile_id", "model_id"),
    [
        ("us.amazon.nova-lite-v1:0", "amazon.nova-lite-v1:0"),
        ("eu.anthropic.claude-3-7-sonnet-20250219-v1:0", "anthropic.claude-3-7-sonnet-20250219-v1:0"),
        ("apac.amazon.nova-pro-v1:0", "amazon.nova-pro-v1:0"),
        ("us-gov.anthropic.claude-3-haiku-20240307-v1:0", "anthropic.claude-3-haiku-20240307-v1:0"),
    ],
)
def test_geo_prefix_is_stripped_from_the_profile_id(profile_id, model_id):
    arn = f"arn:aws:bedrock:eu-west-1:111122223333:inference-profile/{profile_id}"
    assert parse_model_arn(arn).foundation_model_id == model_id


def test_application_inference_profile_allows_any_model_only_through_that_profile():
    arn = "arn:aws:bedrock:us-west-2:111122223333:application-inference-profile/abc123"
    statements = _by_sid(_policy(planner_type="CUSTOM", planner_model_arn=arn))
    through = statements["InvokeTheCustomPlannerModelThroughProfile"]
    assert through["Resource"] == "arn:aws:bedrock:*::foundation-model/*"
    assert through["Condition"]["StringEquals"]["bedrock:InferenceProfileArn"] == arn


def test_partition_of_the_model_arn_is_kept():
    arn = "arn:aws-us-gov:bedrock:us-gov-west-1:111122223333:inference-profile/us-gov.amazon.nova-lite-v1:0"
    statements = _by_sid(_policy(planner_type="CUSTOM", planner_model_arn=arn))
    through = statements["InvokeTheCustomPlannerModelThroughProfile"]
    assert through["Resource"].startswith("arn:aws-us-gov:bedrock:*::foundation-model/")


@pytest.mark.parametrize("reranking_type", ["MANAGED", "NONE"])
def test_managed_or_no_reranking_needs_no_statement(reranking_type):
    actions = {a for s in _policy(reranking_type=reranking_type)["Statement"] for a in _actions(s)}
    assert "bedrock:Rerank" not in actions and "bedrock:InvokeModel" not in actions


def test_custom_reranking_gets_rerank_and_invoke_model_on_the_reranker_only():
    statements = _by_sid(_policy(reranking_type="CUSTOM", reranking_model_arn=RERANKER))
    assert statements["RerankIsDocumentedWithoutAResourceScope"]["Action"] == "bedrock:Rerank"
    assert statements["InvokeTheCustomRerankingModel"]["Resource"] == RERANKER
    assert statements["InvokeTheCustomRerankingModel"]["Action"] == "bedrock:InvokeModel"


def test_custom_without_model_arn_is_refused():
    with pytest.raises(ValueError, match="planner_model_arn"):
        _policy(planner_type="CUSTOM")
    with pytest.raises(ValueError, match="reranking_model_arn"):
        _policy(reranking_type="CUSTOM")


def test_guardrail_statement_only_when_a_guardrail_is_passed():
    assert "ApplyTheTenantsGuardrail" not in _by_sid(_policy())
    statement = _by_sid(_policy(guardrail_arn=GUARDRAIL))["ApplyTheTenantsGuardrail"]
    assert _actions(statement) == {"bedrock:GetGuardrail", "bedrock:ApplyGuardrail"}
    assert statement["Resource"] == GUARDRAIL


def test_no_deny_statement_on_guardrail_identifier():
    policy = _policy(guardrail_arn=GUARDRAIL)
    assert all(s["Effect"] == "Allow" for s in policy["Statement"])
    assert "bedrock:GuardrailIdentifier" not in str(policy)


def test_put_metric_data_is_conditioned_on_the_two_namespaces():
    statement = _by_sid(_policy())["PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces"]
    assert statement["Resource"] == "*"
    assert sorted(statement["Condition"]["StringEquals"]["cloudwatch:namespace"]) == sorted(
        [metric_names.BEDROCK_KB_NAMESPACE, metric_names.NAMESPACE]
    )


def test_logs_only_on_its_own_log_group_and_its_streams():
    statement = _by_sid(_policy())["WriteTheEndpointsOwnLogGroup"]
    assert _actions(statement) == {"logs:CreateLogStream", "logs:PutLogEvents"}
    assert _resources(statement) == [LOG_GROUP, f"{LOG_GROUP}:*"]


def test_kms_only_when_keys_are_configured_and_only_those_keys():
    assert not [s for s in _policy()["Statement"] if any(a.startswith("kms:") for a in _actions(s))]
    keys = ("arn:aws:kms:us-west-2:111122223333:key/one", "arn:aws:kms:us-west-2:111122223333:key/two")
    statement = _by_sid(_policy(kms_key_arns=keys))["DecryptWithTheTenantsConfiguredKeys"]
    assert statement["Action"] == "kms:Decrypt" and _resources(statement) == list(keys)


def test_no_action_wildcards_in_any_case():
    policy = _policy(
        planner_type="CUSTOM",
        planner_model_arn=PROFILE,
        reranking_type="CUSTOM",
        reranking_model_arn=RERANKER,
        guardrail_arn=GUARDRAIL,
        kms_key_arns=("arn:aws:kms:x:1:key/k",),
    )
    assert not [a for s in policy["Statement"] for a in _actions(s) if "*" in a]


def test_every_wildcard_resource_has_a_documented_reason():
    policy = _policy(reranking_type="CUSTOM", reranking_model_arn=PROFILE, guardrail_arn=GUARDRAIL)
    wildcard_sids = {s["Sid"] for s in policy["Statement"] if any("*" in r for r in _resources(s))}
    assert wildcard_sids and wildcard_sids <= set(WILDCARD_REASONS)
    assert all("https://" in WILDCARD_REASONS[sid] or "log" in sid.lower() for sid in wildcard_sids)


def test_inputs_from_config_collect_models_and_kms_keys(config_copy):
    config_copy.edit("environments", "dev", lambda env: env.update(reranking={"type": "CUSTOM", "model_arn": RERANKER}))

    def add_keys(tenant):
        tenant["knowledge_bases"][1]["kms_key_arn"] = (
            "arn:aws:kms:us-west-2:123456789012:key/00000000-0000-4000-8000-00000000000b"
        )
        tenant["guardrail"]["kms_key_arn"] = (
            "arn:aws:kms:us-west-2:123456789012:key/00000000-0000-4000-8000-00000000000c"
        )

    config_copy.edit("tenants", "acme", add_keys)
    project = load_project(config_copy.root, "dev")
    inputs = inputs_for(
        project.environment,
        project.tenants["acme"],
        knowledge_base_arns=KB_ARNS,
        log_group_arn=LOG_GROUP,
        guardrail_arn=GUARDRAIL,
    )
    assert inputs.planner_type == "CUSTOM"
    assert inputs.planner_model_arn == project.environment.planner.model_arn
    assert (inputs.reranking_type, inputs.reranking_model_arn) == ("CUSTOM", RERANKER)
    assert list(inputs.kms_key_arns) == [
        "arn:aws:kms:us-west-2:123456789012:key/00000000-0000-4000-8000-00000000000b",
        "arn:aws:kms:us-west-2:123456789012:key/00000000-0000-4000-8000-00000000000c",
    ]


def test_no_knowledge_base_is_refused():
    with pytest.raises(ValueError, match="at least one knowledge base"):
        endpoint_role_policy(EndpointRoleInputs(knowledge_base_arns=(), log_group_arn=LOG_GROUP))
