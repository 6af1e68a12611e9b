"""`akb policy` prints the tenant's IAM for review, resolved from config, with named placeholders."""

from __future__ import annotations

import json

from click.testing import CliRunner

from client.cli import main
from tests.schema.conftest import config_copy  # noqa: F401 - fixture


def _run(*args: str):
    return CliRunner().invoke(main, ["policy", *args])


def test_prints_the_execution_role_with_the_tenants_own_resources_only():
    result = _run("--env", "dev", "--tenant", "acme")
    assert result.exit_code == 0, result.output
    review = json.loads(result.output)
    text = json.dumps(review["endpoint_execution_role"])
    assert "<kb:docs:id>" in text and "<kb:tickets:id>" in text
    assert "globex" not in text and "handbook" not in text
    assert "log-group:/aws/lambda/akb-dev-acme-endpoint" in text
    assert "arn:aws:bedrock:us-west-2:123456789012:guardrail/<guardrail:id>" in text


def test_prints_the_invoker_policy_for_the_tenants_function():
    review = json.loads(_run("--env", "dev", "--tenant", "globex").output)
    policy = review["invoker_managed_policy"]
    assert policy["name"] == "akb-dev-globex-invoke"
    resources = {statement["Resource"] for statement in policy["document"]["Statement"]}
    assert resources == {"arn:aws:lambda:us-west-2:123456789012:function:akb-dev-globex-endpoint"}


def test_lists_both_url_permissions_for_every_configured_invoker():
    review = json.loads(_run("--env", "dev", "--tenant", "globex").output)
    pairs = {(p["principal"], p["action"]) for p in review["function_url_permissions"]}
    invokers = ["arn:aws:iam::123456789012:role/globex-portal", "arn:aws:iam::345678901234:role/globex-batch"]
    actions = ("lambda:InvokeFunctionUrl", "lambda:InvokeFunction")
    assert pairs == {(arn, action) for arn in invokers for action in actions}


def test_explains_every_wildcard_it_prints():
    review = json.loads(_run("--env", "dev", "--tenant", "acme").output)
    wildcard_sids = {
        statement["Sid"]
        for statement in review["endpoint_execution_role"]["Statement"]
        for resource in ([statement["Resource"]] if isinstance(statement["Resource"], str) else statement["Resource"])
        if "*" in resource
    }
    assert wildcard_sids and wildcard_sids == set(review["why_wildcards"])


def test_environment_without_account_shows_an_account_placeholder(config_copy):  # noqa: F811
    config_copy.edit("environments", "dev", lambda env: (env.pop("account"), env.update(planner={"type": "MANAGED"})))
    result = _run("--config", str(config_copy.root), "--tenant", "acme")
    assert result.exit_code == 0, result.output
    role = json.loads(result.output)["endpoint_execution_role"]
    assert "arn:aws:logs:us-west-2:<account>:log-group:" in json.dumps(role)
    managed = [s for s in role["Statement"] if s["Sid"] == "ManagedPlannerModelIsChosenByBedrockSoNoResourceScope"]
    assert managed and managed[0]["Resource"] == "*"


def test_unknown_tenant_exits_1_naming_the_known_ones():
    result = _run("--env", "dev", "--tenant", "initech")
    assert result.exit_code == 1
    assert "acme, globex" in result.output and "Traceback" not in result.output


def test_knowledge_base_roles_read_only_their_own_sources():
    review = json.loads(_run("--env", "dev", "--tenant", "globex").output)
    roles = review["knowledge_base_roles"]
    assert set(roles) == {"handbook", "wiki"}
    handbook = json.dumps(roles["handbook"]["policy"])
    assert "<documents-bucket>/*" in handbook and "secretsmanager" not in handbook
    wiki = json.dumps(roles["wiki"]["policy"])
    assert "globex-confluence" in wiki and "s3:" not in wiki
    assert roles["wiki"]["trust"]["Statement"][0]["Principal"] == {"Service": "bedrock.amazonaws.com"}


