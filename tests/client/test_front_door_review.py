"""`akb policy` shows an API tenant's invoke policy, resource policy and VPC additions from the same builders."""

from __future__ import annotations

import dataclasses

from client.commands.policy import review
from schema.front_door import ApiGatewayOptions, PrivateAccess, TenantEndpoint, VpcAttachment
from tests.conftest import example_project


def _project(endpoint: TenantEndpoint):
    project = example_project()
    tenants = {**project.tenants, "globex": project.tenants["globex"].model_copy(update={"endpoint": endpoint})}
    return dataclasses.replace(project, tenants=tenants)


def test_the_default_tenant_shows_the_function_url_door_only():
    shown = review(example_project(), "acme")["front_door"]
    assert shown == {"kind": "function_url", "snapstart": False}


def test_a_private_api_tenant_shows_exactly_two_methods_and_the_vpc_endpoint_deny():
    endpoint = TenantEndpoint(
        front_door="api_gateway",
        api_gateway=ApiGatewayOptions(private=PrivateAccess(vpc_endpoint_ids=["vpce-0123456789abcdef0"])),
        vpc=VpcAttachment(subnet_ids=["subnet-0123456789abcdef0"], security_group_ids=["sg-0123456789abcdef0"]),
    )
    shown = review(_project(endpoint), "globex")["front_door"]
    (allow,) = shown["api_gateway"]["invoker_policy"]["Statement"]
    assert allow["Action"] == "execute-api:Invoke" and len(allow["Resource"]) == 2
    deny = shown["api_gateway"]["resource_policy"]["Statement"][1]
    assert deny["Condition"] == {"StringNotEquals": {"aws:SourceVpce": ["vpce-0123456789abcdef0"]}}
    assert "ec2:CreateNetworkInterface" in shown["vpc"]["execution_role_addition"]["Statement"][0]["Action"]
