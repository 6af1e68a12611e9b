"""Every alarm action can publish, over botocore's Stubber: the topic policy and the key policy as the
platform stack writes them (policies/alarm_topic_access.py) pass; without either statement the line fails."""

from __future__ import annotations

import json

from client.doctor.findings import Level
from client.verify import alarm_checks
from policies.alarm_topic_access import alarm_key_statement, alarm_publish_statement, alarm_source_conditions
from tests.client.verify.conftest import verification

TOPIC = "arn:aws:sns:us-west-2:123456789012:akb-dev-alarms"
KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
CONDITIONS = alarm_source_conditions("aws", "us-west-2", "123456789012", "akb-dev")
TLS_ONLY = {
    "Sid": "TlsOnly",
    "Effect": "Deny",
    "Principal": "*",
    "Action": "sns:Publish",
    "Resource": TOPIC,
    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
}


def _alarms(stubs, actions: list[str]) -> None:
    alarm = {"AlarmName": "akb-dev-acme-page", "AlarmActions": actions, "OKActions": actions}
    stubs.respond(
        "cloudwatch",
        "describe_alarms",
        {"MetricAlarms": [], "CompositeAlarms": [alarm]},
        {"AlarmNamePrefix": "akb-dev", "AlarmTypes": ["MetricAlarm", "CompositeAlarm"]},
    )


def _topic(stubs, statements: list[dict], key: str | None = KEY) -> None:
    attributes = {"Policy": json.dumps({"Version": "2012-10-17", "Statement": statements})}
    if key:
        attributes["KmsMasterKeyId"] = key
    stubs.respond("sns", "get_topic_attributes", {"Attributes": attributes}, {"TopicArn": TOPIC})


def _key(stubs, statements: list[dict]) -> None:
    policy = json.dumps({"Version": "2012-10-17", "Statement": statements})
    stubs.respond("kms", "get_key_policy", {"Policy": policy}, {"KeyId": KEY, "PolicyName": "default"})


def _finding(stubs):
    [finding] = alarm_checks.check_alarm_actions(verification(stubs))
    stubs.assert_all_used()
    return finding


def test_the_platform_stacks_topic_and_key_policies_let_cloudwatch_publish(stubs):
    _alarms(stubs, [TOPIC])
    _topic(stubs, [TLS_ONLY, alarm_publish_statement(TOPIC, CONDITIONS)])
    _key(stubs, [alarm_key_statement(CONDITIONS)])
    finding = _finding(stubs)
    assert finding.level is Level.OK and "akb-dev-alarms" in finding.message and "arn:" not in finding.message


def test_a_topic_policy_with_only_the_tls_deny_fails(stubs):
    _alarms(stubs, [TOPIC])
    _topic(stubs, [TLS_ONLY])
    assert "does not let cloudwatch.amazonaws.com publish" in _finding(stubs).message


def test_a_key_policy_without_cloudwatch_fails(stubs):
    _alarms(stubs, [TOPIC])
    _topic(stubs, [alarm_publish_statement(TOPIC, CONDITIONS)])
    _key(
        stubs,
        [
            {
                "Sid": "Root",
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
                "Action": "kms:*",
                "Resource": "*",
            }
        ],
    )
    finding = _finding(stubs)
    assert finding.level is Level.FAIL and "key's policy" in finding.message


def test_the_aws_managed_sns_key_fails(stubs):
    _alarms(stubs, [TOPIC])
    _topic(stubs, [alarm_publish_statement(TOPIC, CONDITIONS)], key="alias/aws/sns")
    assert _finding(stubs).level is Level.FAIL


def test_no_alarm_that_notifies_a_topic_fails(stubs):
    _alarms(stubs, [])
    finding = _finding(stubs)
    assert finding.level is Level.FAIL and "deploy dev-platform" in finding.message
