"""`akb doctor`'s log-key line: the key policy of log_kms_key_arn must let CloudWatch Logs use it."""

from __future__ import annotations

import json

from client.doctor import log_key_checks as checks
from client.doctor.findings import CallFailed, Level
from client.doctor.permissions import READ_ONLY_ACTIONS
from tests.client.doctor.scenario import checkup, project_with

KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
ACME_LOGS = "arn:aws:logs:us-west-2:123456789012:log-group:/aws/lambda/akb-dev-acme-endpoint"
ADMIN = {
    "Sid": "Admins",
    "Effect": "Allow",
    "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
    "Action": "kms:*",
    "Resource": "*",
}


def _logs_statement(log_group: str = ACME_LOGS, **overrides) -> dict:
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "logs.us-west-2.amazonaws.com"},
        "Action": ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
        "Resource": "*",
        "Condition": {"ArnEquals": {"kms:EncryptionContext:aws:logs:arn": log_group}},
    }
    statement.update(overrides)
    return statement


def _key_policy(stubs, *statements: dict) -> None:
    policy = {"Version": "2012-10-17", "Statement": [ADMIN, *statements]}
    stubs.respond(
        "kms",
        "get_key_policy",
        {"Policy": json.dumps(policy), "PolicyName": "default"},
        {"KeyId": KEY, "PolicyName": "default"},
    )


def _findings(stubs, tenants=("acme",)):
    project = project_with({"log_kms_key_arn": KEY})
    return list(checks.check_log_key(checkup(stubs, project, tenants=tenants)))


def test_the_documented_statement_passes(stubs):
    _key_policy(stubs, _logs_statement())
    [finding] = _findings(stubs)
    assert finding.level is Level.OK and "acme" in finding.message


def test_a_key_policy_without_the_logs_principal_fails_with_the_fix(stubs):
    _key_policy(stubs)
    [finding] = _findings(stubs)
    assert finding.level is Level.FAIL
    assert "logs.us-west-2.amazonaws.com" in finding.message and "akb policy --env dev --tenant acme" in finding.message


def test_a_statement_pinned_to_another_log_group_fails_for_this_tenant(stubs):
    _key_policy(stubs, _logs_statement(ACME_LOGS))
    acme, globex = _findings(stubs, tenants=("acme", "globex"))
    assert acme.level is Level.OK and globex.level is Level.FAIL and "globex" in globex.message


def test_a_wildcard_log_group_condition_covers_every_tenant(stubs):
    _key_policy(stubs, _logs_statement("arn:aws:logs:us-west-2:123456789012:log-group:/aws/lambda/akb-dev-*"))
    assert [f.level for f in _findings(stubs, tenants=("acme", "globex"))] == [Level.OK, Level.OK]


def test_missing_decrypt_or_an_unevaluable_condition_is_not_proof(stubs):
    _key_policy(stubs, _logs_statement(Action="kms:GenerateDataKey*"))
    [finding] = _findings(stubs)
    assert finding.level is Level.FAIL
    _key_policy(stubs, _logs_statement(Condition={"StringEquals": {"aws:SourceAccount": "123456789012"}}))
    [finding] = _findings(stubs)
    assert finding.level is Level.FAIL


def test_no_log_key_needs_no_call(stubs):
    [finding] = checks.check_log_key(checkup(stubs))
    assert finding.level is Level.OK and "no log_kms_key_arn" in finding.message


def test_access_denied_on_the_key_policy_reaches_the_runner_with_the_action(stubs):
    stubs.error("kms", "get_key_policy", "AccessDeniedException", status=400)
    try:
        _findings(stubs)
    except CallFailed as failure:
        assert failure.action == "kms:GetKeyPolicy" and "kms:GetKeyPolicy" in READ_ONLY_ACTIONS
    else:
        raise AssertionError("expected CallFailed")
