"""The tenant MCP gateway in the dev templates (globex: CUSTOM_JWT) and an AWS_IAM variant on a small stack.

The dev synth runs cdk-nag and cfn-lint over these resources (tests/stacks/test_app.py); here each
resource is checked against what the issue and the AgentCore sources require.
"""

from __future__ import annotations

import json

import pytest

from contract.resource_names import tenant_stack_name
from lambdas.gateway_interceptor.gateway_settings import ENV_VAR, GatewaySettings
from schema.gateway_config import McpGateway
from tests.cdk_constructs.probe import resources, template_of, tenant_stack
from tests.stacks.templates import as_list, referenced_ids

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _globex(synthesized) -> dict:
    return synthesized.template(tenant_stack_name(synthesized.project.env_name, "globex"))["Resources"]


def _of_type(template: dict, resource_type: str) -> dict[str, dict]:
    return {key: value for key, value in template.items() if value["Type"] == resource_type}


def _one(template: dict, resource_type: str) -> tuple[str, dict]:
    # globex also has `agent:`: its dashboard, alarms and function are tests/stacks/test_agent.py's.
    found = {k: v for k, v in _of_type(template, resource_type).items() if not k.startswith("Agent")}
    assert len(found) == 1, list(found)
    key, value = next(iter(found.items()))
    return key, value["Properties"]


def _kb_ids(template: dict) -> set[str]:
    return set(_of_type(template, "AWS::Bedrock::KnowledgeBase"))


def test_only_a_tenant_with_gateway_gets_one(synthesized):
    assert _of_type(_globex(synthesized), "AWS::BedrockAgentCore::Gateway")
    acme = synthesized.template(tenant_stack_name("dev", "acme"))["Resources"]
    # acme has conversations (an AgentCore Memory) but no `gateway:`: no gateway resource of any kind.
    assert not [v for v in acme.values() if v["Type"].startswith("AWS::BedrockAgentCore::Gateway")]
    assert "InvokeGateway" not in json.dumps(acme)


def test_gateway_speaks_mcp_with_the_jwt_authorizer_and_one_request_interceptor(synthesized):
    template = _globex(synthesized)
    _, gateway = _one(template, "AWS::BedrockAgentCore::Gateway")
    assert gateway["ProtocolType"] == "MCP" and gateway["AuthorizerType"] == "CUSTOM_JWT"
    jwt = gateway["AuthorizerConfiguration"]["CustomJWTAuthorizer"]
    assert jwt["AllowedClients"] == ["globex-portal", "globex-assistant"]
    assert jwt["DiscoveryUrl"].endswith("/.well-known/openid-configuration")
    (interceptor,) = gateway["InterceptorConfigurations"]
    assert interceptor["InterceptionPoints"] == ["REQUEST"]
    assert interceptor["InputConfiguration"] == {"PassRequestHeaders": True}  # the verified token
    interceptor_id, _ = next(
        (k, v) for k, v in _of_type(template, "AWS::Lambda::Function").items() if "Interceptor" in k
    )
    assert interceptor["Interceptor"]["Lambda"]["Arn"] == {"Fn::GetAtt": [interceptor_id, "Arn"]}
    assert "ExceptionLevel" not in gateway  # DEBUG would return internal details to callers


def _targets(template: dict) -> dict[str, dict]:
    return {
        v["Properties"]["Name"]: v["Properties"]
        for v in _of_type(template, "AWS::BedrockAgentCore::GatewayTarget").values()
    }


def test_agentic_target_fixes_everything_a_caller_must_not_choose(synthesized):
    template = _globex(synthesized)
    target = _targets(template)["ask"]
    assert target["CredentialProviderConfigurations"] == [{"CredentialProviderType": "GATEWAY_IAM_ROLE"}]
    connector = target["TargetConfiguration"]["Mcp"]["Connector"]
    assert connector["Source"] == {"ConnectorId": "bedrock-knowledge-bases"}
    assert connector["Enabled"] == ["AgenticRetrieveStream"]
    (configuration,) = connector["Configurations"]
    values = configuration["ParameterValues"]
    assert {r["configuration"]["knowledgeBase"]["knowledgeBaseId"]["Fn::GetAtt"][0] for r in values["retrievers"]} == (
        _kb_ids(template)
    )
    assert [r["description"] for r in values["retrievers"]] == [
        kb.description for kb in synthesized.project.tenants["globex"].knowledge_bases
    ]
    agentic = values["agenticRetrieveConfiguration"]
    assert agentic["maxAgentIteration"] == 4 and agentic["foundationModelType"] == "CUSTOM"
    # Fact 7: the guardrail where botocore's request takes it (top level), not in agenticRetrieveConfiguration.
    assert "policyConfiguration" not in agentic
    assert set(values["policyConfiguration"]["bedrockGuardrailConfiguration"]) == {"guardrailId", "guardrailVersion"}
    assert {o["Path"] for o in configuration["ParameterOverrides"]} == {"$.messages", "$.userContext"}
    assert all(o["Visible"] for o in configuration["ParameterOverrides"])


