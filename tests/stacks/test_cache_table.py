"""The synthesized cache table of a tenant with `cache:` (acme), and none for a tenant without (globex)."""

from __future__ import annotations

import json

import pytest

from contract.env_vars import CACHE_TABLE as TABLE_ENV
from contract.resource_names import cache_table_name, tenant_stack_name

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _template(synthesized, tenant):
    return synthesized.template(tenant_stack_name(synthesized.project.env_name, tenant))


def _of_type(template, kind):
    return {key: value for key, value in template["Resources"].items() if value["Type"] == kind}


def test_a_tenant_with_a_cache_gets_an_on_demand_encrypted_table_with_ttl(synthesized):
    (table,) = _of_type(_template(synthesized, "acme"), "AWS::DynamoDB::Table").values()
    props = table["Properties"]
    assert props["TableName"] == cache_table_name("dev", "acme")
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["SSESpecification"] == {"SSEEnabled": True}  # AWS managed key aws/dynamodb
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert [k["AttributeName"] for k in props["KeySchema"]] == ["pk", "sk"]
    assert table["DeletionPolicy"] == "Delete"


def test_the_endpoint_is_told_its_table_and_may_use_only_its_tenants_items(synthesized):
    template = _template(synthesized, "acme")
    (function,) = [
        f
        for f in _of_type(template, "AWS::Lambda::Function").values()
        if "Variables" in f["Properties"].get("Environment", {})
    ]
    assert function["Properties"]["Environment"]["Variables"][TABLE_ENV] == cache_table_name("dev", "acme")
    text = json.dumps(template)
    assert '"dynamodb:LeadingKeys": ["acme"]' in text


def test_a_tenant_without_a_cache_has_no_table_and_no_cache_permission(synthesized):
    template = _template(synthesized, "globex")
    assert not _of_type(template, "AWS::DynamoDB::Table")
    assert cache_table_name("dev", "globex") not in json.dumps(template)
    assert "dynamodb:GetItem" not in json.dumps(template)  # fair sharing's statements only update its own table
