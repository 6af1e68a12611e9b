"""The role `akb verify` runs as: every call verify makes is allowed, in its own environment only, and nothing
that changes the environment is — evaluated as IAM does (tests/iam_simulation.py)."""

from __future__ import annotations

import pytest

from policies.verify_role import VERIFY_WILDCARD_REASONS, VerifyScope, main, verify_role_policy
from tests.iam_simulation import ALLOWED, IMPLICIT_DENY, Request, evaluate

ACCOUNT, REGION = "111122223333", "us-west-2"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/akb-dev-verify"
POLICY = verify_role_policy(VerifyScope("aws", REGION, ACCOUNT, "dev"))


def _arn(service: str, resource: str) -> str:
    return f"arn:aws:{service}:{REGION}:{ACCOUNT}:{resource}"


def _request(action: str, resource: str, **context: str) -> Request:
    return Request(ROLE, action, resource, ACCOUNT, {"aws:RequestedRegion": REGION, **context})


ENDPOINT = _arn("lambda", "function:akb-dev-acme-endpoint")
CASES = [
    (_request("sts:GetCallerIdentity", "*"), ALLOWED),
    (_request("ssm:GetParameter", _arn("ssm", "parameter/akb/dev/acme/endpoint/url")), ALLOWED),
    (_request("cloudwatch:GetMetricData", "*"), ALLOWED),
    (_request("cloudwatch:DescribeAlarms", _arn("cloudwatch", "alarm:akb-dev-acme-page")), ALLOWED),
    (_request("sns:GetTopicAttributes", _arn("sns", "dev-platform-AlarmTopicD01E77F9-abcdef")), ALLOWED),
    (_request("logs:DescribeDeliveries", "*"), ALLOWED),
    (
        _request(
            "logs:FilterLogEvents",
            _arn("logs", "log-group:/aws/vendedlogs/bedrock/knowledge-base/APPLICATION_LOGS/akb-dev-acme"),
        ),
        ALLOWED,
    ),
    (_request("bedrock:ListIngestionJobs", _arn("bedrock", "knowledge-base/KBDOCS0001")), ALLOWED),
    (_request("lambda:InvokeFunctionUrl", ENDPOINT, **{"lambda:FunctionUrlAuthType": "AWS_IAM"}), ALLOWED),
    (_request("lambda:InvokeFunction", ENDPOINT, **{"lambda:InvokedViaFunctionUrl": "true"}), ALLOWED),
    (_request("execute-api:Invoke", _arn("execute-api", "a1b2c3d4e5/prod/POST/v1/query")), ALLOWED),
    (
        _request("bedrock-agentcore:InvokeGateway", _arn("bedrock-agentcore", "gateway/akb-dev-globex-abcdefghij")),
        ALLOWED,
    ),
    (_request("bedrock:InvokeAgent", _arn("bedrock", "agent-alias/AGENT12345/ALIAS12345")), ALLOWED),
    # Another environment, a direct invoke, any write: refused.
    (_request("ssm:GetParameter", _arn("ssm", "parameter/akb/prod/acme/endpoint/url")), IMPLICIT_DENY),
    (_request("lambda:InvokeFunction", ENDPOINT, **{"lambda:InvokedViaFunctionUrl": "false"}), IMPLICIT_DENY),
    (_request("ssm:PutParameter", _arn("ssm", "parameter/akb/dev/acme/endpoint/url")), IMPLICIT_DENY),
    (_request("lambda:UpdateFunctionCode", ENDPOINT), IMPLICIT_DENY),
    (_request("bedrock:StartIngestionJob", _arn("bedrock", "knowledge-base/KBDOCS0001")), IMPLICIT_DENY),
    (_request("logs:PutResourcePolicy", "*"), IMPLICIT_DENY),
    (_request("sns:Publish", _arn("sns", "dev-platform-AlarmTopicD01E77F9-abcdef")), IMPLICIT_DENY),
    (
        _request("execute-api:Invoke", "arn:aws:execute-api:eu-west-1:111122223333:a1b2c3d4e5/prod/POST/v1/query"),
        IMPLICIT_DENY,
    ),
]


@pytest.mark.slow  # IAM's evaluation runs in a node child process (tests/iam_simulation.py)
def test_verify_may_read_what_it_checks_and_ask_each_door_and_nothing_else():
    assert evaluate([request for request, _ in CASES], [POLICY]) == [decision for _, decision in CASES]


KEY = _arn("kms", "key/1234abcd-12ab-34cd-56ef-1234567890ab")
# A key's policy decides first (KMS): the default one delegates to the account's IAM policies.
DEFAULT_KEY_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "EnableIamPolicies",
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
            "Action": "kms:*",
            "Resource": "*",
        }
    ],
}


@pytest.mark.slow  # IAM's evaluation runs in a node child process (tests/iam_simulation.py)
def test_the_alarm_keys_policy_is_readable_where_the_key_policy_delegates_to_iam():
    read = _request("kms:GetKeyPolicy", KEY)
    assert evaluate([read], [POLICY], DEFAULT_KEY_POLICY) == [ALLOWED]
    assert evaluate([_request("kms:Decrypt", KEY)], [POLICY], DEFAULT_KEY_POLICY) == [IMPLICIT_DENY]


def test_every_statement_has_a_sid_and_every_wildcard_a_reason():
    for statement in POLICY["Statement"]:
        assert statement["Sid"].isalnum()
        if statement["Resource"] == "*":
            assert statement["Sid"] in VERIFY_WILDCARD_REASONS, statement["Sid"]


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_the_module_prints_the_policy_of_a_configured_environment(env, capsys):
    main(["--env", env])
    printed = capsys.readouterr().out
    assert f"parameter/akb/{env}/*" in printed and '"Sid": "AskTheAgents"' in printed
