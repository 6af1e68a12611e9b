"""Who is calling, and which end-user id (if any) Bedrock may filter documents by.

The caller comes only from the request context the Lambda Web Adapter puts in the
`x-amzn-request-context` header (the function URL verified the SigV4 signature), never from the
body. The adapter overwrites a client-sent copy only from v0.7.2 (layer 18; older ones appended
theirs after the client's): the schema refuses older layers, and a request that carries the header
more than once is refused here (401 `duplicate_request_context`, in every mode), reading the raw
ASGI header list because a header lookup (`HttpRequest.headers.get`) returns the first copy — the client's.

`userContext.userId` is document filtering, not authorization (docs/security.md), so it is only
ever an identity somebody vouches for; a caller never gets a user identity it chose itself:

- `none`: no userContext; a body `userId` is refused (403), because it would be silently ignored.
- `caller` and `trusted`: the user id is, in this order,
  1. the body's `userId`, only from an invoker marked `trusted` (a front end that authenticates its
     end users) and only with `user_context: trusted`; anybody else sending one gets 403;
  2. an IAM user's name (set by the account's IAM administrators, not by the caller);
  3. the role session name, only for invokers the tenant lists with `user_id_from_session_name`
     (their trust policy pins `sts:RoleSessionName`; otherwise whoever calls sts:AssumeRole picks
     it). The function URL request context (`authorizer.iam`) carries no source identity to use.
  Anything else (an unlisted role's session name, a federated user's self-chosen name, a trusted
  front end that sent no `userId`) is refused with 403 `user_identity_unverified`: for a tenant
  whose documents carry ACLs, no identity means no request, never a guessed one.

Two front doors put the caller in two shapes of request context (docs/front-door.md): a function URL's
`authorizer.iam.userArn` (API Gateway HTTP API payload 2.0 shape) and an API Gateway REST API's
`identity.userArn` (AWS_IAM methods; the adapter serialises lambda_http's ApiGatewayProxyRequestContext).
The endpoint accepts only the shapes of the front doors its stack created (`AKB_REQUEST_CONTEXTS`,
default `function_url`): a context of the other shape names no caller (401).

Local mode (`AKB_LOCAL_MODE=1`, set only by `akb local` and tests) accepts a missing header and
uses `AKB_LOCAL_CALLER_ARN` as the caller; a request may still send its own header to act as
somebody else. Outside local mode a request without a verified caller gets 401.
Local mode refuses to start inside Lambda (`AWS_LAMBDA_FUNCTION_NAME` present, even empty): there it would turn
every unsigned-context request into the default caller, so a stray variable fails closed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from contract.enums import REQUEST_CONTEXTS, RequestContext
from contract.env_vars import LAMBDA_MARKER as LAMBDA_MARKER_ENV
from contract.env_vars import LOCAL_CALLER_ARN as LOCAL_CALLER_ENV
from contract.env_vars import LOCAL_MODE as LOCAL_MODE_ENV
from contract.env_vars import REQUEST_CONTEXTS as REQUEST_CONTEXTS_ENV
from lambdas.endpoint.api_errors import ApiError

CONTEXT_HEADER = "x-amzn-request-context"
LOCAL_DEFAULT_CALLER = "arn:aws:sts::000000000000:assumed-role/akb-local/developer"
FUNCTION_URL: RequestContext = "function_url"
API_GATEWAY: RequestContext = "api_gateway"
DEFAULT_REQUEST_CONTEXTS: tuple[str, ...] = (FUNCTION_URL,)


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


# Matched with fullmatch and ended by \Z: Python's `$` also matches before a final newline, which let
# `...:user/alice\n` name `alice` (issue 26).
_ARN = re.compile(r"^arn:(?P<partition>aws[a-z-]*):(?P<service>iam|sts)::(?P<account>\d{12}):(?P<resource>.+)\Z")
_ACCOUNT_ID = re.compile(r"^\d{12}\Z")


@dataclass(frozen=True)
class Caller:
    arn: str  # as the request context gives it
    account_id: str
    principal: str  # assumed-role ARNs normalized to their role ARN: what trusted_callers lists
    name: str | None  # session name or user name
    request_id: str | None = None  # the Lambda request id, when the adapter provided one
    kind: str = ""  # assumed-role | user | federated-user | role | root | jwt ...: who chose `name`
    # The account that owns the endpoint function (the request context's `accountId`); None: unknown.
    owner_account: str | None = None


def normalize_principal(arn: str) -> str:
    """`arn:aws:sts::A:assumed-role/R/S` -> `arn:aws:iam::A:role/R`; role paths are dropped
    (an assumed-role ARN carries none), so `role/team/R` and `role/R` compare equal."""
    match = _ARN.fullmatch(arn)
    if not match:
        return arn
    partition, service, account, resource = match.group("partition", "service", "account", "resource")
    kind, _, rest = resource.partition("/")
    if service == "sts" and kind == "assumed-role" and "/" in rest:
        return f"arn:{partition}:iam::{account}:role/{rest.split('/', 1)[0]}"
    if service == "iam" and kind == "role" and rest:
        return f"arn:{partition}:iam::{account}:role/{rest.rsplit('/', 1)[-1]}"
    return arn


def caller_from_arn(arn: str, request_id: str | None = None, owner_account: str | None = None) -> Caller:
    """A Caller from an IAM/STS ARN; raises ApiError 401 for anything that is not one."""
    match = _ARN.fullmatch(arn)
    if not match:
        raise ApiError(401, "unauthenticated", "the request context does not name an IAM principal")
    kind, _, rest = match.group("resource").partition("/")
    name: str | None = None
    if kind in ("assumed-role", "federated-user", "user") and rest:
        name = rest.rsplit("/", 1)[-1] or None
        if kind == "assumed-role" and "/" not in rest:
            name = None  # an assumed role without a session name: nobody to name
    return Caller(arn, match.group("account"), normalize_principal(arn), name, request_id, kind, owner_account)


def request_contexts_from(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The context shapes this function accepts; RuntimeError for a value the stack never writes (fail closed)."""
    raw = environ.get(REQUEST_CONTEXTS_ENV, "")
    kinds = tuple(kind.strip() for kind in raw.split(",") if kind.strip()) or DEFAULT_REQUEST_CONTEXTS
    unknown = [kind for kind in kinds if kind not in REQUEST_CONTEXTS]
    if unknown:
        raise RuntimeError(f"{REQUEST_CONTEXTS_ENV} names {', '.join(unknown)}; allowed: {', '.join(REQUEST_CONTEXTS)}")
    return kinds


