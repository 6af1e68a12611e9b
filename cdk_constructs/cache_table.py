"""The tenant's result-cache table: DynamoDB, on demand, TTL, encrypted, one partition per tenant.

Created by the tenant stack when the tenant's config has a `cache:` block (docs/cache.md). Items
(lambdas/endpoint/cache/dynamodb_store.py): partition key `pk` = tenant name, sort key `sk`;
`expiresAt` is the TTL attribute. The endpoint role reaches only items whose partition key is its
tenant (policies/cache_access.py: dynamodb:LeadingKeys).
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from cdk_constructs.nag_checks import acknowledge
from lambdas.endpoint.cache.dynamodb_store import TTL_ATTRIBUTE

PARTITION_KEY = "pk"
SORT_KEY = "sk"


class CacheTable(Construct):
    """Props:
    - table_name: physical name (resource_names.cache_table_name), so `akb cache` finds it without a lookup.

    Billing is on demand (a cache's traffic follows the endpoint's, unplanned); encryption at rest
    uses the AWS managed key `aws/dynamodb` (auditable in CloudTrail, no key policy to keep); the
    table is destroyed with the stack whatever the environment's removal policy: entries are
    derived data the endpoint rebuilds from the source, and a retained table would keep copies of
    permissioned answers and block a redeploy under the same name.
    """

    def __init__(self, scope: Construct, construct_id: str, *, table_name: str):
        super().__init__(scope, construct_id)
        self.physical_name = table_name  # a literal: the endpoint's environment stays small and readable
        self.table = dynamodb.Table(
            self,
            "Table",
            table_name=table_name,
            partition_key=dynamodb.Attribute(name=PARTITION_KEY, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=SORT_KEY, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            time_to_live_attribute=TTL_ATTRIBUTE,
            removal_policy=RemovalPolicy.DESTROY,
        )
        acknowledge(
            self.table,
            "DDB3",
            "a result cache holds only entries the endpoint recomputes from the knowledge bases on a miss; "
            "point-in-time recovery would restore answers whose permissions or content may have changed",
        )

    @property
    def table_name(self) -> str:
        return self.table.table_name

    @property
    def table_arn(self) -> str:
        return self.table.table_arn
