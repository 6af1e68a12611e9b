"""The cache's statements: the tenant's own items of its table, its knowledge bases' ingestion jobs, the ACL check."""

from __future__ import annotations

from policies.cache_access import WILDCARD_REASONS, CacheAccess, cache_statements

TABLE = "arn:aws:dynamodb:us-west-2:111122223333:table/akb-dev-acme-cache"
KB_ARNS = ("arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KBDOCS0001",)


def _by_sid(statements):
    return {statement["Sid"]: statement for statement in statements}


def test_the_table_statement_reaches_only_the_tenants_partition():
    table = _by_sid(cache_statements(CacheAccess(TABLE, "acme"), KB_ARNS))["UseOnlyThisTenantsItemsOfItsCacheTable"]
    assert table["Resource"] == TABLE
    assert table["Condition"] == {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": ["acme"]}}
    assert sorted(table["Action"]) == ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"]
    assert not {"dynamodb:Scan", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"} & set(table["Action"])


def test_ingestion_jobs_are_read_on_the_tenants_knowledge_bases_only():
    versions = _by_sid(cache_statements(CacheAccess(TABLE, "acme"), KB_ARNS))[
        "ReadIngestionJobsOfTheTenantsKnowledgeBases"
    ]
    assert versions["Resource"] == KB_ARNS[0]
    assert sorted(versions["Action"]) == ["bedrock:ListDataSources", "bedrock:ListIngestionJobs"]


def test_the_acl_check_is_granted_only_when_hits_recheck_and_its_star_has_a_reason():
    with_acl = _by_sid(cache_statements(CacheAccess(TABLE, "acme", acl_recheck=True), KB_ARNS))
    without = _by_sid(cache_statements(CacheAccess(TABLE, "acme", acl_recheck=False), KB_ARNS))
    assert with_acl["CheckIngestedDocumentAclHasNoResourceType"]["Resource"] == "*"
    assert "CheckIngestedDocumentAclHasNoResourceType" not in without
    assert "CheckIngestedDocumentAclHasNoResourceType" in WILDCARD_REASONS
