"""AWS errors become report lines naming the permission; AWS text never leaks foreign ARNs or accounts."""

from __future__ import annotations

import socket

import boto3
import pytest
from botocore.config import Config

from client.doctor.findings import CallFailed, CredentialsMissing, Level, aws_call, from_failure, redact
from tests.client.doctor.scenario import ACCOUNT


def _failure(stubs, code: str, status: int = 400, message: str = "") -> CallFailed:
    stubs.error("lambda", "get_account_settings", code, status=status, message=message)
    with pytest.raises(CallFailed) as caught:
        aws_call("lambda:GetAccountSettings", stubs("lambda").get_account_settings)
    return caught.value


def test_access_denied_fails_naming_the_iam_action_and_not_the_callers_arn(stubs):
    failure = _failure(
        stubs,
        "AccessDeniedException",
        403,
        "User: arn:aws:iam::999999999999:user/x is not authorized to perform lambda:GetAccountSettings",
    )
    finding = from_failure("lambda-concurrency", failure, "us-west-2")
    assert finding.level is Level.FAIL
    assert "the caller needs lambda:GetAccountSettings" in finding.message
    assert "999999999999" not in finding.line() and "arn:" not in finding.line()


def test_throttling_fails_as_not_checked(stubs):
    finding = from_failure("lambda-concurrency", _failure(stubs, "TooManyRequestsException", 429), "us-west-2")
    assert finding.level is Level.FAIL and "throttled" in finding.message and "again later" in finding.message


def test_other_errors_keep_their_code_and_a_redacted_message(stubs):
    failure = _failure(stubs, "ServiceException", 500, "internal error for arn:aws:lambda:us-west-2:999999999999:x")
    finding = from_failure("lambda-concurrency", failure, "us-west-2")
    assert (
        "ServiceException" in finding.message and "<arn>" in finding.message and "999999999999" not in finding.message
    )


def test_rejected_credentials_stop_the_run(stubs):
    stubs.error("sts", "get_caller_identity", "ExpiredToken", status=403)
    with pytest.raises(CredentialsMissing, match="ExpiredToken"):
        aws_call("sts:GetCallerIdentity", stubs("sts").get_caller_identity)


def test_an_unreachable_endpoint_fails_naming_the_service_and_region():
    with socket.socket() as probe:  # a port nothing listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = boto3.Session(aws_access_key_id="t", aws_secret_access_key="t", region_name="us-west-2").client(
        "lambda",
        endpoint_url=f"http://127.0.0.1:{port}",
        config=Config(retries={"mode": "standard", "total_max_attempts": 1}, connect_timeout=2),
    )
    with pytest.raises(CallFailed) as caught:
        aws_call("lambda:GetAccountSettings", client.get_account_settings)
    finding = from_failure("lambda-concurrency", caught.value, "us-west-2")
    assert finding.level is Level.FAIL and "could not reach the lambda endpoint in us-west-2" in finding.message


def test_missing_credentials_raise_before_anything_is_sent(no_aws_credentials):
    client = boto3.Session(region_name="us-west-2").client("sts")
    with pytest.raises(CredentialsMissing):
        aws_call("sts:GetCallerIdentity", client.get_caller_identity)


def test_redact_keeps_only_what_the_config_names():
    text = f"role arn:aws:iam::{ACCOUNT}:role/a in {ACCOUNT}, caller 999999999999 (arn:aws-cn:sts::1:assumed-role/x)"
    assert redact(text, (ACCOUNT,)) == f"role <arn> in {ACCOUNT}, caller <account> (<arn>)"