def _context_arn(context: dict, request_contexts: Iterable[str]) -> str | None:
    """The caller ARN of one context, read only in the shapes this function's front doors produce.

    An API Gateway REST context carries `identity` (and no `authorizer.iam`); a function URL's carries
    `authorizer.iam` (and no `identity`): a context is read in the one shape its keys say it has."""
    if "identity" in context:
        if API_GATEWAY not in request_contexts:
            return None
        holder = context.get("identity")
    else:
        if FUNCTION_URL not in request_contexts:
            return None
        authorizer = context.get("authorizer")
        holder = authorizer.get("iam") if isinstance(authorizer, dict) else None
    arn = holder.get("userArn") if isinstance(holder, dict) else None
    return arn if isinstance(arn, str) and arn else None


def parse_context(
    raw: str, request_contexts: Iterable[str] = DEFAULT_REQUEST_CONTEXTS
) -> tuple[str | None, str | None]:
    """(userArn, requestId) from the header's JSON; (None, ...) when it names no IAM caller."""
    arn, request_id, _ = _parse_context(raw, request_contexts)
    return arn, request_id


def _parse_context(raw: str, request_contexts: Iterable[str]) -> tuple[str | None, str | None, str | None]:
    """(userArn, requestId, the function owner's account id) from the header's JSON.

    The owner is the context's top-level `accountId`: for a function URL "the AWS account ID of the
    function owner", for an API Gateway REST API the API owner's, the same account (ledger). Anything
    but 12 digits is no owner."""
    try:
        context = json.loads(raw)
    except (ValueError, RecursionError):
        return None, None, None
    if not isinstance(context, dict):
        return None, None, None
    request_id = context.get("requestId") if isinstance(context.get("requestId"), str) else None
    owner = context.get("accountId")
    owner = owner if isinstance(owner, str) and _ACCOUNT_ID.fullmatch(owner) else None
    return _context_arn(context, tuple(request_contexts)), request_id, owner


def context_header_values(raw_headers: Iterable[tuple[bytes, bytes]]) -> list[str]:
    """Every `x-amzn-request-context` value of a request, from the ASGI scope's raw header list."""
    name = CONTEXT_HEADER.encode()
    return [value.decode("latin-1") for key, value in raw_headers if key.lower() == name]


