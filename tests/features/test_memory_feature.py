"""The memory feature: the endpoint role holds the memory's statements for a tenant with `memory:` only."""

from __future__ import annotations

from contract.resource_refs import KnowledgeBaseRef
from features.endpoint_plan import endpoint_plan
from features.tenant_feature import FeatureRef, TenantScope
from policies.endpoint_role import endpoint_role_policy
from schema import load_project

ARN = "arn:aws:bedrock-agentcore:us-west-2:123456789012:memory/akb_dev_acme-abcdefghij"


def test_the_endpoint_role_holds_memory_statements_only_for_a_tenant_with_memory():
    project = load_project("config", "dev")

    def role(tenant: str) -> dict:
        refs = {"memory": FeatureRef(id="akb_dev_acme-abcdefghij", arn=ARN)}
        kbs = [KnowledgeBaseRef("docs", "Docs.", "KBDOCS0001", "kb")]
        plan = endpoint_plan(TenantScope(project, tenant), knowledge_bases=kbs, log_group_arn="lg", refs=refs)
        return endpoint_role_policy(plan.role)

    acme, globex = role("acme"), role("globex")
    agentcore = [s for s in acme["Statement"] if "bedrock-agentcore" in str(s["Action"])]
    assert {s["Resource"] for s in agentcore} == {ARN} and len(agentcore) == 3
    assert "bedrock-agentcore" not in str(globex)
