"""What a caller needs to call a tenant's endpoint: both actions a function URL requires since 2025-10.

https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html: an AWS_IAM function URL needs
`lambda:InvokeFunctionUrl` and, for URLs created after October 2025, `lambda:InvokeFunction` with
`lambda:InvokedViaFunctionUrl = true` (docs/facts-and-decisions.md). The conditions keep the grant from reaching the
function by any other route (a direct Invoke, an unauthenticated URL).
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.document import PolicyDocument, Statement, allow, document

AUTH_TYPE = "AWS_IAM"  # the only auth type this project's function URLs ever have


def invoker_statements(function_arn: str) -> list[Statement]:
    return [
        allow(
            "InvokeTheEndpointThroughItsIamAuthenticatedUrl",
            ["lambda:InvokeFunctionUrl"],
            function_arn,
            condition={"StringEquals": {"lambda:FunctionUrlAuthType": AUTH_TYPE}},
        ),
        allow(
            "InvokeTheEndpointOnlyViaItsFunctionUrl",
            ["lambda:InvokeFunction"],
            function_arn,
            condition={"Bool": {"lambda:InvokedViaFunctionUrl": "true"}},
        ),
    ]


def invoker_policy(function_arn: str) -> PolicyDocument:
    return document(invoker_statements(function_arn))


@dataclass(frozen=True)
class UrlPermission:
    """One resource-based permission (`AWS::Lambda::Permission`) on the endpoint function."""

    principal: str
    action: str
    function_url_auth_type: str | None = None
    invoked_via_function_url: bool | None = None


def url_permissions(principal_arn: str) -> list[UrlPermission]:
    """The pair a configured invoker gets on the function, so callers in other accounts can call too."""
    if principal_arn.strip() in ("*", "") or ":iam::" not in principal_arn:
        raise ValueError(f"'{principal_arn}' is not an IAM role or user ARN; the endpoint is never public")
    return [
        UrlPermission(principal_arn, "lambda:InvokeFunctionUrl", function_url_auth_type=AUTH_TYPE),
        UrlPermission(principal_arn, "lambda:InvokeFunction", invoked_via_function_url=True),
    ]
