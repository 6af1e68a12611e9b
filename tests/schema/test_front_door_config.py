"""The front door fields: environment defaults, tenant overrides, and bad combinations named by file and field."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project
from schema.front_door_checks import tenant_front_door

SUBNETS = {"subnet_ids": ["subnet-0123456789abcdef0"], "security_group_ids": ["sg-0123456789abcdef0"]}
GLOBAL_ACL = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/11111111-2222-3333-4444-555555555555"
CERT = "arn:aws:acm:us-west-2:123456789012:certificate/11111111-2222-3333-4444-555555555555"


def _problems(config_copy) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    return [str(problem) for problem in caught.value.problems]


def test_the_default_front_door_is_the_function_url_without_vpc_or_snapstart():
    project = load_project("config", "dev")
    front = tenant_front_door(project.environment, project.tenants["acme"])
    assert (front.front_door, front.vpc, front.snapstart, front.request_contexts) == (
        "function_url",
        None,
        False,
        ["function_url"],
    )


def test_a_tenant_overrides_the_environments_front_door_field_by_field(config_copy):
    config_copy.edit("environments", "dev", lambda e: e["endpoint"].update(snapstart=True))
    config_copy.edit("tenants", "globex", lambda t: t.update(endpoint={"front_door": "api_gateway"}))
    project = load_project(config_copy.root, "dev")
    acme = tenant_front_door(project.environment, project.tenants["acme"])
    globex = tenant_front_door(project.environment, project.tenants["globex"])
    assert (acme.front_door, acme.snapstart) == ("function_url", True)
    assert (globex.front_door, globex.snapstart, globex.request_contexts) == ("api_gateway", True, ["api_gateway"])


def test_vpc_with_the_function_url_is_rejected_naming_the_environment_file_field_and_reason(config_copy):
    config_copy.edit("environments", "dev", lambda e: e["endpoint"].update(vpc=SUBNETS))
    problems = _problems(config_copy)
    assert len(problems) == 2  # once per tenant that inherits it
    assert all(
        "environments/dev.yaml: endpoint.vpc:" in p and "cannot stream through a function URL" in p for p in problems
    )
    assert any("(for tenant acme)" in p for p in problems)


def test_a_tenant_that_switches_back_to_the_function_url_under_a_vpc_is_blamed_in_its_own_file(config_copy):
    config_copy.edit("environments", "dev", lambda e: e["endpoint"].update(front_door="api_gateway", vpc=SUBNETS))
    config_copy.edit("tenants", "acme", lambda t: t.update(endpoint={"front_door": "function_url"}))
    (problem,) = _problems(config_copy)
    assert "tenants/acme.yaml: endpoint.vpc:" in problem and "set front_door: api_gateway" in problem


def test_keeping_the_function_url_of_a_vpc_function_is_rejected(config_copy):
    endpoint = {"front_door": "api_gateway", "vpc": SUBNETS, "api_gateway": {"keep_function_url": True}}
    config_copy.edit("tenants", "acme", lambda t: t.update(endpoint=endpoint))
    (problem,) = _problems(config_copy)
    assert "tenants/acme.yaml: endpoint.api_gateway.keep_function_url:" in problem


@pytest.mark.parametrize(
    ("api_gateway", "field", "words"),
    [
        (
            {
                "private": {"vpc_endpoint_ids": ["vpce-0123456789abcdef0"]},
                "custom_domain": {"domain_name": "search.example.com", "certificate_arn": CERT},
            },
            "endpoint.api_gateway",
            "custom_domain is not available with private",
        ),
        ({"private": {"vpc_endpoint_ids": []}}, "endpoint.api_gateway.private.vpc_endpoint_ids", "at least 1"),
        (
            {"private": {"vpc_endpoint_ids": ["vpc-123"]}},
            "endpoint.api_gateway.private.vpc_endpoint_ids[0]",
            "VPC endpoint id",
        ),
        (
            {"web_acl_arn": GLOBAL_ACL},
            "endpoint.api_gateway.web_acl_arn",
            "REGIONAL WAFv2 web ACL ARN",
        ),
        (
            {
                "custom_domain": {
                    "domain_name": "search.example.com",
                    "certificate_arn": CERT,
                    "hosted_zone_id": "Z0123456789ABCDEFGHIJ",
                }
            },
            "endpoint.api_gateway.custom_domain",
            "hosted_zone_id and hosted_zone_name go together",
        ),
        (
            {
                "custom_domain": {
                    "domain_name": "search.example.com",
                    "certificate_arn": CERT,
                    "hosted_zone_id": "Z0123456789ABCDEFGHIJ",
                    "hosted_zone_name": "other.org",
                }
            },
            "endpoint.api_gateway.custom_domain",
            "not inside hosted zone",
        ),
        ({"throttling": {"rate_limit": 0}}, "endpoint.api_gateway.throttling.rate_limit", "greater than 0"),
    ],
)
def test_bad_api_gateway_options_name_the_tenant_file_and_field(config_copy, api_gateway, field, words):
    config_copy.edit(
        "tenants", "acme", lambda t: t.update(endpoint={"front_door": "api_gateway", "api_gateway": api_gateway})
    )
    problems = _problems(config_copy)
    assert any("tenants/acme.yaml: " + field in p and words in p for p in problems), problems


def test_bad_vpc_ids_name_the_field(config_copy):
    bad = {"subnet_ids": ["subnet-xyz"], "security_group_ids": ["sg-0123456789abcdef0"]}
    config_copy.edit("tenants", "acme", lambda t: t.update(endpoint={"front_door": "api_gateway", "vpc": bad}))
    (problem,) = _problems(config_copy)
    assert "tenants/acme.yaml: endpoint.vpc.subnet_ids[0]" in problem and "not a subnet id" in problem


def test_snapstart_with_a_layer_that_pools_the_apps_connection_is_rejected_naming_the_layer_field(config_copy):
    config_copy.edit("environments", "dev", lambda e: e["endpoint"].update(web_adapter_layer_version=26))
    config_copy.edit("tenants", "globex", lambda t: t.update(endpoint={"snapstart": True}))
    [problem] = _problems(config_copy)
    assert "environments/dev.yaml: endpoint.web_adapter_layer_version:" in problem
    assert "tenant globex turns snapstart on" in problem and "use 27 (v1.0.0)" in problem


def test_snapstart_with_layer_27_and_layer_26_without_snapstart_are_accepted(config_copy):
    config_copy.edit("tenants", "globex", lambda t: t.update(endpoint={"snapstart": True}))
    assert load_project(config_copy.root, "dev").environment.endpoint.web_adapter_layer_version == 27
    config_copy.edit("tenants", "globex", lambda t: t.pop("endpoint"))
    config_copy.edit("environments", "dev", lambda e: e["endpoint"].update(web_adapter_layer_version=26))
    assert load_project(config_copy.root, "dev").environment.endpoint.web_adapter_layer_version == 26
