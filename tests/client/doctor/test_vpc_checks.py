"""`akb doctor` on a tenant attached to a VPC: the interface endpoints it needs, found or named as missing
(botocore Stubber on real ec2 clients: requests and responses checked against the ec2 model)."""

from __future__ import annotations

from client.doctor import vpc_checks
from client.doctor.findings import Level
from schema.front_door import TenantEndpoint, VpcAttachment
from tests.client.doctor.scenario import checkup, project_with

SUBNETS = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
VPC = "vpc-0123456789abcdef0"
ENDPOINT = TenantEndpoint(
    front_door="api_gateway",
    vpc=VpcAttachment(subnet_ids=SUBNETS, security_group_ids=["sg-0123456789abcdef0"]),
)


def _subnets(stubs, vpcs=(VPC, VPC)) -> None:
    subnets = [{"SubnetId": subnet, "VpcId": vpc} for subnet, vpc in zip(SUBNETS, vpcs, strict=True)]
    stubs.respond("ec2", "describe_subnets", {"Subnets": subnets}, {"SubnetIds": SUBNETS})


def _endpoints(stubs, services: dict[str, str]) -> None:
    found = [
        {
            "VpcEndpointId": f"vpce-0123456789abcde{index:02d}",
            "ServiceName": f"com.amazonaws.us-west-2.{service}",
            "VpcEndpointType": kind,
            "State": "available",
            "PrivateDnsEnabled": kind == "Interface",
            "VpcId": VPC,
        }
        for index, (service, kind) in enumerate(services.items())
    ]
    stubs.respond(
        "ec2", "describe_vpc_endpoints", {"VpcEndpoints": found}, {"Filters": [{"Name": "vpc-id", "Values": [VPC]}]}
    )


def _run(stubs, tenant="acme"):
    project = project_with(**{tenant: {"endpoint": ENDPOINT}})
    return list(vpc_checks.check_vpc_endpoints(checkup(stubs, project, tenants=(tenant,)), tenant))


def test_a_tenant_with_the_cache_needs_dynamodb_and_bedrock_agent_too_and_a_gateway_endpoint_counts(stubs):
    _subnets(stubs)
    services = dict.fromkeys(("bedrock-agent-runtime", "logs", "sts", "bedrock-agent"), "Interface")
    _endpoints(stubs, {**services, "dynamodb": "Gateway"})
    (finding,) = _run(stubs)  # acme has a cache block
    assert finding.level is Level.OK and "dynamodb" in finding.message
    stubs.assert_all_used()


def test_missing_endpoints_are_named_with_the_fix(stubs):
    _subnets(stubs)
    _endpoints(stubs, {"bedrock-agent-runtime": "Interface", "logs": "Gateway"})
    (finding,) = _run(stubs, tenant="globex")  # no cache: needs bedrock-agent-runtime, logs, sts
    assert finding.level is Level.FAIL
    assert "no available endpoint for logs, sts" in finding.message and "docs/front-door.md" in finding.message


def test_subnets_of_two_vpcs_are_refused(stubs):
    _subnets(stubs, vpcs=(VPC, "vpc-0fedcba9876543210"))
    (finding,) = _run(stubs)
    assert finding.level is Level.FAIL and "span 2 VPCs" in finding.message


def test_a_tenant_without_a_vpc_needs_no_call_and_prints_no_line(stubs):
    assert list(vpc_checks.check_vpc_endpoints(checkup(stubs), "acme")) == []
