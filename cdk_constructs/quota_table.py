"""The environment's fair-share table: DynamoDB, on demand, encrypted, one item per tenant plus the account's.

Created in `<env>-platform` when the environment's `quota.fair_share` is on (docs/quota.md). Items
(lambdas/endpoint/quota/dynamodb_buckets.py): partition key `pk` = `tenant#<name>` (a tenant's guarantee
and borrowing buckets) or `account` (the shared bucket); each endpoint role updates only its own item and
the shared one (policies/quota_access.py). No TTL: the items are few and permanent.
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from cdk_constructs.nag_checks import acknowledge
from contract.resource_names import QUOTA_PARTITION_KEY


class QuotaTable(Construct):
    """Props:
    - table_name: physical name (resource_names.quota_table_name): every tenant stack derives it, so no
      tenant stack imports a value exported by the platform stack (an export would pin this table).

    On demand (its traffic follows the agentic requests, unplanned); the AWS managed key `aws/dynamodb`;
    destroyed with the stack whatever the environment's removal policy: the buckets refill within
    `quota.burst_seconds`, so there is nothing to keep, and a retained table would block a redeploy.
    """

    def __init__(self, scope: Construct, construct_id: str, *, table_name: str):
        super().__init__(scope, construct_id)
        self.physical_name = table_name
        self.table = dynamodb.Table(
            self,
            "Table",
            table_name=table_name,
            partition_key=dynamodb.Attribute(name=QUOTA_PARTITION_KEY, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=RemovalPolicy.DESTROY,
        )
        acknowledge(
            self.table,
            "DDB3",
            "the quota table holds only token buckets that refill within seconds; point-in-time recovery would "
            "restore nothing worth having",
        )
