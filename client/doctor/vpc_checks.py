"""`vpc`: does the tenant's VPC have the interface endpoints the endpoint function needs?

A function attached to a VPC has no internet route unless its subnets have one; the project assumes
private subnets and lists the VPC endpoints it needs (docs/front-door.md): bedrock-agent-runtime (the
retrieval calls), logs (its log records and EMF metrics), sts (the SDK's regional credential calls), and
with the result cache on, dynamodb (the cache table; a gateway endpoint counts too) and bedrock-agent
(ListIngestionJobs, the knowledge-base version). Read-only: ec2:DescribeSubnets, ec2:DescribeVpcEndpoints.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from client.doctor.checkup import Checkup
from client.doctor.findings import Finding, aws_call, fail, ok
from schema.front_door_checks import tenant_front_door

VPC = "vpc-endpoints"
ALWAYS = ("bedrock-agent-runtime", "logs", "sts")
WITH_CACHE = ("dynamodb", "bedrock-agent")
GATEWAY_OK = frozenset({"dynamodb"})  # DynamoDB also offers gateway endpoints (no ENI, no hourly charge)


def needed_services(cache_on: bool) -> tuple[str, ...]:
    return ALWAYS + (WITH_CACHE if cache_on else ())


def check_vpc_endpoints(c: Checkup, tenant: str) -> Iterator[Finding]:
    front = tenant_front_door(c.project.environment, c.project.tenants[tenant])
    if front.vpc is None:  # nothing to check: no line, like the other checks of unused features
        return
    subnets = aws_call("ec2:DescribeSubnets", c.client("ec2").describe_subnets, SubnetIds=list(front.vpc.subnet_ids))[
        "Subnets"
    ]
    vpcs = sorted({subnet["VpcId"] for subnet in subnets})
    if len(vpcs) != 1:
        yield fail(VPC, f"{tenant}: endpoint.vpc.subnet_ids span {len(vpcs)} VPCs; use subnets of one VPC")
        return
    endpoints = _endpoints(c, vpcs[0])
    missing = [
        service
        for service in needed_services(c.project.tenants[tenant].cache_on)
        if not _has_endpoint(endpoints, f"com.amazonaws.{c.region}.{service}", service in GATEWAY_OK)
    ]
    if missing:
        yield fail(
            VPC,
            f"{tenant}: the VPC of endpoint.vpc.subnet_ids has no available endpoint for {', '.join(missing)}; "
            "create interface endpoints with private DNS (docs/front-door.md) or give the subnets a NAT route",
        )
        return
    yield ok(
        VPC, f"{tenant}: the VPC has endpoints for {', '.join(needed_services(c.project.tenants[tenant].cache_on))}"
    )


def _endpoints(c: Checkup, vpc_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    paginator = c.client("ec2").get_paginator("describe_vpc_endpoints")
    pages = aws_call(
        "ec2:DescribeVpcEndpoints",
        lambda: list(paginator.paginate(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])),
    )
    for page in pages:
        found.extend(page.get("VpcEndpoints", []))
    return found


def _has_endpoint(endpoints: list[dict[str, Any]], service_name: str, gateway_ok: bool) -> bool:
    for endpoint in endpoints:
        if endpoint.get("ServiceName") != service_name or str(endpoint.get("State", "")).lower() != "available":
            continue
        kind = endpoint.get("VpcEndpointType")
        if kind == "Interface" and endpoint.get("PrivateDnsEnabled"):
            return True
        if kind == "Gateway" and gateway_ok:
            return True
    return False
