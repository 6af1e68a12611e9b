"""The canary through each door: the real endpoint (uvicorn, in front of the emulator), an MCP server standing
in for the AgentCore Gateway, the emulator's InvokeAgent; SSM over botocore's Stubber. Each door has a case
that passes and a case that fails, and kb-policy reads what the doors showed (fact 5 observed)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from botocore.credentials import Credentials

from client.doctor.findings import Level
from client.verify import door_checks
from client.verify.gateway_call import GatewayCaller
from client.verify.verification import DoorOutcome
from local.emulator.agent_runtime import local_agent_ids
from tests.client.doctor.scenario import project_with
from tests.client.verify.conftest import parameter, verification
from tests.client.verify.gateway_double import gateway_double

FAKE = Credentials("AKIDVERIFYTEST", "not-a-secret")


def _levels(findings) -> list[tuple[str, Level]]:
    return [(f.check, f.level) for f in findings]


def test_the_endpoint_door_answers_the_canary_and_kb_policy_is_observed(stubs, endpoint, emulator):
    emulator.reset()
    parameter(stubs, "acme", "endpoint/url", endpoint.url)
    parameter(stubs, "acme", "endpoint/function-url", None)
    v = verification(stubs)
    findings = list(door_checks.check_endpoint(v, "acme"))
    assert _levels(findings) == [(door_checks.ENDPOINT, Level.OK)]
    assert "the canary question completed" in findings[0].message
    [policy] = door_checks.check_kb_policy(v, "acme")
    assert policy.level is Level.OK and "door:endpoint" in policy.message


def test_a_caller_mode_tenant_with_a_canary_is_asked_as_the_verifying_caller(stubs, endpoint, emulator):
    """acme (user_context caller) refuses a body `userId` from a caller that is not a trusted invoker: verify
    sends the canary's user id only where the endpoint takes one (user_context trusted), like the gate."""
    from schema.canary_config import Canary

    emulator.reset()
    parameter(stubs, "acme", "endpoint/url", endpoint.url)
    parameter(stubs, "acme", "endpoint/function-url", None)
    canary = Canary(user_id="canary-user", question="How do I rotate an API key?")
    v = verification(stubs, project=project_with(acme={"canary": canary}))
    assert door_checks.endpoint_user_id(v, "acme") is None
    [finding] = door_checks.check_endpoint(v, "acme")
    assert finding.level is Level.OK, finding.message


def test_a_trusted_tenant_names_its_canary_user_to_the_endpoint(stubs):
    v = verification(stubs, tenants=("globex",))
    assert door_checks.endpoint_user_id(v, "globex") == v.project.tenants["globex"].canary.user_id


def test_a_bedrock_access_denial_fails_the_door_and_the_kb_policy(stubs, endpoint, emulator):
    emulator.reset()
    emulator.set_faults(error_before=1, error_before_type="AccessDeniedException")
    parameter(stubs, "acme", "endpoint/url", endpoint.url)
    parameter(stubs, "acme", "endpoint/function-url", None)
    v = verification(stubs)
    [door] = door_checks.check_endpoint(v, "acme")
    emulator.reset()
    assert door.level is Level.FAIL and "Bedrock refused the door's role" in door.message
    [policy] = door_checks.check_kb_policy(v, "acme")
    assert policy.level is Level.FAIL and "door:endpoint" in policy.message


def test_an_undeployed_endpoint_fails_naming_the_stack(stubs):
    parameter(stubs, "acme", "endpoint/url", None)
    parameter(stubs, "acme", "endpoint/function-url", None)
    [finding] = door_checks.check_endpoint(verification(stubs), "acme")
    assert finding.level is Level.FAIL and "deploy the stack dev-acme" in finding.message


def test_a_403_from_the_door_names_the_invoke_policy(stubs):
    v = verification(stubs)
    finding = door_checks._door_finding(door_checks.ENDPOINT, DoorOutcome(door_checks.ENDPOINT, False, "403"), "x")
    assert finding.level is Level.FAIL and "refused the verifying principal" in finding.message
    assert v.outcomes == {}


def _iam_gateway_project():
    from tests.conftest import example_project

    globex = example_project().tenants["globex"]
    gateway = globex.gateway.model_copy(update={"authorizer": "AWS_IAM", "jwt": None})
    return project_with(globex={"gateway": gateway})


@pytest.mark.parametrize(("error", "level"), [(None, Level.OK), ("AccessDeniedException: refused", Level.FAIL)])
def test_the_gateway_door_calls_the_ask_tool_signed_for_bedrock_agentcore(stubs, error, level):
    with gateway_double(error=error) as double:
        parameter(stubs, "globex", "gateway/url", double.url)
        v = verification(
            stubs,
            ("globex",),
            _iam_gateway_project(),
            gateway_caller=lambda url, region: GatewayCaller(url, region, credentials=FAKE),
        )
        [finding] = door_checks.check_gateway(v, "globex")
    assert finding.level is level, finding.message
    assert all("/us-west-2/bedrock-agentcore/aws4_request" in a for a in double.authorizations)
    if error:
        assert v.outcomes["globex"][0].access_denied


def test_a_jwt_gateway_is_not_called_and_says_why(stubs):
    [finding] = door_checks.check_gateway(verification(stubs, ("globex",)), "globex")
    assert finding.level is Level.WARN and "CUSTOM_JWT gateway" in finding.message


def _register_agent(emulator, tenant: str) -> tuple[str, str]:
    from client.evaluation.local_target import corpus_settings

    agent_id, alias_id = local_agent_ids(tenant)
    body = {
        "agentId": agent_id,
        "agentAliasId": alias_id,
        "settings": corpus_settings(emulator).to_json(),
        "responseMaxBytes": 20_000,
    }
    request = urllib.request.Request(f"{emulator.url}/_emulator/agents", data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10):
        return agent_id, alias_id


def _agent_verification(stubs, emulator, project):
    emulator.reset()
    agent_id, alias_id = _register_agent(emulator, "globex")  # its settings: the sample corpus, no document ACLs
    parameter(stubs, "globex", "agent/id", agent_id)
    parameter(stubs, "globex", "agent/alias-id", alias_id)
    runtime = emulator.client()
    clients = lambda service: runtime if service == "bedrock-agent-runtime" else stubs(service)  # noqa: E731
    return verification(stubs, ("globex",), project, clients=clients)


def test_the_agent_door_asks_the_agent_and_every_search_is_complete(stubs, emulator):
    v = _agent_verification(stubs, emulator, project_with(globex={"canary": None}))
    [finding] = door_checks.check_agent(v, "globex")
    assert finding.level is Level.OK and "searches, all complete" in finding.message


def test_a_canary_user_the_agent_may_not_name_fails_the_agent_door(stubs, emulator):
    v = _agent_verification(stubs, emulator, None)  # globex's canary names a user; this agent takes no user ids
    [finding] = door_checks.check_agent(v, "globex")
    assert finding.level is Level.FAIL and "user_id_not_allowed" in finding.message


def test_an_agent_the_stack_did_not_publish_fails(stubs):
    parameter(stubs, "globex", "agent/id", None)
    [finding] = door_checks.check_agent(verification(stubs, ("globex",)), "globex")
    assert finding.level is Level.FAIL and "not_deployed" in finding.message


def test_kb_policy_is_not_claimed_when_no_door_answered(stubs):
    [finding] = door_checks.check_kb_policy(verification(stubs), "acme")
    assert finding.level is Level.WARN
