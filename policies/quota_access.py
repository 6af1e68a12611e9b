"""What the endpoint role needs for fair sharing (docs/quota.md), and nothing more.

The environment's quota table holds one item per tenant and one the tenants share (the account's
bucket). A decision is one TransactWriteItems with an Update on each; IAM authorizes each action of a
transaction as its own call, so each Update needs dynamodb:UpdateItem on the table (DynamoDB developer
guide, transaction-apis-iam), and the role is limited per item with dynamodb:LeadingKeys
(`ForAllValues:StringEquals`, specifying-conditions). Both statements also require
dynamodb:EnclosingOperation TransactWriteItems: the items are only ever written together.

Two statements, not one with both keys: the shared item is everyone's, so it is its own statement, and
an edit that widens the tenant's own statement cannot silently widen what it may do to the shared item.
What the shared statement cannot prevent, and why that is acceptable: a role that misused it could
push the shared bucket's time forward and stop every tenant's borrowing; it could not take another
tenant's guarantee (a guaranteed request never waits on the shared bucket: lambdas/endpoint/quota/).
No GetItem, PutItem, DeleteItem, Query or Scan: a refused condition returns the item's values itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from contract.resource_names import QUOTA_ACCOUNT_ITEM, quota_tenant_item
from policies.document import Statement, allow

ACTIONS = ("dynamodb:UpdateItem",)
IN_A_TRANSACTION = {"ForAnyValue:StringEquals": {"dynamodb:EnclosingOperation": ["TransactWriteItems"]}}


@dataclass(frozen=True)
class QuotaAccess:
    """The environment's quota table and the tenant whose item the role may update. Values may be CDK tokens."""

    table_arn: str
    tenant: str


def quota_statements(access: QuotaAccess) -> list[Statement]:
    def only(item: str) -> dict:
        return {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [item]}, **IN_A_TRANSACTION}

    return [
        allow(
            "TakeTokensFromThisTenantsQuotaBuckets", ACTIONS, access.table_arn, only(quota_tenant_item(access.tenant))
        ),
        allow("TakeTokensFromTheAccountsSharedQuotaBucket", ACTIONS, access.table_arn, only(QUOTA_ACCOUNT_ITEM)),
    ]
