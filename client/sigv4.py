"""SigV4 for the endpoint's two front doors, done by botocore's own signer.

Function URLs (`AuthType: AWS_IAM`) check the signature of the `lambda` service in the function's region;
API Gateway methods with AuthorizationType AWS_IAM check the `execute-api` service's
(https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-control-access-using-iam-policies-to-invoke-api.html).
`service_for` picks it from the URL: a function URL host signs for `lambda`, anything else (an
execute-api host, or a custom domain, which only the API Gateway front door has) for `execute-api`.
A custom domain names no region: pass it (`--region`). A POST must
also carry `x-amz-content-sha256` (the hex SHA-256 of the body) and have it signed, so the body
that is sent is exactly the body that was signed. Nothing here signs by hand: `SigV4Auth` on an
`AWSRequest` computes the headers, and the caller sends them unchanged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from client.exit_codes import SetupError

if TYPE_CHECKING:  # botocore loads when a request is signed: `akb ask --local` never pays for it
    from botocore.credentials import Credentials, ReadOnlyCredentials

SERVICE = "lambda"  # function URLs
API_SERVICE = "execute-api"  # API Gateway (execute-api host or custom domain)
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
# https://<url-id>.lambda-url.<region>.on.aws/ (docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html)
_FUNCTION_URL_HOST = re.compile(r"^[a-z0-9]+\.lambda-url\.(?P<region>[a-z0-9-]+)\.on\.aws$")


class SigningError(SetupError):
    """Signing cannot happen: no credentials found, or no region to sign for."""


def is_local(url: str) -> bool:
    """True for the loopback endpoint `akb local` starts: it is never signed."""
    return (urlsplit(url).hostname or "") in LOCAL_HOSTS


# https://<api-id>.execute-api.<region>.amazonaws.com/<stage>/ (API Gateway developer guide, how-to-call-api);
# private APIs also answer at https://<api-id>-<vpce-id>.execute-api.<region>.vpce.amazonaws.com/<stage>/.
_API_HOST = re.compile(r"^[a-z0-9-]+\.execute-api\.(?P<region>[a-z0-9-]+)\.(vpce\.)?amazonaws\.com(\.cn)?$")


def region_from_url(url: str) -> str | None:
    """The region of a function URL or execute-api URL, None for any other host (a custom domain)."""
    host = urlsplit(url).hostname or ""
    match = _FUNCTION_URL_HOST.fullmatch(host) or _API_HOST.fullmatch(host)
    return match.group("region") if match else None


def is_function_url(url: str) -> bool:
    return bool(_FUNCTION_URL_HOST.fullmatch(urlsplit(url).hostname or ""))


def service_for(url: str) -> str:
    """`lambda` for a function URL, `execute-api` for every other signed host (execute-api or a custom domain).

    A loopback URL is signed only when a caller forces it (tests against a local capture server): as a
    function URL, unless the caller names the service."""
    return SERVICE if is_function_url(url) or is_local(url) else API_SERVICE


def payload_hash(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def sign(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    credentials: Credentials | ReadOnlyCredentials,
    region: str,
    service: str | None = None,
) -> dict[str, str]:
    """`headers` plus the SigV4 headers (Authorization, X-Amz-Date, X-Amz-Content-SHA256 and,
    for temporary credentials, X-Amz-Security-Token). Every header passed in is signed, so send
    all of them with exactly these values; the Host header is derived from `url`, as HTTP clients do.
    `service` defaults to `service_for(url)`.
    """
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest

    if credentials is None:
        raise SigningError("no AWS credentials to sign with")
    signed_headers = {**headers, "X-Amz-Content-SHA256": payload_hash(body)}
    request = AWSRequest(method=method, url=url, data=body, headers=signed_headers)
    SigV4Auth(credentials, service or service_for(url), region).add_auth(request)
    return dict(request.headers.items())


def default_credentials() -> Credentials:
    """The standard AWS chain (environment, profiles, SSO, container and instance roles).

    Returned unfrozen: temporary credentials refresh themselves; `frozen()` pins one set per request.
    """
    from client.aws_session import session

    credentials = session().get_credentials()  # the CLI's --profile when given, else the standard chain
    if credentials is None:
        raise SigningError(
            "no AWS credentials found (environment, ~/.aws profiles, SSO or an instance role); "
            "configure them, or call a local endpoint (akb ask --local)"
        )
    return credentials


def frozen(credentials: Credentials | ReadOnlyCredentials) -> ReadOnlyCredentials:
    """One consistent key/secret/token triple, so a refresh never lands mid-signature."""
    from botocore.credentials import Credentials

    if isinstance(credentials, Credentials):
        return credentials.get_frozen_credentials()
    return credentials
