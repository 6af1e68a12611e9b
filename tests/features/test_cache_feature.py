"""The cache feature: the endpoint role gains the cache's statements for a tenant with `cache:` only."""

from __future__ import annotations

from contract.resource_refs import KnowledgeBaseRef
from features.endpoint_plan import endpoint_plan
from features.tenant_feature import FeatureRef, TenantScope
from policies.endpoint_role import EndpointRoleInputs, endpoint_role_policy
from schema import load_project
from tests.conftest import EXAMPLE_CONFIG

TABLE = "arn:aws:dynamodb:us-west-2:111122223333:table/akb-dev-acme-cache"
KB_ARNS = ("arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KBDOCS0001",)
LOG_GROUP = "arn:aws:logs:us-west-2:111122223333:log-group:/aws/lambda/akb-dev-acme-endpoint"


def test_the_endpoint_role_gains_cache_statements_only_for_a_tenant_with_a_cache():
    project = load_project(EXAMPLE_CONFIG, "dev")
    for tenant, expected in (("acme", True), ("globex", False)):
        plan = endpoint_plan(
            TenantScope(project, tenant),
            knowledge_bases=[KnowledgeBaseRef("docs", "Docs.", "KBDOCS0001", KB_ARNS[0])],
            log_group_arn=LOG_GROUP,
            refs={"cache": FeatureRef(id="akb-dev-acme-cache", arn=TABLE)},
        )
        sids = {statement["Sid"] for statement in endpoint_role_policy(plan.role)["Statement"]}
        assert ("UseOnlyThisTenantsItemsOfItsCacheTable" in sids) is expected
    plain = endpoint_role_policy(EndpointRoleInputs(knowledge_base_arns=KB_ARNS, log_group_arn=LOG_GROUP))
    assert not [s for s in plain["Statement"] if "dynamodb" in str(s["Action"])]
