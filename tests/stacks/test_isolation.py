"""Tenants are isolated by construction: nothing in one tenant's stack refers to another tenant."""

from __future__ import annotations

import itertools
import json

import pytest

from contract.resource_names import platform_stack_name, resource_prefix, tenant_stack_name
from tests.stacks.templates import as_list, imports, policy_documents, referenced_ids, render, statements, strings

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _pairs(synthesized):
    tenants = list(synthesized.project.tenants)
    assert len(tenants) >= 2, "the isolation tests need two tenants in the dev example"
    return list(itertools.permutations(tenants, 2))


def _template(synthesized, tenant):
    return synthesized.template(tenant_stack_name(synthesized.project.env_name, tenant))


def _literals_of(project, tenant: str) -> set[str]:
    """What only tenant `tenant` owns and could appear literally: its name prefix, invokers, secrets, keys."""
    config = project.tenants[tenant]
    owned = {resource_prefix(project.env_name, tenant), f"/akb/{project.env_name}/{tenant}/"}
    owned |= {invoker.arn for invoker in config.invokers}
    for kb in config.knowledge_bases:
        owned |= {getattr(source, "secret_arn", None) or "" for source in kb.sources}
        owned |= {getattr(source, "bucket_arn", None) or "" for source in kb.sources}
        owned.add(kb.kms_key_arn or "")
    return owned - {""}


def test_no_literal_in_a_tenants_stack_names_another_tenants_resources(synthesized):
    for tenant, other in _pairs(synthesized):
        text = strings(_template(synthesized, tenant))
        foreign = _literals_of(synthesized.project, other) - _literals_of(synthesized.project, tenant)
        leaks = sorted({literal for literal in foreign for value in text if literal in value})
        assert leaks == [], f"{tenant}'s stack mentions {other}'s {leaks}"
        assert not [value for value in text if f"-{other}-" in value or value.endswith(f"-{other}")]


def test_references_stay_inside_the_stack_and_imports_come_only_from_the_platform(synthesized):
    platform = platform_stack_name(synthesized.project.env_name)
    for tenant, other in _pairs(synthesized):
        template = _template(synthesized, tenant)
        own = set(template["Resources"]) | set(template.get("Parameters", {}))
        dangling = {ref for ref in referenced_ids(template) if not ref.startswith("AWS::")} - own
        assert dangling == set(), f"{tenant} refers to ids it does not define: {dangling}"
        for imported in imports(template):
            assert other not in json.dumps(imported) and platform in json.dumps(imported)


def test_no_permission_or_policy_names_another_tenants_principals(synthesized):
    for tenant, other in _pairs(synthesized):
        template = _template(synthesized, tenant)
        foreign = {invoker.arn for invoker in synthesized.project.tenants[other].invokers}
        permissions = [
            r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Permission"
        ]
        assert permissions and not {p["Principal"] for p in permissions} & foreign
        for logical_id, _, document in policy_documents(template):
            assert not [arn for arn in foreign if arn in json.dumps(document)], f"{tenant}/{logical_id}"


def _endpoint_statements(template) -> dict[str, dict]:
    (document,) = [doc for logical_id, _, doc in policy_documents(template) if logical_id.startswith("EndpointRole")]
    return {statement["Sid"]: statement for statement in statements(document)}


def _ids_of_type(template, resource_type: str) -> set[str]:
    return {k for k, v in template["Resources"].items() if v["Type"] == resource_type}


def test_endpoint_role_reaches_exactly_its_own_knowledge_bases(synthesized):
    for tenant in synthesized.project.tenants:
        template = _template(synthesized, tenant)
        retrieve = _endpoint_statements(template)["RetrieveFromTheTenantsKnowledgeBasesOnly"]
        targets = [referenced_ids(resource) for resource in as_list(retrieve["Resource"])]
        own_kbs = _ids_of_type(template, "AWS::Bedrock::KnowledgeBase")
        assert len(own_kbs) == len(synthesized.project.tenants[tenant].knowledge_bases)
        assert set().union(*targets) == own_kbs and all(len(t) == 1 for t in targets)
        assert all(render(resource).endswith(".KnowledgeBaseArn>") for resource in as_list(retrieve["Resource"]))


def test_endpoint_role_applies_only_its_own_guardrail(synthesized):
    for tenant in synthesized.project.tenants:
        template = _template(synthesized, tenant)
        guardrail = _endpoint_statements(template)["ApplyTheTenantsGuardrail"]
        assert referenced_ids(guardrail["Resource"]) == _ids_of_type(template, "AWS::Bedrock::Guardrail")


def test_endpoint_role_writes_only_its_own_log_group(synthesized):
    for tenant in synthesized.project.tenants:
        template = _template(synthesized, tenant)
        logs = _endpoint_statements(template)["WriteTheEndpointsOwnLogGroup"]
        groups = {
            logical_id: resource["Properties"]["LogGroupName"]
            for logical_id, resource in template["Resources"].items()
            if resource["Type"] == "AWS::Logs::LogGroup"
        }
        # The tenant's other log groups (ingestion logs, written by Bedrock's log delivery; the MCP gateway
        # interceptor's and the agent function's, written by their own roles) are not the endpoint's.
        endpoint_groups = {key for key, name in groups.items() if name.startswith("/aws/lambda/")}
        endpoint_groups = {key for key in endpoint_groups if not key.startswith(("McpGateway", "AgentFunction"))}
        assert len(endpoint_groups) == 1
        assert {ref for r in as_list(logs["Resource"]) for ref in referenced_ids(r)} - {"AWS::Partition"} == (
            endpoint_groups
        )
        region, account = synthesized.project.environment.region, synthesized.project.environment.account
        assert all(f":logs:{region}:{account}:log-group:" in render(r) for r in as_list(logs["Resource"]))


def test_endpoint_role_touches_no_bucket_secret_or_other_service(synthesized):
    for tenant in synthesized.project.tenants:
        template = _template(synthesized, tenant)
        text = json.dumps(list(_endpoint_statements(template).values()))
        buckets = _ids_of_type(template, "AWS::S3::Bucket")
        assert buckets and not [bucket for bucket in buckets if bucket in text]
        assert "s3:" not in text and "secretsmanager:" not in text and "iam:" not in text


def test_knowledge_base_roles_read_only_the_tenants_own_bucket_in_its_own_account(synthesized):
    """The role reads bucket and bucket/* (AWS's sample grant): isolation rests on the bucket being the tenant's."""
    checked = 0
    for tenant in synthesized.project.tenants:
        template = _template(synthesized, tenant)
        own_buckets = _ids_of_type(template, "AWS::S3::Bucket")
        own_literals = {
            source.bucket_arn
            for kb in synthesized.project.tenants[tenant].knowledge_bases
            for source in kb.sources
            if getattr(source, "bucket_arn", None)
        }
        for logical_id, _, document in policy_documents(template):
            for statement in statements(document):
                if statement.get("Sid") not in ("ListDocumentBuckets", "ReadDocumentBucketObjects"):
                    continue
                checked += 1
                for resource in as_list(statement["Resource"]):
                    refs = referenced_ids(resource) - {"AWS::Partition"}
                    literal = isinstance(resource, str) and any(resource.startswith(b) for b in own_literals)
                    assert refs <= own_buckets and (refs or literal), f"{tenant}/{logical_id}: {resource}"
                account = synthesized.project.environment.account
                assert statement["Condition"] == {"StringEquals": {"aws:ResourceAccount": account}}
    assert checked >= 2
