"""Every knowledge base of every tenant gets a resource policy that names only that tenant's roles."""

from __future__ import annotations

import pytest

from contract.resource_names import endpoint_function_name, tenant_stack_name
from tests.stacks.templates import referenced_ids

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

POLICY_TYPE = "AWS::Bedrock::KnowledgeBasePolicy"


def _tenant_templates(synthesized):
    env = synthesized.project.env_name
    return {tenant: synthesized.template(tenant_stack_name(env, tenant)) for tenant in synthesized.project.tenants}


def _endpoint_role(template: dict, env_name: str, tenant: str) -> str:
    """The logical id of the role the tenant's endpoint function runs as."""
    name = endpoint_function_name(env_name, tenant)
    (function,) = [
        r
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("FunctionName") == name
    ]
    return function["Properties"]["Role"]["Fn::GetAtt"][0]


def test_each_knowledge_base_has_exactly_one_policy_on_its_own_id(synthesized):
    for tenant, template in _tenant_templates(synthesized).items():
        kbs = {k for k, r in template["Resources"].items() if r["Type"] == "AWS::Bedrock::KnowledgeBase"}
        policies = [r for r in template["Resources"].values() if r["Type"] == POLICY_TYPE]
        assert len(kbs) == len(synthesized.project.tenants[tenant].knowledge_bases) == len(policies)
        targets = [p["Properties"]["KnowledgeBaseId"]["Fn::GetAtt"] for p in policies]
        assert sorted(t[0] for t in targets) == sorted(kbs) and {t[1] for t in targets} == {"KnowledgeBaseId"}


def test_each_policy_exempts_only_its_own_tenants_endpoint_role_two_tenant_isolation(synthesized):
    templates = _tenant_templates(synthesized)
    assert len(templates) >= 2
    for tenant, template in templates.items():
        role = _endpoint_role(template, synthesized.project.env_name, tenant)
        # A tenant with `gateway:` has a second front door whose role reads the same knowledge bases.
        gateway_roles = [k for k in template["Resources"] if k.startswith("McpGatewayGatewayRole")]
        # And a tenant with `agent:` its agent's action-function role, after the gateway's (tenant_stack.py).
        agent_roles = [k for k in template["Resources"] if k.startswith("AgentFunctionRole")]
        readers = [{"Fn::GetAtt": [r, "Arn"]} for r in [role, *gateway_roles, *agent_roles]]
        assert bool(gateway_roles) == (synthesized.project.tenants[tenant].gateway is not None)
        for logical_id, resource in template["Resources"].items():
            if resource["Type"] != POLICY_TYPE:
                continue
            (deny,) = [s for s in resource["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
            exempt = deny["Condition"]["ArnNotEquals"]["aws:PrincipalArn"]
            assert exempt == readers, (tenant, logical_id, exempt)
            # Everything the policy points at lives in this tenant's own stack: its KB and its role.
            assert referenced_ids(resource) <= set(template["Resources"]), (tenant, logical_id)
            (kb,) = [ref for ref in referenced_ids(deny["Resource"])]
            assert template["Resources"][kb]["Type"] == "AWS::Bedrock::KnowledgeBase"


def test_policies_hold_only_retrieve_and_get_document_content(synthesized):
    for template in _tenant_templates(synthesized).values():
        for resource in template["Resources"].values():
            if resource["Type"] == POLICY_TYPE:
                for statement in resource["Properties"]["PolicyDocument"]["Statement"]:
                    assert sorted(statement["Action"]) == ["bedrock:GetDocumentContent", "bedrock:Retrieve"]


def test_cross_account_readers_and_break_glass_roles_from_the_tenant_file_reach_every_policy():
    from schema.tenant import KnowledgeBaseAccess
    from tests.cdk_constructs.probe import resources, template_of, tenant_stack

    partner = "arn:aws:iam::444455556666:role/partner-reader"
    console = "arn:aws:iam::123456789012:role/break-glass"
    access = KnowledgeBaseAccess(cross_account_readers=[partner], break_glass_roles=[console])
    stack = tenant_stack("acme", knowledge_base_access=access)
    policies = resources(template_of(stack), POLICY_TYPE)
    assert len(policies) == 2
    role = stack.resolve(stack.endpoint.role.role_arn)
    for policy in policies.values():
        statements = {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}
        deny = statements["OnlyTheTenantsReadersMayRetrieve"]
        assert deny["Condition"]["ArnNotEquals"]["aws:PrincipalArn"] == [role, partner, console]
        allow = statements["CrossAccountReadersListedInTheTenantFile"]
        assert allow["Principal"] == {"AWS": [partner]}  # the break-glass role gets no Allow


def test_the_knowledge_base_service_role_is_never_named_in_its_policy(synthesized):
    """The service role reads sources (S3, secrets, keys); it is not a reader and not exempt."""
    for template in _tenant_templates(synthesized).values():
        service_roles = {
            r["Properties"]["RoleArn"]["Fn::GetAtt"][0]
            for r in template["Resources"].values()
            if r["Type"] == "AWS::Bedrock::KnowledgeBase"
        }
        for resource in template["Resources"].values():
            if resource["Type"] == POLICY_TYPE:
                assert not referenced_ids(resource) & service_roles