def single_context_header(raw_headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The request context header, or ApiError 401 when a request carries it more than once."""
    values = context_header_values(raw_headers)
    if len(values) > 1:
        raise ApiError(
            401,
            "duplicate_request_context",
            f"the request carries {CONTEXT_HEADER} {len(values)} times; it is set by the Lambda Web Adapter "
            "from the verified caller and a client must not send it",
        )
    return values[0] if values else None


def caller_from_raw_headers(
    raw_headers: Iterable[tuple[bytes, bytes]],
    local_mode: bool,
    local_caller_arn: str | None = None,
    request_contexts: Iterable[str] = DEFAULT_REQUEST_CONTEXTS,
) -> Caller:
    """The verified caller of a request (ASGI raw headers), or ApiError 401."""
    return caller_from_context(single_context_header(raw_headers), local_mode, local_caller_arn, request_contexts)


def caller_from_headers(headers: Mapping[str, str], local_mode: bool, local_caller_arn: str | None = None) -> Caller:
    """The verified caller from a plain mapping (one value per name: tests and tools), or ApiError 401."""
    return caller_from_context(headers.get(CONTEXT_HEADER), local_mode, local_caller_arn)


def caller_from_context(
    raw: str | None,
    local_mode: bool,
    local_caller_arn: str | None = None,
    request_contexts: Iterable[str] = DEFAULT_REQUEST_CONTEXTS,
) -> Caller:
    arn, request_id, owner = _parse_context(raw, request_contexts) if raw else (None, None, None)
    if arn is None and local_mode and raw is None:
        arn = local_caller_arn or LOCAL_DEFAULT_CALLER
        local = _ARN.fullmatch(arn)
        owner = local.group("account") if local else None  # `akb local` runs in its caller's own account
    if arn is None:
        raise ApiError(
            401,
            "unauthenticated",
            "no verified caller: call the endpoint through its AWS_IAM front door (function URL or API) with a "
            "SigV4-signed request",
        )
    return caller_from_arn(arn, request_id, owner)


def _role_name(principal: str) -> str:
    """`arn:aws:iam::A:role/R` -> `role 'R'`: names the caller in a message without its account id."""
    kind, _, rest = principal.rsplit(":", 1)[-1].partition("/")
    return f"{kind} '{rest.rsplit('/', 1)[-1]}'" if rest else "this caller"


def resolve_user_id(
    user_context: str,
    caller: Caller,
    requested: str | None,
    trusted_callers: Iterable[str],
    session_name_callers: Iterable[str] = (),
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
    is_trusted = user_context == "trusted" and caller.principal in trusted
    if requested is not None:
        if is_trusted:
            return requested
        reason = (
            "this tenant uses the caller's own identity (user_context: caller)"
            if user_context == "caller"
            else f"{_role_name(caller.principal)} is not one of this tenant's trusted callers"
        )
        raise ApiError(403, "user_id_not_allowed", f"{reason}; remove 'userId'")
    if caller.name is None:
        raise ApiError(
            403,
            "user_id_unavailable",
            f"the caller has no user or session name to use as a user id (user_context: {user_context})",
        )
    if caller.kind == "jwt":  # a token's user claim: the MCP gateway's CUSTOM_JWT authorizer verified it
        return caller.name
    if caller.kind == "user":  # an IAM user's name, set by that account's IAM administrators
        return _with_account(caller, caller.name)
    if caller.kind == "assumed-role" and caller.principal in {normalize_principal(a) for a in session_name_callers}:
        return _with_account(caller, caller.name)  # the tenant vouches: the trust policy pins sts:RoleSessionName
    raise ApiError(403, "user_identity_unverified", _unverified_message(caller, is_trusted))


def _with_account(caller: Caller, name: str) -> str:
    """The user id of a name an account vouches for: the name in the function's own account, else
    `<account id>:<name>` (IAM user and session names hold no `:`, so the two never meet). An `alice`
    of another account is another person: her own documents' ACLs, cache scope and memory actor."""
    if caller.owner_account is None:  # fail closed: nothing tells whose `alice` this is
        raise ApiError(
            403,
            "user_identity_unverified",
            "the request context does not name the account that owns this endpoint, so a user name cannot be "
            "told apart from the same name in another account; call the endpoint through its front door",
        )
    return name if caller.account_id == caller.owner_account else f"{caller.account_id}:{name}"


def _unverified_message(caller: Caller, is_trusted: bool) -> str:
    if is_trusted:
        return "this tenant's documents carry ACLs and a trusted caller must pass the end user's 'userId'"
    return (
        f"this tenant's documents carry ACLs and nobody vouches for the identity of {_role_name(caller.principal)}: "
        "its session name is chosen by whoever assumes the role. The tenant can list the role as an invoker "
        "with user_id_from_session_name: true once its trust policy pins sts:RoleSessionName (docs/security.md)"
    )


def caller_from_jwt_claims(claims: Mapping[str, object], *, user_claim: str, client_claim: str) -> Caller:
    """A Caller from the claims of a JWT the MCP gateway's CUSTOM_JWT authorizer verified.

    The calling application (`client_claim`, what `trusted_callers` lists for a gateway) is the
    principal; the end user (`user_claim`, e.g. `sub`, set by the identity provider) is the name.
    Raises ApiError 401 when the token names no application: nobody to hold to the rules.
    """
    client = claims.get(client_claim)
    if not isinstance(client, str) or not client:
        raise ApiError(
            401, "unauthenticated", f"the token has no '{client_claim}' claim naming the calling application"
        )
    user = claims.get(user_claim)
    name = user if isinstance(user, str) and user else None
    return Caller(f"token of client '{client}'", "", client, name, kind="jwt")
