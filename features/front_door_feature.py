"""`endpoint.front_door` how callers reach the endpoint: the function URL (default) or an API Gateway REST API.

Every tenant has a front door, so this entry is always enabled; what it contributes depends on the
merged `endpoint:` fields (schema/front_door.py). The endpoint construct builds the door itself (the URL
or cdk_constructs/api_front_door.py under `Endpoint/Api`: its invoke policy, permissions and URL output
are the endpoint's); this feature picks the REST API up after it, puts its alarms and row on the tenant's
monitoring (monitoring/api_metrics.py) and prints the door in `akb policy` (policies/api_invoker.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from features.review_context import ReviewContext
from features.tenant_feature import BuildContext, TenantFeature
from policies.api_invoker import METHODS, api_invoker_policy, api_resource_policy, method_resource
from policies.vpc_access import vpc_access_policy
from schema import Environment, Tenant
from schema.front_door_checks import tenant_front_door

if TYPE_CHECKING:
    from cdk_constructs.api_front_door import ApiFrontDoor
    from cdk_constructs.streaming_endpoint import StreamingEndpoint
    from monitoring.observability_parts import Contribution

STAGE = "api"  # cdk_constructs/api_front_door.STAGE (this module must not import the CDK)


class FrontDoorFeature(TenantFeature["ApiFrontDoor"]):
    name = "front_door"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return True  # every tenant has one; `endpoint.front_door` says which

    def build_beside_endpoint(self, ctx: BuildContext, endpoint: StreamingEndpoint) -> ApiFrontDoor | None:
        return endpoint.api  # the REST API the endpoint built as its door; None with the function URL

    def observability(self, ctx: BuildContext, built: ApiFrontDoor) -> list[Contribution]:
        from monitoring.api_metrics import ApiMetrics, api_observability

        return api_observability(ApiMetrics(built.api.rest_api_name, STAGE))

    def review(self, review: ReviewContext) -> dict[str, Any]:
        """{"front_door": ...}: the kind, SnapStart, the VPC role addition and, with api_gateway, the API's
        invoke and resource policies."""
        tenant = review.scope.tenant
        front = tenant_front_door(review.scope.environment, tenant)
        shown: dict[str, Any] = {"kind": front.front_door, "snapstart": front.snapstart}
        if front.vpc is not None:
            shown["vpc"] = {"attachment": front.vpc.model_dump(), "execution_role_addition": vpc_access_policy()}
        if front.uses_api:
            methods = [review.arn("execute-api", f"<api-id>/{STAGE}/{method}{path}") for method, path in METHODS]
            private = front.api_gateway.private
            principals = [invoker.arn for invoker in tenant.invokers]
            if private is not None:
                principals.append(f"arn:{review.partition}:iam::{review.account}:root")
            resources = [method_resource(STAGE, method, path) for method, path in METHODS]
            shown["api_gateway"] = {
                "authorization_type": "AWS_IAM",
                "response_transfer_mode": "STREAM",
                "invoker_policy": api_invoker_policy(methods),
                "resource_policy": api_resource_policy(
                    resources, principals, private.vpc_endpoint_ids if private else ()
                )
                if principals
                else None,
                "keep_function_url": front.api_gateway.keep_function_url,
            }
        return {"front_door": shown}
