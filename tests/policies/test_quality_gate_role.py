"""The quality gate's role: it may ask the gated tenants' endpoints, read their URLs and baselines, promote a
baseline only from the pipeline, publish only in its own namespace — and nothing else, evaluated as IAM does
(tests/iam_simulation.py)."""

from __future__ import annotations

import json

import pytest

from contract.metric_names import NAMESPACE, QUALITY_NAMESPACE
from policies.document import document
from policies.quality_gate_role import (
    WILDCARD_REASONS,
    GateScope,
    gate_role_policy,
    gate_role_trust,
    gate_statements,
    main,
)
from schema.quality_pipeline import GatedTenant
from tests.iam_simulation import ALLOWED, IMPLICIT_DENY, Request, evaluate

ACCOUNT, REGION = "111122223333", "us-west-2"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/akb-dev-quality-gate"
SCOPE = GateScope("aws", REGION, ACCOUNT, "dev")
POLICY = gate_role_policy(SCOPE, [GatedTenant("acme", "akb-quality-gate", False)])
SCHEDULED = document(gate_statements(SCOPE, [GatedTenant("acme", "akb-quality-gate", False)], promote=False))


def _arn(service: str, resource: str) -> str:
    return f"arn:aws:{service}:{REGION}:{ACCOUNT}:{resource}"


def _request(action: str, resource: str, **context: str) -> Request:
    return Request(ROLE, action, resource, ACCOUNT, {"aws:RequestedRegion": REGION, **context})


ACME = _arn("lambda", "function:akb-dev-acme-endpoint")
GLOBEX = _arn("lambda", "function:akb-dev-globex-endpoint")
BASELINE = _arn("ssm", "parameter/akb/dev/acme/quality/baseline")
PIPELINE_CASES = [
    (_request("ssm:GetParameter", _arn("ssm", "parameter/akb/dev/acme/endpoint/url")), ALLOWED),
    (_request("ssm:GetParameter", BASELINE), ALLOWED),
    (_request("ssm:PutParameter", BASELINE), ALLOWED),
    (_request("lambda:InvokeFunctionUrl", ACME, **{"lambda:FunctionUrlAuthType": "AWS_IAM"}), ALLOWED),
    (_request("lambda:InvokeFunction", ACME, **{"lambda:InvokedViaFunctionUrl": "true"}), ALLOWED),
    (_request("cloudwatch:PutMetricData", "*", **{"cloudwatch:namespace": QUALITY_NAMESPACE}), ALLOWED),
    # Another tenant (no quality:), another environment, a direct invoke, another namespace, other writes: refused.
    (_request("lambda:InvokeFunctionUrl", GLOBEX, **{"lambda:FunctionUrlAuthType": "AWS_IAM"}), IMPLICIT_DENY),
    (_request("ssm:GetParameter", _arn("ssm", "parameter/akb/prod/acme/quality/baseline")), IMPLICIT_DENY),
    (_request("ssm:PutParameter", _arn("ssm", "parameter/akb/dev/acme/endpoint/url")), IMPLICIT_DENY),
    (_request("lambda:InvokeFunction", ACME, **{"lambda:InvokedViaFunctionUrl": "false"}), IMPLICIT_DENY),
    (_request("lambda:InvokeFunctionUrl", ACME, **{"lambda:FunctionUrlAuthType": "NONE"}), IMPLICIT_DENY),
    (_request("cloudwatch:PutMetricData", "*", **{"cloudwatch:namespace": NAMESPACE}), IMPLICIT_DENY),
    (_request("execute-api:Invoke", _arn("execute-api", "a1b2c3d4e5/prod/POST/v1/query")), IMPLICIT_DENY),
    (_request("bedrock:Retrieve", _arn("bedrock", "knowledge-base/KBDOCS0001")), IMPLICIT_DENY),
]


def test_the_pipeline_gate_may_ask_its_tenants_and_promote_their_baselines_and_nothing_else():
    assert evaluate([request for request, _ in PIPELINE_CASES], [POLICY]) == [
        decision for _, decision in PIPELINE_CASES
    ]


def test_the_scheduled_gate_reads_its_baseline_but_never_promotes_one():
    requests = [_request("ssm:GetParameter", BASELINE), _request("ssm:PutParameter", BASELINE)]
    assert evaluate(requests, [SCHEDULED]) == [ALLOWED, IMPLICIT_DENY]


def test_an_api_front_door_tenant_adds_the_execute_api_statement_only_then():
    with_api = gate_role_policy(
        SCOPE, [GatedTenant("acme", "akb-quality-gate", False), GatedTenant("initech", "akb-quality-gate", True)]
    )
    invoke = _request("execute-api:Invoke", _arn("execute-api", "a1b2c3d4e5/prod/POST/v1/query"))
    assert evaluate([invoke], [with_api]) == [ALLOWED]
    assert "AskTheGatedApiFrontDoors" not in json.dumps(POLICY)


def test_the_trust_lets_the_principal_assume_the_role_only_as_a_canary_session():
    trust = gate_role_trust("arn:aws:iam::444455556666:root", ["canary@acme.example", "akb-quality-gate"])
    pipeline = "arn:aws:sts::444455556666:assumed-role/codebuild-gate/AWSCodeBuild-1"

    def assume(session: str) -> Request:
        return Request(pipeline, "sts:AssumeRole", ROLE, ACCOUNT, {"sts:RoleSessionName": session})

    # across accounts the pipeline's own role must be allowed too (the pipeline step's sts:AssumeRole statement)
    its_own = document([{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": ROLE}])
    decisions = evaluate([assume("canary@acme.example"), assume("mallory@acme.example")], [its_own], trust)
    assert decisions == [ALLOWED, IMPLICIT_DENY]


def test_every_statement_has_a_sid_and_every_wildcard_a_reason():
    with_api = gate_role_policy(SCOPE, [GatedTenant("acme", "akb-quality-gate", True)])
    for statement in with_api["Statement"]:
        assert statement["Sid"].isalnum()
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        if any(resource.endswith("*") for resource in resources):
            assert statement["Sid"] in WILDCARD_REASONS, statement["Sid"]


def test_no_tenant_is_a_mistake_not_an_empty_policy():
    with pytest.raises(ValueError, match="at least one tenant"):
        gate_role_policy(SCOPE, [])


def test_the_module_prints_policy_and_trust_for_the_gated_tenants_of_an_environment(capsys):
    main(["--env", "prod", "--pipeline-account", "444455556666"])
    printed = json.loads(capsys.readouterr().out)
    assert "function:akb-prod-acme-endpoint" in json.dumps(printed["policy"])
    assert printed["trust"]["Statement"][0]["Principal"] == {"AWS": "arn:aws:iam::444455556666:root"}
