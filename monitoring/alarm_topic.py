"""The environment's alarm topic: encrypted, TLS-only, and publishable by this account's CloudWatch alarms.

A topic policy (`AWS::SNS::TopicPolicy`) replaces SNS's default policy. With only the TLS-only Deny
in it, no statement allows CloudWatch to publish and every alarm action fails with "is not
authorized to perform: SNS:Publish ... because no resource-based policy allows" (aws-solutions/
automated-security-response-on-aws issue 43). So the policy carries an explicit Allow for the
CloudWatch service principal, conditioned on this account and on this environment's alarm ARNs
(confused-deputy protection), and the topic's key allows the same principal, on the same
conditions, to encrypt (https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger,
https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-use-cases.html).
`tests/monitoring/test_alarm_delivery.py` walks every synthesized alarm to this topic and its key.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

CLOUDWATCH_SERVICE = "cloudwatch.amazonaws.com"
# What the key must let CloudWatch do for an encrypted topic (repost.aws cloudwatch-configure-alarm-sns).
KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey*")


def alarm_source_conditions(scope: Construct, alarm_name_prefix: str) -> dict[str, dict[str, str]]:
    """`aws:SourceAccount` = this account and `aws:SourceArn` like this environment's alarm ARNs.

    Every alarm the project creates is named `<alarm_name_prefix>-...` (monitoring/alarms.py), so
    the pattern admits exactly them, in this account and region, and no one else's alarms.
    """
    stack = Stack.of(scope)
    alarms = f"arn:{stack.partition}:cloudwatch:{stack.region}:{stack.account}:alarm:{alarm_name_prefix}-*"
    return {"StringEquals": {"aws:SourceAccount": stack.account}, "ArnLike": {"aws:SourceArn": alarms}}


class AlarmTopic(Construct):
    """An SNS topic this environment's CloudWatch alarms can publish to.

    Props:
    - emails: e-mail subscriptions (each must confirm once); default none.
    - alarm_name_prefix: the prefix of every alarm name that may publish, e.g. `akb-dev`.
    - removal_policy: applies to the key.

    Encrypted with a customer managed key because the AWS managed SNS key cannot allow CloudWatch
    (https://repost.aws/knowledge-center/cloudwatch-configure-alarm-sns).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        emails: list[str],
        alarm_name_prefix: str,
        removal_policy: RemovalPolicy,
    ):
        super().__init__(scope, construct_id)
        conditions = alarm_source_conditions(self, alarm_name_prefix)
        self.key = kms.Key(
            self,
            "Key",
            description="Encrypts the agentic retrieval alarm topic",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowThisEnvironmentsAlarmsToUseTheKey",
                principals=[iam.ServicePrincipal(CLOUDWATCH_SERVICE)],
                actions=list(KEY_ACTIONS),
                # In a key policy `*` is this key and nothing else (KMS key policies, Resource element).
                resources=["*"],
                conditions=conditions,
            )
        )
        self.topic = sns.Topic(self, "Topic", master_key=self.key, enforce_ssl=True)
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowThisEnvironmentsAlarmsToPublish",
                principals=[iam.ServicePrincipal(CLOUDWATCH_SERVICE)],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions=conditions,
            )
        )
        for email in emails:
            self.topic.add_subscription(subscriptions.EmailSubscription(email))
