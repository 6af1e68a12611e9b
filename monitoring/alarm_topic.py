"""The environment's alarm topic: encrypted, TLS-only, and publishable by this account's CloudWatch alarms.

The statements that let CloudWatch publish and use the key (and why SNS's default policy is not
enough) are in policies/alarm_topic_access.py. `tests/monitoring/test_alarm_delivery.py` walks
every synthesized alarm to this topic and its key.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from policies.alarm_topic_access import alarm_key_statement, alarm_publish_statement, alarm_source_conditions


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
        stack = Stack.of(self)
        conditions = alarm_source_conditions(stack.partition, stack.region, stack.account, alarm_name_prefix)
        self.key = kms.Key(
            self,
            "Key",
            description="Encrypts the agentic retrieval alarm topic",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        self.key.add_to_resource_policy(iam.PolicyStatement.from_json(alarm_key_statement(conditions)))
        self.topic = sns.Topic(self, "Topic", master_key=self.key, enforce_ssl=True)
        self.topic.add_to_resource_policy(
            iam.PolicyStatement.from_json(alarm_publish_statement(self.topic.topic_arn, conditions))
        )
        for email in emails:
            self.topic.add_subscription(subscriptions.EmailSubscription(email))
