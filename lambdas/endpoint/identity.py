"""Who is calling, and which end-user id (if any) Bedrock may filter documents by.

The caller comes only from the request context the Lambda Web Adapter puts in the
`x-amzn-request-context` header (the function URL verified the SigV4 signature; the adapter
overwrites any client-sent copy), never from the body. `userContext.userId` is document
filtering, not authorization (FACTS.md), so it is only ever an identity this module verified:

- `none`: no userContext; a body `userId` is refused (403), because it would be silently ignored.
- `caller`: the caller's own name (assumed-role session name, IAM user name); a body `userId` is
  refused (403). The session name is chosen by whoever calls sts:AssumeRole, so this is only an
  end user's identity when the invoker role's trust policy pins it (`sts:RoleSessionName`;
  docs/security.md). The function URL request context (`authorizer.iam`: accessKey, accountId,
  callerId, cognitoIdentity, principalOrgId, userArn, userId) carries no source identity to
  prefer instead, so the session name is the best identity available here.
- `trusted`: a caller whose role is in `trusted_callers` (the tenant's front end that
  authenticates end users) may pass the end user's `userId`; without one, or for any other
  caller, the caller's own name is used as in `caller`; a body `userId` from an untrusted
  caller is refused (403).

Local mode (`AKB_LOCAL_MODE=1`, set only by `akb local` and tests) accepts a missing header and
uses `AKB_LOCAL_CALLER_ARN` as the caller; a request may still send its own header to act as
somebody else. Outside local mode a request without a verified caller gets 401.
Local mode refuses to start inside Lambda (`AWS_LAMBDA_FUNCTION_NAME` present, even empty): there it would turn
every unsigned-context request into the default caller, so a stray variable fails closed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from lambdas.endpoint.api_errors import ApiError

CONTEXT_HEADER = "x-amzn-request-context"
LOCAL_MODE_ENV = "AKB_LOCAL_MODE"
LOCAL_CALLER_ENV = "AKB_LOCAL_CALLER_ARN"
LOCAL_DEFAULT_CALLER = "arn:aws:sts::000000000000:assumed-role/akb-local/developer"
USER_CONTEXT_MODES = ("none", "caller", "trusted")

LAMBDA_MARKER_ENV = "AWS_LAMBDA_FUNCTION_NAME"  # set by the Lambda runtime in every function


def local_mode_enabled(environ: Mapping[str, str]) -> bool:
    """Whether `AKB_LOCAL_MODE=1`; raises RuntimeError if so inside a Lambda function (fail closed)."""
    if environ.get(LOCAL_MODE_ENV) != "1":
        return False
    if LAMBDA_MARKER_ENV in environ:  # present at all, even empty: fail closed
        raise RuntimeError(
            f"{LOCAL_MODE_ENV}=1 is set in Lambda function '{environ[LAMBDA_MARKER_ENV]}': local mode accepts "
            "requests without a verified caller and is for `akb local` and tests only; remove "
            f"{LOCAL_MODE_ENV} (and {LOCAL_CALLER_ENV}) from the function's environment"
        )
    return True


_ARN = re.compile(r"^arn:(?P<partition>aws[a-z-]*):(?P<service>iam|sts)::(?P<account>\d{12}):(?P<resource>.+)$")


@dataclass(frozen=True)
class Caller:
    arn: str  # as the request context gives it
    account_id: str
    principal: str  # assumed-role ARNs normalized to their role ARN: what trusted_callers lists
    name: str | None  # session name or user name: the user id `caller` mode passes
    request_id: str | None = None  # the Lambda request id, when the adapter provided one


def normalize_principal(arn: str) -> str:
    """`arn:aws:sts::A:assumed-role/R/S` -> `arn:aws:iam::A:role/R`; role paths are dropped
    (an assumed-role ARN carries none), so `role/team/R` and `role/R` compare equal."""
    match = _ARN.match(arn)
    if not match:
        return arn
    partition, service, account, resource = match.group("partition", "service", "account", "resource")
    kind, _, rest = resource.partition("/")
    if service == "sts" and kind == "assumed-role" and "/" in rest:
        return f"arn:{partition}:iam::{account}:role/{rest.split('/', 1)[0]}"
    if service == "iam" and kind == "role" and rest:
        return f"arn:{partition}:iam::{account}:role/{rest.rsplit('/', 1)[-1]}"
    return arn


def caller_from_arn(arn: str, request_id: str | None = None) -> Caller:
    """A Caller from an IAM/STS ARN; raises ApiError 401 for anything that is not one."""
    match = _ARN.match(arn)
    if not match:
        raise ApiError(401, "unauthenticated", "the request context does not name an IAM principal")
    kind, _, rest = match.group("resource").partition("/")
    name: str | None = None
    if kind in ("assumed-role", "federated-user", "user") and rest:
        name = rest.rsplit("/", 1)[-1] or None
        if kind == "assumed-role" and "/" not in rest:
            name = None  # an assumed role without a session name: nobody to name
    return Caller(arn, match.group("account"), normalize_principal(arn), name, request_id)


def parse_context(raw: str) -> tuple[str | None, str | None]:
    """(userArn, requestId) from the header's JSON; (None, ...) when it names no IAM caller."""
    try:
        context = json.loads(raw)
    except (ValueError, RecursionError):
        return None, None
    if not isinstance(context, dict):
        return None, None
    request_id = context.get("requestId") if isinstance(context.get("requestId"), str) else None
    authorizer = context.get("authorizer")
    iam = authorizer.get("iam") if isinstance(authorizer, dict) else None
    arn = iam.get("userArn") if isinstance(iam, dict) else None
    return (arn if isinstance(arn, str) and arn else None), request_id


def caller_from_headers(headers: Mapping[str, str], local_mode: bool, local_caller_arn: str | None = None) -> Caller:
    """The verified caller of a request, or ApiError 401."""
    raw = headers.get(CONTEXT_HEADER)
    arn, request_id = parse_context(raw) if raw else (None, None)
    if arn is None and local_mode and raw is None:
        arn = local_caller_arn or LOCAL_DEFAULT_CALLER
    if arn is None:
        raise ApiError(
            401,
            "unauthenticated",
            "no verified caller: call the endpoint through its AWS_IAM function URL with a SigV4-signed request",
        )
    return caller_from_arn(arn, request_id)


def resolve_user_id(
    user_context: str, caller: Caller, requested: str | None, trusted_callers: list[str] | tuple[str, ...]
) -> str | None:
    """The userContext.userId to send upstream (None: send no userContext), or ApiError 403."""
    if user_context == "none":
        if requested is not None:
            raise ApiError(
                403,
                "user_id_not_allowed",
                "this tenant does not use document ACLs (user_context: none); remove 'userId'",
            )
        return None
    trusted = {normalize_principal(arn) for arn in trusted_callers}
    if requested is not None:
        if user_context == "trusted" and caller.principal in trusted:
            return requested
        reason = (
            "this tenant uses the caller's own identity (user_context: caller)"
            if user_context == "caller"
            else f"'{caller.principal}' is not one of this tenant's trusted callers"
        )
        raise ApiError(403, "user_id_not_allowed", f"{reason}; remove 'userId'")
    if caller.name is None:
        raise ApiError(
            403,
            "user_id_unavailable",
            f"cannot derive a user id from the caller '{caller.arn}' (user_context: {user_context})",
        )
    return caller.name