def test_caller_user_context_carries_the_session_name_caveat():
    review = json.loads(_run("--env", "dev", "--tenant", "acme").output)
    assert review["user_context"]["mode"] == "caller"
    assert review["user_context"]["session_name_roles"] == ["arn:aws:iam::123456789012:role/acme-app"]
    note = review["user_context"]["note"]
    assert "session name" in note and "sts:RoleSessionName" in note and "user_identity_unverified" in note
    assert "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html" in note


def test_none_user_context_has_no_caveat(config_copy):  # noqa: F811
    def no_acls(tenant):
        tenant.update(user_context="none")
        tenant["invokers"][0].pop("user_id_from_session_name")

    config_copy.edit("tenants", "acme", no_acls)
    result = _run("--config", str(config_copy.root), "--env", "dev", "--tenant", "acme")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["user_context"] == {"mode": "none"}


def test_trusted_user_context_lists_trusted_callers_and_says_others_are_refused():
    review = json.loads(_run("--env", "dev", "--tenant", "globex").output)["user_context"]
    assert review["trusted_callers"] == ["arn:aws:iam::123456789012:role/globex-portal"]
    assert review["session_name_roles"] == []  # globex-batch's session names are never user ids
    assert "refused (403 user_identity_unverified)" in review["note"]


def test_prints_the_mcp_gateway_roles_for_a_tenant_with_a_gateway_only():
    assert "mcp_gateway" not in json.loads(_run("--env", "dev", "--tenant", "acme").output)
    gateway = json.loads(_run("--env", "dev", "--tenant", "globex").output)["mcp_gateway"]
    text = json.dumps(gateway["execution_role"])
    assert "<kb:handbook:id>" in text and "<kb:wiki:id>" in text and "acme" not in text
    assert "function:<interceptor-function>" in text
    assert set(gateway["why_wildcards"]) >= {"AgenticRetrieveStreamCannotBeScopedToAResource"}
    assert gateway["execution_role_trust"]["Statement"][0]["Principal"] == {
        "Service": "bedrock-agentcore.amazonaws.com"
    }
    assert gateway["authorizer"] == "CUSTOM_JWT" and gateway["invoker_managed_policy"] is None
    assert gateway["user_context"] == {"mode": "trusted", "from": "the verified token's 'sub' claim"}


def test_knowledge_base_policies_list_the_gateway_role_as_a_reader_where_there_is_a_gateway():
    acme = json.dumps(json.loads(_run("--env", "dev", "--tenant", "acme").output)["knowledge_base_resource_policies"])
    globex = json.dumps(
        json.loads(_run("--env", "dev", "--tenant", "globex").output)["knowledge_base_resource_policies"]
    )
    assert "<mcp-gateway-role>" in globex and "<mcp-gateway-role>" not in acme
    assert "<endpoint-role>" in globex and "<endpoint-role>" in acme


def test_prints_the_bedrock_agent_roles_for_a_tenant_with_an_agent_only():
    assert "bedrock_agent" not in json.loads(_run("--env", "dev", "--tenant", "acme").output)
    review = json.loads(_run("--env", "dev", "--tenant", "globex").output)
    agent = review["bedrock_agent"]
    service = json.dumps(agent["service_role"])
    assert "bedrock:InvokeModel" in service and "bedrock:ApplyGuardrail" in service and "knowledge-base" not in service
    trust = agent["service_role_trust"]["Statement"][0]
    assert trust["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    function_role = json.dumps(agent["action_function_role"])
    assert "<kb:handbook:id>" in function_role and "acme" not in function_role
    assert "log-group:/aws/lambda/akb-dev-globex-agent-action" in function_role
    assert agent["invoker_managed_policy"]["Statement"][0]["Action"] == "bedrock:InvokeAgent"
    assert "agent-alias/<agent-id>/<alias-id>" in json.dumps(agent["invoker_managed_policy"])
    readers = json.dumps(review["knowledge_base_resource_policies"])
    assert "<agent-action-function-role>" in readers
