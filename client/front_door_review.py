"""`akb policy`'s view of a tenant's API Gateway front door: who may invoke which methods, through what.

The same pure builders the stack uses (policies/api_invoker.py, policies/vpc_access.py), with the API id
(unknown before deploy) written as `<api-id>`, so a security review reads exactly what will be deployed.
"""

from __future__ import annotations

from typing import Any

from policies.api_invoker import METHODS, api_invoker_policy, api_resource_policy, method_resource
from policies.vpc_access import vpc_access_policy
from schema import Project
from schema.front_door_checks import tenant_front_door

STAGE = "api"  # cdk_constructs/api_front_door.STAGE (this module must not import the CDK)


def front_door_review(project: Project, tenant_name: str, partition: str, region: str, account: str) -> dict[str, Any]:
    """{"front_door": ...} for `akb policy`; the API block only when the tenant uses api_gateway."""
    tenant = project.tenants[tenant_name]
    front = tenant_front_door(project.environment, tenant)
    review: dict[str, Any] = {"kind": front.front_door, "snapstart": front.snapstart}
    if front.vpc is not None:
        review["vpc"] = {"attachment": front.vpc.model_dump(), "execution_role_addition": vpc_access_policy()}
    if front.uses_api:
        methods = [f"arn:{partition}:execute-api:{region}:{account}:<api-id>/{STAGE}/{m}{p}" for m, p in METHODS]
        private = front.api_gateway.private
        principals = [invoker.arn for invoker in tenant.invokers]
        if private is not None:
            principals.append(f"arn:{partition}:iam::{account}:root")
        resources = [method_resource(STAGE, method, path) for method, path in METHODS]
        review["api_gateway"] = {
            "authorization_type": "AWS_IAM",
            "response_transfer_mode": "STREAM",
            "invoker_policy": api_invoker_policy(methods),
            "resource_policy": api_resource_policy(resources, principals, private.vpc_endpoint_ids if private else ())
            if principals
            else None,
            "keep_function_url": front.api_gateway.keep_function_url,
        }
    return {"front_door": review}
