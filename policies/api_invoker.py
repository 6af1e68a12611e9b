"""Who may call a tenant's API Gateway front door: exactly its two methods; private APIs only via their VPC endpoints.

AuthorizationType AWS_IAM on a REST API method means API Gateway authorizes `execute-api:Invoke` on the
method's ARN `arn:<partition>:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<path>`
(https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-control-access-using-iam-policies-to-invoke-api.html).
Callers of this account attach the identity policy below; callers of other accounts (and, for PRIVATE
APIs, every caller) also need the API's resource policy to allow them. For private APIs, a Deny of any
request not arriving through the listed VPC endpoints (`aws:SourceVpce`) keeps the API private even to
principals the identity side allows (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-private-api-create.html).
"""

from __future__ import annotations

from collections.abc import Sequence

from policies.document import PolicyDocument, Statement, allow, document

ACTION = "execute-api:Invoke"
# The API's two methods, as (HTTP method, resource path): what the service serves (lambdas/endpoint/asgi_app.py).
METHODS: tuple[tuple[str, str], ...] = (("POST", "/v1/query"), ("GET", "/healthz"))


def api_invoker_policy(method_arns: Sequence[str]) -> PolicyDocument:
    """The identity policy a calling role attaches: Invoke on these method ARNs and nothing else."""
    return document([allow("InvokeTheTenantApiMethods", [ACTION], list(method_arns))])


def api_resource_policy(
    method_resources: Sequence[str],
    principals: Sequence[str],
    vpc_endpoint_ids: Sequence[str] = (),
) -> PolicyDocument:
    """The REST API's resource policy: Allow the principals (invoker ARNs; for private APIs also the
    account, which delegates to its identity policies) on the methods; Deny outside the VPC endpoints."""
    for principal in principals:
        if principal.strip() in ("*", ""):
            raise ValueError("the API's resource policy never allows '*': name IAM principals")
    statements: list[Statement] = [
        {
            "Sid": "InvokersMayCallTheMethods",
            "Effect": "Allow",
            "Principal": {"AWS": sorted(set(principals)) if len(set(principals)) > 1 else principals[0]},
            "Action": ACTION,
            "Resource": list(method_resources),
        }
    ]
    if vpc_endpoint_ids:
        statements.append(
            {
                "Sid": "OnlyThroughTheTenantsVpcEndpoints",
                "Effect": "Deny",
                "Principal": "*",
                "Action": ACTION,
                "Resource": list(method_resources),
                "Condition": {"StringNotEquals": {"aws:SourceVpce": sorted(vpc_endpoint_ids)}},
            }
        )
    return document(statements)


def method_resource(stage: str, method: str, path: str) -> str:
    """`execute-api:/<stage>/<METHOD>/<path>`: the resource policy's shorthand for this API's own method ARN."""
    return f"execute-api:/{stage}/{method}{path}"
