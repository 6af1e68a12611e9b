"""What the endpoint role needs for the result cache (docs/cache.md), and nothing more.

- Its own items of its own table: dynamodb:GetItem, PutItem, Query, UpdateItem on the tenant's
  cache table, and only on items whose partition key is the tenant's name (condition
  `ForAllValues:StringEquals` on `dynamodb:LeadingKeys`; DynamoDB developer guide,
  specifying-conditions). No Scan, no DeleteItem, no BatchWriteItem: flushing is an operator's
  job (`akb cache flush`, operator credentials).
- The content versions of its own knowledge bases: bedrock:ListDataSources and
  bedrock:ListIngestionJobs, both with resource type knowledge-base (Service Authorization
  Reference, Amazon Bedrock).
- The access re-check on a hit: bedrock:CheckIngestedDocumentAcl, which has no resource type
  (Service Authorization Reference), so `*`; only when some knowledge base is re-checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from policies.document import Statement, allow

_SAR = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonbedrock.html"
TABLE_ACTIONS = ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem")
VERSION_ACTIONS = ("bedrock:ListDataSources", "bedrock:ListIngestionJobs")
ACL_ACTION = "bedrock:CheckIngestedDocumentAcl"
WILDCARD_REASONS: dict[str, str] = {
    "CheckIngestedDocumentAclHasNoResourceType": (
        f"bedrock:CheckIngestedDocumentAcl lists no resource type in the Service Authorization Reference ({_SAR}); "
        "the endpoint calls it only for documents of its own knowledge bases, with the caller's userContext"
    ),
}


@dataclass(frozen=True)
class CacheAccess:
    """The tenant's cache table and whether hits re-check document ACLs. Values may be CDK tokens."""

    table_arn: str
    tenant: str  # the partition key value the role is limited to
    acl_recheck: bool = True


def cache_statements(cache: CacheAccess, knowledge_base_arns: Sequence[str]) -> list[Statement]:
    statements = [
        allow(
            "UseOnlyThisTenantsItemsOfItsCacheTable",
            TABLE_ACTIONS,
            cache.table_arn,
            condition={"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [cache.tenant]}},
        ),
        allow("ReadIngestionJobsOfTheTenantsKnowledgeBases", VERSION_ACTIONS, knowledge_base_arns),
    ]
    if cache.acl_recheck:
        statements.append(allow("CheckIngestedDocumentAclHasNoResourceType", [ACL_ACTION], "*"))
    return statements