def test_retrieve_targets_bind_one_knowledge_base_each_and_expose_only_query_count_filter(synthesized):
    template = _globex(synthesized)
    targets = _targets(template)
    assert sorted(targets) == ["ask", "search-handbook", "search-wiki"]
    (configuration,) = targets["search-wiki"]["TargetConfiguration"]["Mcp"]["Connector"]["Configurations"]
    assert configuration["Name"] == "Retrieve"
    assert configuration["ParameterValues"]["knowledgeBaseId"]["Fn::GetAtt"][0].startswith("KnowledgeBasewiki")
    search = "$.retrievalConfiguration.managedSearchConfiguration"
    assert {o["Path"] for o in configuration["ParameterOverrides"]} == {
        "$.retrievalQuery.text", f"{search}.numberOfResults", f"{search}.filter", "$.userContext",
    }  # fmt: skip


def test_rate_limit_is_per_user_of_the_token(synthesized):
    _, limit = _one(_globex(synthesized), "AWS::BedrockAgentCore::GatewayRateLimit")
    assert limit["DimensionKeys"] == ["$.context.jwt.sub"]
    assert limit["Entries"] == [
        {"Dimensions": {"$.context.jwt.sub": "*"}, "Requests": [{"Period": "minute", "Rate": 120}]}
    ]


def _role_statements(template: dict, key_part: str) -> tuple[dict, list[dict]]:
    _, role = next((k, v["Properties"]) for k, v in _of_type(template, "AWS::IAM::Role").items() if key_part in k)
    (policy,) = role["Policies"]
    return role, policy["PolicyDocument"]["Statement"]


def test_gateway_role_reaches_the_tenants_knowledge_bases_and_interceptor_only(synthesized):
    template = _globex(synthesized)
    role, statements = _role_statements(template, "GatewayRole")
    by_sid = {s["Sid"]: s for s in statements}
    assert by_sid["AgenticRetrieveStreamCannotBeScopedToAResource"]["Resource"] == "*"
    for sid, action in (("ValidateTheTenantsKnowledgeBases", "bedrock:GetKnowledgeBase"),
                        ("RetrieveFromTheTenantsKnowledgeBasesOnly",
                         ["bedrock:GetDocumentContent", "bedrock:Retrieve"])):  # fmt: skip
        assert by_sid[sid]["Action"] == action
        assert referenced_ids(by_sid[sid]["Resource"]) == _kb_ids(template)
    invoke = by_sid["InvokeTheTenantsInterceptorOnly"]
    assert invoke["Action"] == "lambda:InvokeFunction" and len(as_list(invoke["Resource"])) == 1
    assert "Interceptor" in invoke["Resource"]["Fn::GetAtt"][0]
    wildcards = {s["Sid"] for s in statements if "*" in json.dumps(s["Resource"])}
    assert wildcards == {
        "AgenticRetrieveStreamCannotBeScopedToAResource",
        "PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces",
        "InvokeTheCustomPlannerModelThroughProfile",  # the endpoint's statement: region * pinned by a condition
    }
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock-agentcore.amazonaws.com"}
    assert set(trust["Condition"]) == {"StringEquals", "ArnLike"}
    assert "gateway/*" in json.dumps(trust["Condition"]["ArnLike"]["aws:SourceArn"])


def test_interceptor_runs_the_shared_bundle_with_its_tenant_settings_and_writes_only_its_logs(synthesized):
    template = _globex(synthesized)
    functions = _of_type(template, "AWS::Lambda::Function")
    interceptor = next(v["Properties"] for k, v in functions.items() if "Interceptor" in k)
    endpoint = next(v["Properties"] for k, v in functions.items() if k.startswith("EndpointFunction"))
    assert interceptor["Handler"] == "lambdas.gateway_interceptor.interceptor.handler"
    assert interceptor["Code"] == endpoint["Code"]  # one bundle, one identity module
    settings = GatewaySettings.from_json(interceptor["Environment"]["Variables"][ENV_VAR])
    assert settings.authorizer == "CUSTOM_JWT" and settings.user_context == "trusted"
    assert settings.trusted_callers == ["globex-portal"] and settings.max_agent_iteration == 4
    assert sorted(settings.tools) == [
        "ask___AgenticRetrieveStream", "search-handbook___Retrieve", "search-wiki___Retrieve",
    ]  # fmt: skip
    _, statements = _role_statements(template, "InterceptorRole")
    assert [s["Action"] for s in statements] == [["logs:CreateLogStream", "logs:PutLogEvents"]]


