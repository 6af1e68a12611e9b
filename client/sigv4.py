"""SigV4 for Lambda function URLs (`AuthType: AWS_IAM`), done by botocore's own signer.

Function URLs check the signature of the `lambda` service in the function's region. A POST must
also carry `x-amz-content-sha256` (the hex SHA-256 of the body) and have it signed, so the body
that is sent is exactly the body that was signed. Nothing here signs by hand: `SigV4Auth` on an
`AWSRequest` computes the headers, and the caller sends them unchanged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials, ReadOnlyCredentials

SERVICE = "lambda"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
# https://<url-id>.lambda-url.<region>.on.aws/ (docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html)
_FUNCTION_URL_HOST = re.compile(r"^[a-z0-9]+\.lambda-url\.(?P<region>[a-z0-9-]+)\.on\.aws$")


class SigningError(Exception):
    """Signing cannot happen: no credentials found, or no region to sign for."""


def is_local(url: str) -> bool:
    """True for the loopback endpoint `akb local` starts: it is never signed."""
    return (urlsplit(url).hostname or "") in LOCAL_HOSTS


def region_from_url(url: str) -> str | None:
    """The region of a function URL (`...lambda-url.<region>.on.aws`), None for any other host."""
    match = _FUNCTION_URL_HOST.match(urlsplit(url).hostname or "")
    return match.group("region") if match else None


def payload_hash(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def sign(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    credentials: Credentials | ReadOnlyCredentials,
    region: str,
) -> dict[str, str]:
    """`headers` plus the SigV4 headers (Authorization, X-Amz-Date, X-Amz-Content-SHA256 and,
    for temporary credentials, X-Amz-Security-Token). Every header passed in is signed, so send
    all of them with exactly these values; the Host header is derived from `url`, as HTTP clients do.
    """
    if credentials is None:
        raise SigningError("no AWS credentials to sign with")
    signed_headers = {**headers, "X-Amz-Content-SHA256": payload_hash(body)}
    request = AWSRequest(method=method, url=url, data=body, headers=signed_headers)
    SigV4Auth(credentials, SERVICE, region).add_auth(request)
    return dict(request.headers.items())


def default_credentials() -> Credentials:
    """The standard AWS chain (environment, profiles, SSO, container and instance roles).

    Returned unfrozen: temporary credentials refresh themselves; `frozen()` pins one set per request.
    """
    import botocore.session

    credentials = botocore.session.Session().get_credentials()
    if credentials is None:
        raise SigningError(
            "no AWS credentials found (environment, ~/.aws profiles, SSO or an instance role); "
            "configure them, or call a local endpoint (akb ask --local)"
        )
    return credentials


def frozen(credentials: Credentials | ReadOnlyCredentials) -> ReadOnlyCredentials:
    """One consistent key/secret/token triple, so a refresh never lands mid-signature."""
    if isinstance(credentials, Credentials):
        return credentials.get_frozen_credentials()
    return credentials
