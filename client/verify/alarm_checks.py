"""Every alarm action of the environment can publish: the topic's policy lets CloudWatch publish and, for an
encrypted topic, the key's policy lets CloudWatch use the key (policies/alarm_topic_access.py says why both).

The deployed policies are read back (sns:GetTopicAttributes, kms:GetKeyPolicy) and searched for an Allow
of the CloudWatch service principal with the needed actions; an AWS-managed key (alias/aws/sns) cannot be
used by CloudWatch at all. Lines name topics by name, never by ARN.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from client.doctor.findings import Finding, aws_call, fail, ok
from client.verify.verification import Verification
from contract.resource_names import resource_prefix
from policies.alarm_topic_access import CLOUDWATCH_SERVICE, KEY_ACTIONS

ALARM_ACTIONS = "alarm-actions"
PUBLISH_ACTIONS = ("sns:publish", "sns:*", "*")
AWS_MANAGED_SNS_KEY = "alias/aws/sns"


def check_alarm_actions(v: Verification) -> Iterator[Finding]:
    prefix = resource_prefix(v.env_name)
    topics = sorted({arn for alarm in _alarms(v, prefix) for arn in _actions(alarm) if ":sns:" in arn})
    if not topics:
        yield fail(ALARM_ACTIONS, f"no alarm named {prefix}-* notifies an SNS topic: deploy {v.env_name}-platform")
        return
    for topic in topics:
        yield _topic_finding(v, topic)


def _alarms(v: Verification, prefix: str) -> list[dict[str, Any]]:
    cloudwatch = v.checkup.client("cloudwatch")
    alarms: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = aws_call(
            "cloudwatch:DescribeAlarms",
            cloudwatch.describe_alarms,
            AlarmNamePrefix=prefix,
            AlarmTypes=["MetricAlarm", "CompositeAlarm"],
            **kwargs,
        )
        alarms.extend(page.get("MetricAlarms", []) + page.get("CompositeAlarms", []))
        if not page.get("NextToken"):
            return alarms
        kwargs = {"NextToken": page["NextToken"]}


def _actions(alarm: dict[str, Any]) -> list[str]:
    return [*alarm.get("AlarmActions", []), *alarm.get("OKActions", [])]


def _topic_finding(v: Verification, topic: str) -> Finding:
    name = topic.rsplit(":", 1)[-1]
    attributes = aws_call("sns:GetTopicAttributes", v.checkup.client("sns").get_topic_attributes, TopicArn=topic)
    attributes = attributes.get("Attributes", {})
    if not allows(attributes.get("Policy"), PUBLISH_ACTIONS):
        return fail(
            ALARM_ACTIONS,
            f"topic {name}: its policy does not let {CLOUDWATCH_SERVICE} publish; every alarm "
            "action fails: redeploy the platform stack (policies/alarm_topic_access.py)",
        )
    key = attributes.get("KmsMasterKeyId")
    if not key:
        return ok(ALARM_ACTIONS, f"topic {name}: CloudWatch may publish (unencrypted topic)")
    if key == AWS_MANAGED_SNS_KEY:
        return fail(
            ALARM_ACTIONS,
            f"topic {name} is encrypted with {AWS_MANAGED_SNS_KEY}, whose policy CloudWatch "
            "cannot use: use the platform stack's customer managed key",
        )
    policy = aws_call("kms:GetKeyPolicy", v.checkup.client("kms").get_key_policy, KeyId=key, PolicyName="default")
    needed = all(allows(policy.get("Policy"), (action.lower(), "kms:*", "*")) for action in KEY_ACTIONS)
    if not needed:
        return fail(
            ALARM_ACTIONS,
            f"topic {name}: its key's policy does not let {CLOUDWATCH_SERVICE} use "
            f"{' and '.join(KEY_ACTIONS)}; alarm notifications are dropped",
        )
    return ok(ALARM_ACTIONS, f"topic {name}: CloudWatch may publish and use its key")


def allows(policy: str | None, actions: tuple[str, ...]) -> bool:
    """Whether an Allow statement names the CloudWatch service principal and one of `actions` (lower case)."""
    try:
        statements = json.loads(policy or "{}").get("Statement", [])
    except (ValueError, AttributeError):
        return False
    for statement in statements if isinstance(statements, list) else [statements]:
        principal = (statement.get("Principal") or {}) if isinstance(statement.get("Principal"), dict) else {}
        services = principal.get("Service", [])
        services = [services] if isinstance(services, str) else services
        named = statement.get("Action", [])
        named = [named] if isinstance(named, str) else named
        allowed = statement.get("Effect") == "Allow" and CLOUDWATCH_SERVICE in services
        if allowed and any(action.lower() in actions for action in named):
            return True
    return False
