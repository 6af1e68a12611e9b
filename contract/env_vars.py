"""The endpoint's environment variables, and the one function that builds them.

The stack (cdk_constructs/streaming_endpoint.py) and `akb local` (client/commands/local.py) both call
`endpoint_environment`, so the function in Lambda and the process on a laptop read the same names
with the same meaning; the service reads them (lambdas/endpoint/asgi_app.py and the modules it wires).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contract.enums import RequestContext
from contract.settings import TenantSettings

# The tenant's settings, rendered by the stack at synth as compact JSON (contract/settings.py).
TENANT_SETTINGS = "AKB_TENANT_SETTINGS"
# Where the result cache's entries live (docs/cache.md): the tenant's DynamoDB table in AWS, a
# SQLite file under `akb local`. Neither: the tenant runs without a cache.
CACHE_TABLE = "AKB_CACHE_TABLE"
CACHE_PATH = "AKB_CACHE_PATH"
# Where the fair-share token buckets live (docs/quota.md): the environment's DynamoDB table in AWS, a
# SQLite file under `akb local` (every local endpoint of one environment shares it). Neither: the
# tenant's share is enforced by an in-process bucket at its guarantee (never more).
QUOTA_TABLE = "AKB_QUOTA_TABLE"
QUOTA_PATH = "AKB_QUOTA_PATH"
# The request-context shapes of the function's front doors, comma-separated (docs/front-door.md).
REQUEST_CONTEXTS = "AKB_REQUEST_CONTEXTS"
# Local mode: `akb local` and tests only; refuses to start inside Lambda (lambdas/endpoint/identity.py).
LOCAL_MODE = "AKB_LOCAL_MODE"
LOCAL_CALLER_ARN = "AKB_LOCAL_CALLER_ARN"
LOCAL_FRONT_DOOR = "AKB_LOCAL_FRONT_DOOR"  # `api_gateway`: the local stand-in for API Gateway
# The key that seals `done.nextToken` to its request (lambdas/endpoint/page_tokens.py): the stack sets
# its stack id's UUID; required outside local mode.
PAGE_TOKEN_KEY = "AKB_PAGE_TOKEN_KEY"  # noqa: S105 - the variable's name, not a key
LOG_SERVICE = "AKB_LOG_SERVICE"  # the gateway interceptor logs as itself with the endpoint's fields
LOG_LEVEL = "AKB_LOG_LEVEL"
PYTHON = "AKB_PYTHON"  # the interpreter lambdas/run.sh starts (tests and `akb local` pick theirs)
# The gateway interceptor's settings and the agent action's response cap (their own functions).
GATEWAY_SETTINGS = "AKB_GATEWAY_SETTINGS"
AGENT_RESPONSE_MAX_BYTES = "AKB_AGENT_RESPONSE_MAX_BYTES"
# Set by the Lambda runtime in every function: local mode refuses to run where it is present.
LAMBDA_MARKER = "AWS_LAMBDA_FUNCTION_NAME"

# The Lambda Web Adapter (https://github.com/awslabs/aws-lambda-web-adapter): it starts run.sh and
# proxies invocations to ADAPTER_PORT; response_stream is the only mode that streams (any other
# value silently buffers the whole answer).
ADAPTER_PORT_VARIABLE = "AWS_LWA_PORT"
ADAPTER_PORT = "8080"
READINESS_PATH = "/healthz"
ADAPTER_VARIABLES = {
    "AWS_LAMBDA_EXEC_WRAPPER": "/opt/bootstrap",
    "AWS_LWA_INVOKE_MODE": "response_stream",
    ADAPTER_PORT_VARIABLE: ADAPTER_PORT,
    "AWS_LWA_READINESS_CHECK_PATH": READINESS_PATH,
}
# The adapter's SnapStart hook variables and the paths lambdas/endpoint/snapstart.py answers at. No released
# adapter reads them (its CHANGELOG lists them unreleased after v1.0.1, layer 28: docs/front-door.md), so the
# stack does not set them; the app registers the routes only where they are set.
SNAPSTART_BEFORE_CHECKPOINT = "AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH"
SNAPSTART_AFTER_RESTORE = "AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH"
SNAPSTART_BEFORE_CHECKPOINT_PATH = "/_snapstart/before-checkpoint"
SNAPSTART_AFTER_RESTORE_PATH = "/_snapstart/after-restore"


@dataclass(frozen=True)
class FeatureValues:
    """What opt-in tenant features put in the endpoint's environment (each feature passes its value through
    features/endpoint_plan.py); this module alone names the variables."""

    cache_table: str | None = None  # the result cache's DynamoDB table (features/cache_feature.py)
    quota_table: str | None = None  # the environment's fair-share buckets (features/quota_feature.py)


@dataclass(frozen=True)
class LocalRun:
    """What only a local run sets: the caller requests without a request context stand for, the port,
    the SQLite cache file, the SQLite fair-share file and the local front door."""

    caller_arn: str
    port: int
    python: str
    cache_path: str | None = None
    front_door: RequestContext = "function_url"
    quota_path: str | None = None


def endpoint_environment(
    settings: TenantSettings,
    *,
    features: FeatureValues | None = None,
    request_contexts: Sequence[RequestContext] = (),
    local: LocalRun | None = None,
    page_token_key: str | None = None,
) -> dict[str, str]:
    """The endpoint's variables: the adapter's (in Lambda) or local mode's, the settings, and each
    opt-in part's (the features' values such as the cache's table, the front door's request contexts)."""
    variables = dict(ADAPTER_VARIABLES) if local is None else _local_variables(local)
    variables[TENANT_SETTINGS] = settings.to_json()  # tokens inside it become an Fn::Join at synth
    if features is not None and features.cache_table is not None:
        variables[CACHE_TABLE] = features.cache_table
    if local is not None and local.cache_path is not None and settings.cache is not None:
        variables[CACHE_PATH] = local.cache_path
    if features is not None and features.quota_table is not None:
        variables[QUOTA_TABLE] = features.quota_table
    if local is not None and local.quota_path is not None and settings.quota is not None:
        variables[QUOTA_PATH] = local.quota_path
    contexts = list(request_contexts)
    if local is not None and local.front_door == "api_gateway":
        contexts = ["api_gateway"]  # every local request then carries an API Gateway context
    if contexts and contexts != ["function_url"]:
        variables[REQUEST_CONTEXTS] = ",".join(contexts)
    if page_token_key is not None:
        variables[PAGE_TOKEN_KEY] = page_token_key
    return variables


def _local_variables(local: LocalRun) -> dict[str, str]:
    variables = {
        LOCAL_MODE: "1",
        LOCAL_CALLER_ARN: local.caller_arn,
        PYTHON: local.python,
        ADAPTER_PORT_VARIABLE: str(local.port),
    }
    if local.front_door == "api_gateway":
        variables[LOCAL_FRONT_DOOR] = "api_gateway"
    return variables