def test_gateway_url_is_an_output_and_an_ssm_parameter(synthesized):
    template = synthesized.template(tenant_stack_name("dev", "globex"))
    assert template["Outputs"]["GatewayUrl"]["Value"]["Fn::GetAtt"][1] == "GatewayUrl"
    names = {p["Properties"]["Name"] for p in template["Resources"].values() if p["Type"] == "AWS::SSM::Parameter"}
    assert {"/akb/dev/globex/gateway/url", "/akb/dev/globex/gateway/id"} <= names


def test_gateway_alarms_join_the_tenants_composite_and_its_dashboard(synthesized):
    template = _globex(synthesized)
    alarms = {
        v["Properties"]["AlarmName"]: v["Properties"] for v in _of_type(template, "AWS::CloudWatch::Alarm").values()
    }
    gateway_alarms = {name for name in alarms if "-gateway-" in name}
    assert gateway_alarms == {
        f"akb-dev-globex-{k}" for k in ("gateway-system-errors", "gateway-throttles", "gateway-interceptor-errors")
    }
    system = alarms["akb-dev-globex-gateway-system-errors"]
    namespaces = {q["MetricStat"]["Metric"]["Namespace"] for q in system["Metrics"] if "MetricStat" in q}
    assert namespaces == {"AWS/Bedrock-AgentCore"}
    # Whichever documented dimension set AgentCore publishes, the alarm sees it: per tool (the
    # developer guide) or per gateway (aws-cdk-lib's), the larger of the two, never their sum.
    dimension_sets = {
        frozenset(d["Name"] for d in q["MetricStat"]["Metric"]["Dimensions"])
        for q in system["Metrics"]
        if "MetricStat" in q
    }
    assert dimension_sets == {
        frozenset({"Operation", "Protocol", "Method", "Resource", "Name"}),
        frozenset({"Operation", "Protocol", "Resource"}),
    }
    (watched,) = [q["Expression"] for q in system["Metrics"] if q.get("ReturnData", True) and "Expression" in q]
    assert watched.startswith("MAX([FILL(t0, 0)") and watched.endswith(", FILL(g, 0)])")
    _, composite = _one(template, "AWS::CloudWatch::CompositeAlarm")
    rule = json.dumps(composite["AlarmRule"])
    assert all(key in rule for key in ("GatewaySystemErrors", "GatewayThrottles", "GatewayInterceptorErrors"))
    _, dashboard = _one(template, "AWS::CloudWatch::Dashboard")
    body = json.dumps(dashboard["DashboardBody"])
    assert "MCP gateway" in body and "AWS/Bedrock-AgentCore" in body and "SEARCH(" in body


def test_an_iam_gateway_lets_the_tenants_invokers_invoke_it_and_nobody_else():
    stack = tenant_stack("acme", user_context="none", gateway=McpGateway(authorizer="AWS_IAM"))
    template = template_of(stack)
    (gateway,) = resources(template, "AWS::BedrockAgentCore::Gateway").values()
    assert gateway["Properties"]["AuthorizerType"] == "AWS_IAM"
    assert gateway["Properties"]["InterceptorConfigurations"][0]["InputConfiguration"] == {"PassRequestHeaders": False}
    (policy,) = resources(template, "AWS::BedrockAgentCore::ResourcePolicy").values()
    text = json.dumps(policy["Properties"]["Policy"])  # a JSON string joined with the gateway ARN
    assert "arn:aws:iam::123456789012:role/acme-app" in text and "bedrock-agentcore:InvokeGateway" in text
    assert "*" not in text
    managed = next(
        v["Properties"] for v in resources(template, "AWS::IAM::ManagedPolicy").values()
        if v["Properties"]["ManagedPolicyName"].endswith("-mcp-invoke")
    )  # fmt: skip
    (statement,) = managed["PolicyDocument"]["Statement"]
    assert (
        statement["Action"] == "bedrock-agentcore:InvokeGateway"
        and statement["Resource"]["Fn::GetAtt"][1] == "GatewayArn"
    )
    (limit,) = resources(template, "AWS::BedrockAgentCore::GatewayRateLimit").values()
    assert limit["Properties"]["DimensionKeys"] == ["$.context.iam.principal"]


def test_the_knowledge_bases_resource_policies_admit_the_gateway_role(synthesized):
    template = _globex(synthesized)
    (gateway_role,) = [k for k in _of_type(template, "AWS::IAM::Role") if k.startswith("McpGatewayGatewayRole")]
    policies = _of_type(template, "AWS::Bedrock::KnowledgeBasePolicy")
    assert len(policies) == 2
    for policy in policies.values():  # its Deny exempts the readers; without the gateway role, Retrieve is refused
        assert gateway_role in referenced_ids(policy["Properties"]["PolicyDocument"])
