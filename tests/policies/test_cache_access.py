"""The cache's statements: the tenant's own items of its table, its knowledge bases' ingestion jobs, the ACL check."""

from __future__ import annotations

from policies.cache_access import CacheAccess, cache_statements
from policies.endpoint_role import WILDCARD_REASONS, EndpointRoleInputs, endpoint_role_policy, inputs_for
from schema import load_project
from tests.conftest import EXAMPLE_CONFIG

TABLE = "arn:aws:dynamodb:us-west-2:111122223333:table/akb-dev-acme-cache"
KB_ARNS = ("arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KBDOCS0001",)
LOG_GROUP = "arn:aws:logs:us-west-2:111122223333:log-group:/aws/lambda/akb-dev-acme-endpoint"


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


def test_the_endpoint_role_gains_cache_statements_only_for_a_tenant_with_a_cache():
    project = load_project(EXAMPLE_CONFIG, "dev")
    for tenant, expected in (("acme", True), ("globex", False)):
        inputs = inputs_for(
            project.environment,
            project.tenants[tenant],
            knowledge_base_arns=KB_ARNS,
            log_group_arn=LOG_GROUP,
            guardrail_arn=None,
            cache_table_arn=TABLE,
            tenant_name=tenant,
        )
        sids = {statement["Sid"] for statement in endpoint_role_policy(inputs)["Statement"]}
        assert ("UseOnlyThisTenantsItemsOfItsCacheTable" in sids) is expected
    plain = endpoint_role_policy(EndpointRoleInputs(knowledge_base_arns=KB_ARNS, log_group_arn=LOG_GROUP))
    assert not [s for s in plain["Statement"] if "dynamodb" in str(s["Action"])]
