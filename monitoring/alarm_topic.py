"""The environment's alarm topic: encrypted, TLS-only, e-mail subscriptions from config."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct


class AlarmTopic(Construct):
    """An SNS topic CloudWatch alarms can publish to.

    Encrypted with a customer managed key because the AWS managed SNS key does not let
    CloudWatch publish (https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger).
    """

    def __init__(self, scope: Construct, construct_id: str, *, emails: list[str], removal_policy: RemovalPolicy):
        super().__init__(scope, construct_id)
        self.key = kms.Key(
            self,
            "Key",
            description="Encrypts the agentic retrieval alarm topic",
            enable_key_rotation=True,
            removal_policy=removal_policy,
        )
        # CloudWatch alarms publish to the topic and so must use its key.
        self.key.grant(iam.ServicePrincipal("cloudwatch.amazonaws.com"), "kms:Decrypt", "kms:GenerateDataKey*")
        self.topic = sns.Topic(self, "Topic", master_key=self.key, enforce_ssl=True)
        for email in emails:
            self.topic.add_subscription(subscriptions.EmailSubscription(email))
