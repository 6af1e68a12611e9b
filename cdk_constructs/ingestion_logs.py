"""Vended ingestion logs: each knowledge base delivers its APPLICATION_LOGS to the tenant's log group.

Per knowledge base an `AWS::Logs::DeliverySource` (the knowledge base's ARN, LogType
APPLICATION_LOGS) and an `AWS::Logs::Delivery`; per tenant one `AWS::Logs::DeliveryDestination` (the
log group, with the environment's retention). Job-level `StartIngestionJob.StatusChanged` and
document-level `StartIngestionJob.ResourceStatusChanged` events land there; Bedrock sends no
EventBridge event for ingestion, so these logs are what alarms and `akb ingest --wait` read.
https://docs.aws.amazon.com/bedrock/latest/userguide/knowledge-bases-logging.html

Deploying it needs bedrock:AllowVendedLogDeliveryForResource on the knowledge bases (besides the
logs:*Delivery* actions): docs/pipeline.md lists it in the deployment role's policy.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import aws_logs as logs
from constructs import Construct

from cdk_constructs.log_group import log_group
from contract.ingestion_events import LOG_TYPE
from contract.resource_names import bounded_name
from schema import Environment

# AWS::Logs::DeliverySource / DeliveryDestination Name: 1-60 characters of [\w-] (cfn-lint schema).
MAX_DELIVERY_NAME = 60


class IngestionLogs(Construct):
    """Props:
    - environment: the environment (log retention and KMS key of the log group).
    - log_group_name: `resource_names.ingestion_log_group_name(env, tenant)`.
    - name_prefix: prefix of delivery names, e.g. `akb-dev-acme`.
    - knowledge_bases: alias -> knowledge-base ARN (tokens are fine).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        environment: Environment,
        log_group_name: str,
        name_prefix: str,
        knowledge_bases: Mapping[str, str],
    ):
        super().__init__(scope, construct_id)
        self.log_group = log_group(self, "LogGroup", environment=environment, name=log_group_name)
        self.destination = logs.CfnDeliveryDestination(
            self,
            "Destination",
            name=bounded_name(f"{name_prefix}-ingestion", MAX_DELIVERY_NAME),
            destination_resource_arn=self.log_group.log_group_arn,
        )
        self.sources: dict[str, logs.CfnDeliverySource] = {}
        self.deliveries: dict[str, logs.CfnDelivery] = {}
        for alias, arn in knowledge_bases.items():
            self._build_delivery(alias, arn, name_prefix)

    def _build_delivery(self, alias: str, knowledge_base_arn: str, name_prefix: str) -> None:
        source = logs.CfnDeliverySource(
            self,
            f"Source-{alias}",
            name=bounded_name(f"{name_prefix}-{alias}-ingestion", MAX_DELIVERY_NAME),
            log_type=LOG_TYPE,
            resource_arn=knowledge_base_arn,
        )
        delivery = logs.CfnDelivery(
            self,
            f"Delivery-{alias}",
            delivery_source_name=source.name,
            delivery_destination_arn=self.destination.attr_arn,
        )
        delivery.add_resource_dependency(source)  # the source is referred to by name, not by a token
        self.sources[alias] = source
        self.deliveries[alias] = delivery
