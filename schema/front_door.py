"""`endpoint:` front door settings: how callers reach a tenant's endpoint (environment default, tenant override).

- `function_url` (default): the IAM-only Lambda function URL, streaming (docs/front-door.md).
- `api_gateway`: a REGIONAL (or PRIVATE) API Gateway REST API per tenant whose two methods proxy to
  the function with response transfer mode STREAM, AuthorizationType AWS_IAM, stage throttling and
  access logs; options `custom_domain`, `web_acl_arn`, `private`. Only this door can serve a function
  attached to a VPC: function URLs do not stream from a VPC (Lambda developer guide, response streaming;
  docs/facts-and-decisions.md).
- `snapstart`: published versions and an alias the URL or API targets.

The tenant file's `endpoint:` block overrides these fields one by one; `effective_front_door` merges them
and `front_door_problems` checks the merged result, naming the file and field that set the value.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from contract.enums import RequestContext
from schema.arn_types import AcmCertificateArn, WafRegionalWebAclArn
from schema.common import StrictModel, unique

FrontDoorKind = Literal["function_url", "api_gateway"]
FRONT_DOORS: tuple[str, ...] = ("function_url", "api_gateway")

# botocore ec2 model: subnet-, sg- and vpce- ids are the prefix and 8 or 17 hex digits.
_SUBNET = re.compile(r"^subnet-[0-9a-f]{8}([0-9a-f]{9})?$")
_SECURITY_GROUP = re.compile(r"^sg-[0-9a-f]{8}([0-9a-f]{9})?$")
_VPC_ENDPOINT = re.compile(r"^vpce-[0-9a-f]{8}([0-9a-f]{9})?$")
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")
_HOSTED_ZONE = re.compile(r"^Z[A-Z0-9]{1,31}$")


def _matching(pattern: re.Pattern[str], what: str, example: str) -> AfterValidator:
    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"'{value}' is not {what} (e.g. {example})")
        return value

    return AfterValidator(check)


SubnetId = Annotated[str, _matching(_SUBNET, "a subnet id", "subnet-0123456789abcdef0")]
SecurityGroupId = Annotated[str, _matching(_SECURITY_GROUP, "a security group id", "sg-0123456789abcdef0")]
VpcEndpointId = Annotated[str, _matching(_VPC_ENDPOINT, "a VPC endpoint id", "vpce-0123456789abcdef0")]


class Throttling(StrictModel):
    """Stage-wide throttling of the API (AWS::ApiGateway::Stage MethodSettings ThrottlingRateLimit /
    ThrottlingBurstLimit). https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html"""

    rate_limit: float = Field(20.0, gt=0, le=10000, description="Steady requests per second for the stage.")
    burst_limit: int = Field(40, ge=1, le=5000, description="Requests the stage admits in a burst.")


class CustomDomain(StrictModel):
    """A REGIONAL custom domain name in front of the API, with an optional Route 53 alias record."""

    domain_name: Annotated[str, _matching(_DOMAIN, "a lowercase DNS name", "search.example.com")] = Field(
        description="The domain callers use, e.g. search.example.com."
    )
    certificate_arn: AcmCertificateArn = Field(
        description="ACM certificate for domain_name, in the environment's region (REGIONAL endpoint)."
    )
    hosted_zone_id: (
        Annotated[str, _matching(_HOSTED_ZONE, "a Route 53 hosted zone id", "Z0123456789ABCDEFGHIJ")] | None
    ) = Field(None, description="Route 53 hosted zone for the alias record; unset: no record (manage DNS yourself).")
    hosted_zone_name: Annotated[str, _matching(_DOMAIN, "a lowercase DNS name", "example.com")] | None = Field(
        None, description="The hosted zone's name (required with hosted_zone_id)."
    )

    @model_validator(mode="after")
    def _zone_complete(self) -> CustomDomain:
        if (self.hosted_zone_id is None) != (self.hosted_zone_name is None):
            raise ValueError("hosted_zone_id and hosted_zone_name go together: set both or neither")
        if self.hosted_zone_name and not (
            self.domain_name == self.hosted_zone_name or self.domain_name.endswith("." + self.hosted_zone_name)
        ):
            raise ValueError(f"domain_name '{self.domain_name}' is not inside hosted zone '{self.hosted_zone_name}'")
        return self


class PrivateAccess(StrictModel):
    """A PRIVATE API reachable only through these interface VPC endpoints (execute-api)."""

    vpc_endpoint_ids: Annotated[list[VpcEndpointId], AfterValidator(lambda v: unique(v, "VPC endpoint id"))] = Field(
        min_length=1, description="execute-api interface VPC endpoints allowed to reach the API (resource policy)."
    )


class ApiGatewayOptions(StrictModel):
    """Options of the `api_gateway` front door."""

    throttling: Throttling = Field(default_factory=Throttling, description="Stage throttling (rate, burst).")
    custom_domain: CustomDomain | None = Field(None, description="Custom domain name; unset: the execute-api URL.")
    web_acl_arn: WafRegionalWebAclArn | None = Field(
        None, description="WAFv2 web ACL (scope REGIONAL) associated with the API's stage."
    )
    private: PrivateAccess | None = Field(None, description="Make the API PRIVATE to these VPC endpoints.")
    keep_function_url: bool = Field(
        False,
        description="Keep the function URL beside the API while callers move over (docs/front-door.md, migration); "
        "remove once they have.",
    )

    @model_validator(mode="after")
    def _private_has_no_public_domain(self) -> ApiGatewayOptions:
        if self.private is not None and self.custom_domain is not None:
            raise ValueError(
                "custom_domain is not available with private: a REGIONAL domain name would not reach a PRIVATE API; "
                "remove one of them"
            )
        return self


class VpcAttachment(StrictModel):
    """Attach the endpoint function to your VPC (api_gateway front door only)."""

    subnet_ids: Annotated[list[SubnetId], AfterValidator(lambda v: unique(v, "subnet id"))] = Field(
        min_length=1, max_length=16, description="Private subnets (one per Availability Zone you use)."
    )
    security_group_ids: Annotated[list[SecurityGroupId], AfterValidator(lambda v: unique(v, "security group id"))] = (
        Field(min_length=1, max_length=5, description="Security groups of the function's network interfaces.")
    )


class FrontDoorFields(StrictModel):
    """The fields the environment's `endpoint:` sets and a tenant's `endpoint:` may override."""

    front_door: FrontDoorKind = Field(
        "function_url", description="function_url (IAM-only function URL) or api_gateway (REST API, streaming)."
    )
    api_gateway: ApiGatewayOptions = Field(
        default_factory=ApiGatewayOptions, description="Options of the api_gateway front door."
    )
    vpc: VpcAttachment | None = Field(
        None, description="Attach the function to a VPC; only with front_door api_gateway."
    )
    snapstart: bool = Field(False, description="Lambda SnapStart: published versions and an alias `live`.")


class TenantEndpoint(StrictModel):
    """A tenant's overrides of the environment's front door fields (unset: the environment's value)."""

    front_door: FrontDoorKind | None = Field(None, description="Overrides endpoint.front_door.")
    api_gateway: ApiGatewayOptions | None = Field(None, description="Overrides endpoint.api_gateway (whole block).")
    vpc: VpcAttachment | None = Field(None, description="Overrides endpoint.vpc.")
    snapstart: bool | None = Field(None, description="Overrides endpoint.snapstart.")


class FrontDoor(StrictModel):
    """The merged front door of one tenant."""

    front_door: FrontDoorKind
    api_gateway: ApiGatewayOptions
    vpc: VpcAttachment | None
    snapstart: bool

    @property
    def uses_api(self) -> bool:
        return self.front_door == "api_gateway"

    @property
    def uses_function_url(self) -> bool:
        return self.front_door == "function_url" or self.api_gateway.keep_function_url

    @property
    def request_contexts(self) -> list[RequestContext]:
        """The request-context shapes the endpoint accepts (lambdas/endpoint/identity.py)."""
        contexts: list[RequestContext] = ["function_url"] if self.uses_function_url else []
        return contexts + (["api_gateway"] if self.uses_api else [])


def effective_front_door(environment: FrontDoorFields, tenant: TenantEndpoint | None) -> FrontDoor:
    override = tenant.model_dump(exclude_none=True) if tenant is not None else {}
    merged = {**environment.model_dump(include=set(FrontDoorFields.model_fields)), **override}
    return FrontDoor.model_validate(merged)


def front_door_problems(front: FrontDoor) -> list[tuple[str, str, tuple[str, ...]]]:
    """(field, message, fields involved) for each combination the front door cannot serve; fields relative
    to `endpoint`. The involved fields say which file to blame: the one that set any of them."""
    problems: list[tuple[str, str, tuple[str, ...]]] = []
    if front.vpc is not None and front.front_door == "function_url":
        problems.append(
            (
                "vpc",
                "a function attached to a VPC cannot stream through a function URL (Lambda developer guide, "
                "response streaming): set front_door: api_gateway, or remove vpc",
                ("vpc", "front_door"),
            )
        )
    if front.vpc is not None and front.api_gateway.keep_function_url:
        problems.append(
            (
                "api_gateway.keep_function_url",
                "the function URL of a function attached to a VPC does not stream: move callers before attaching vpc",
                ("vpc", "api_gateway"),
            )
        )
    return problems
