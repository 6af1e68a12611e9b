"""`akb local --front-door api_gateway`: the endpoint fed the request context an API Gateway REST API gives it.

In Lambda, API Gateway verifies the SigV4 signature, puts the caller in the REST request context
(`identity.userArn`, AWS_IAM methods) and the Lambda Web Adapter passes that context to the app as
JSON in `x-amzn-request-context`. Locally there is no API Gateway and no adapter, so this ASGI
middleware plays both: every request gets a context of that shape naming the local caller, and then
runs through the same identity code (identity.py) as in Lambda — with no local-mode fallback left to
hide a missing context. It appends the header, as adapters before v0.7.2 did: a client that sends its
own copy is refused (401 `duplicate_request_context`), exactly as a forged copy would be in Lambda.

Only for local mode (`AKB_LOCAL_MODE=1`, which refuses to start inside Lambda): a front door that
names any caller it is told to must never run where callers are real.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from lambdas.endpoint.http_exchange import App, Receive, Scope, Send
from lambdas.endpoint.identity import CONTEXT_HEADER, caller_from_arn

STAGE = "v1"  # the stage name the API Gateway construct deploys (cdk_constructs/api_front_door.py)
LOCAL_API_ID = "local00000"


def api_gateway_context(caller_arn: str, method: str, path: str, source_ip: str) -> dict[str, Any]:
    """A REST API request context as the adapter serialises it (lambda_http ApiGatewayProxyRequestContext)."""
    caller = caller_from_arn(caller_arn)
    now = time.time()
    return {
        "accountId": caller.account_id,
        "apiId": LOCAL_API_ID,
        "stage": STAGE,
        "requestId": str(uuid.uuid4()),
        "resourcePath": path,
        "path": f"/{STAGE}{path}",
        "httpMethod": method,
        "requestTimeEpoch": int(now * 1000),
        "protocol": "HTTP/1.1",
        "authorizer": {},
        "identity": {
            "accountId": caller.account_id,
            "caller": caller_arn.rsplit(":", 1)[-1],
            "userArn": caller_arn,
            "sourceIp": source_ip,
            "accessKey": None,
            "cognitoIdentityPoolId": None,
            "cognitoIdentityId": None,
            "cognitoAuthenticationType": None,
            "cognitoAuthenticationProvider": None,
            "user": None,
            "userAgent": None,
            "apiKey": None,
            "apiKeyId": None,
        },
    }


class LocalApiGateway:
    """ASGI middleware: appends an API-Gateway-shaped `x-amzn-request-context` naming `caller_arn`."""

    def __init__(self, app: App, caller_arn: str):
        caller_from_arn(caller_arn)  # an ARN that names no IAM principal fails at start, not per request
        self.app = app
        self.caller_arn = caller_arn

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            client = scope.get("client") or ("127.0.0.1", 0)
            context = api_gateway_context(
                self.caller_arn, scope.get("method", "GET"), scope.get("path", "/"), client[0]
            )
            headers = list(scope.get("headers", []))
            headers.append((CONTEXT_HEADER.encode(), json.dumps(context, separators=(",", ":")).encode()))
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)
