"""What a check reports, and how an AWS error becomes a report line instead of a stack trace.

Every AWS call goes through `aws_call(action, fn, **kwargs)`: a failure raises `CallFailed`, which
carries the IAM action the call needs, so the line can say which permission is missing. Text that
comes from AWS (error messages, failure reasons) passes through `redact()` first: the report names
only what the config names, never an ARN or an account id it did not configure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Level(Enum):
    OK = "OK"
    WARN = "WARN"  # deployable, but worth acting on
    FAIL = "FAIL"  # the deploy (or the tenant's requests) would fail, or the check could not run


@dataclass(frozen=True)
class Finding:
    level: Level
    check: str  # short name, e.g. "cdk-bootstrap"
    message: str  # what was found and, unless OK, how to fix it
    blocking: bool = False  # a FAIL after which no other check can be trusted (wrong account)

    def line(self) -> str:
        return f"{self.level.value:<4} {self.check:<18} {self.message}"


def ok(check: str, message: str) -> Finding:
    return Finding(Level.OK, check, message)


def warn(check: str, message: str) -> Finding:
    return Finding(Level.WARN, check, message)


def fail(check: str, message: str, *, blocking: bool = False) -> Finding:
    return Finding(Level.FAIL, check, message, blocking)


# Error codes by meaning, as botocore reports them (`ClientError.response["Error"]["Code"]`).
ACCESS_DENIED_CODES = frozenset(
    {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException", "AuthorizationError"}
)
THROTTLING_CODES = frozenset(
    {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded", "ThrottledException"}
)
NOT_FOUND_CODES = frozenset(
    {"ResourceNotFoundException", "ParameterNotFound", "NoSuchEntity", "NoSuchResourceException"}
)


class CallFailed(Exception):
    """An AWS call failed; `code` is the service's error code (or the botocore error's class name)."""

    def __init__(self, action: str, code: str, message: str, *, unreachable: bool = False) -> None:
        super().__init__(f"{action}: {code}")
        self.action = action
        self.code = code
        self.message = message
        self.unreachable = unreachable

    @property
    def not_found(self) -> bool:
        return self.code in NOT_FOUND_CODES


class CredentialsMissing(Exception):
    """No credentials, or credentials AWS rejects: nothing can be checked (exit status 2)."""


REJECTED_CREDENTIAL_CODES = frozenset(
    {
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "SignatureDoesNotMatch",
        "UnrecognizedClientException",
    }
)


def aws_call(action: str, fn: Callable[..., Any], **kwargs: Any) -> Any:
    """`fn(**kwargs)`, with any botocore failure turned into `CallFailed(action, ...)`."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    try:
        return fn(**kwargs)
    except NoCredentialsError as error:
        raise CredentialsMissing("no AWS credentials found") from error
    except ClientError as error:
        details = error.response.get("Error", {})
        code = details.get("Code", "Unknown")
        if code in REJECTED_CREDENTIAL_CODES:
            raise CredentialsMissing(
                f"AWS rejected the credentials ({code}): refresh them (e.g. aws sso login)"
            ) from None
        raise CallFailed(action, code, details.get("Message", "")) from None
    except BotoCoreError as error:  # endpoint unreachable, timeouts, bad region: no HTTP answer at all
        raise CallFailed(action, type(error).__name__, "", unreachable=True) from None


def from_failure(check: str, failure: CallFailed, region: str) -> Finding:
    """The line for a call that failed in a way the check did not expect: always FAIL (not checked)."""
    if failure.code in ACCESS_DENIED_CODES:
        return fail(check, f"access denied: the caller needs {failure.action} (docs/operations.md lists them all)")
    if failure.code in THROTTLING_CODES:
        return fail(check, f"throttled ({failure.action}) after botocore's retries: run akb doctor again later")
    if failure.unreachable:
        service = failure.action.split(":", 1)[0]
        return fail(
            check,
            f"could not reach the {service} endpoint in {region} ({failure.code}): check the network, proxy "
            "and any AWS_ENDPOINT_URL* variable",
        )
    detail = f": {redact(failure.message)}" if failure.message else ""
    return fail(check, f"{failure.action} failed with {failure.code}{detail}")


_ARN = re.compile(r"arn:aws[a-zA-Z-]*:[^\s,;'\"()]+")
_ACCOUNT = re.compile(r"(?<!\d)\d{12}(?!\d)")


def redact(text: str, allowed: tuple[str, ...] = ()) -> str:
    """AWS text without ARNs or account ids, except those in `allowed` (what the config names)."""
    kept = {value: f"\0{index}\0" for index, value in enumerate(v for v in allowed if v)}
    for value, marker in kept.items():
        text = text.replace(value, marker)
    text = _ACCOUNT.sub("<account>", _ARN.sub("<arn>", text))
    for value, marker in kept.items():
        text = text.replace(marker, value)
    return text
