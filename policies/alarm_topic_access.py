"""Who may publish to the environment's alarm topic and use its key: this account's alarms only.

A topic policy (`AWS::SNS::TopicPolicy`) replaces SNS's default policy. With only the TLS-only Deny
in it, no statement allows CloudWatch to publish and every alarm action fails with "is not
authorized to perform: SNS:Publish ... because no resource-based policy allows" (aws-solutions/
automated-security-response-on-aws issue 43). So the topic policy carries an explicit Allow for the
CloudWatch service principal, conditioned on this account and on this environment's alarm ARNs
(confused-deputy protection), and the topic's key allows the same principal, on the same
conditions, to encrypt (https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger,
https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-use-cases.html).
Pure builders (no CDK import): monitoring/alarm_topic.py attaches them.
"""

from __future__ import annotations

from policies.document import Statement

CLOUDWATCH_SERVICE = "cloudwatch.amazonaws.com"
# What the key must let CloudWatch do for an encrypted topic (repost.aws cloudwatch-configure-alarm-sns).
KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey*")


def alarm_source_conditions(
    partition: str, region: str, account: str, alarm_name_prefix: str
) -> dict[str, dict[str, str]]:
    """`aws:SourceAccount` = this account and `aws:SourceArn` like this environment's alarm ARNs.

    Every alarm the project creates is named `<alarm_name_prefix>-...` (monitoring/alarms.py), so
    the pattern admits exactly them, in this account and region, and no one else's alarms.
    """
    alarms = f"arn:{partition}:cloudwatch:{region}:{account}:alarm:{alarm_name_prefix}-*"
    return {"StringEquals": {"aws:SourceAccount": account}, "ArnLike": {"aws:SourceArn": alarms}}


def alarm_key_statement(conditions: dict[str, dict[str, str]]) -> Statement:
    """The key-policy statement: CloudWatch may encrypt for the topic, for these alarms only.

    In a key policy `Resource: "*"` is this key and nothing else (KMS key policies, Resource element).
    """
    return {
        "Sid": "AllowThisEnvironmentsAlarmsToUseTheKey",
        "Effect": "Allow",
        "Principal": {"Service": CLOUDWATCH_SERVICE},
        "Action": list(KEY_ACTIONS),
        "Resource": "*",
        "Condition": conditions,
    }


def alarm_publish_statement(topic_arn: str, conditions: dict[str, dict[str, str]]) -> Statement:
    """The topic-policy statement: CloudWatch may publish to `topic_arn`, for these alarms only."""
    return {
        "Sid": "AllowThisEnvironmentsAlarmsToPublish",
        "Effect": "Allow",
        "Principal": {"Service": CLOUDWATCH_SERVICE},
        "Action": "sns:Publish",
        "Resource": topic_arn,
        "Condition": conditions,
    }
