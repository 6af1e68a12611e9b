"""The one error path of `akb`: every expected failure becomes one line (cause, then the fix) and an exit code.

Commands raise; they do not print errors. `Failure` is what a command raises for a failure it
recognises itself; anything else that escapes a command reaches `explain()` (client/cli.py calls it
once, for every command), which maps botocore's, httpx's, the endpoint client's and the config's
exceptions to a `Failure` with a code from client/exit_codes.py. What no rule recognises is a bug:
one line saying so (INTERNAL), and `--debug` prints the traceback for the report. Text from AWS is
redacted (no ARN or account id the user did not write) before it is shown.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import IO, Any

import click

from client.exit_codes import ExitCode, SetupError
from client.global_options import current

PROFILE_FIX = "list yours with `aws configure list-profiles`, then pass --profile NAME or set AWS_PROFILE"
CREDENTIALS_FIX = (
    "configure them: `aws configure`, `aws sso login --profile NAME`, --profile NAME, or AWS_ACCESS_KEY_ID/"
    "AWS_SECRET_ACCESS_KEY"
)
REGION_FIX = "pass --region, or set AWS_REGION (or the profile's region)"
CONFIG_FIX = "pass --config DIR or set AKB_CONFIG (docs/client.md, Config discovery)"


class Failure(click.ClickException):
    """An expected failure: printed as `akb <command>: <message>` (one line per problem), exit `code`."""

    def __init__(self, message: str, code: ExitCode = ExitCode.SETUP) -> None:
        super().__init__(message)
        self.code = code
        self.exit_code = int(code)  # type: ignore[misc]  # click exits with it (a ClassVar there)
        self.command = command_path(click.get_current_context(silent=True))

    def show(self, file: IO[Any] | None = None) -> None:
        for line in self.message.splitlines() or [""]:
            click.echo(f"{self.command}: {line}" if line and not line.startswith(" ") else line, err=True)


def command_path(ctx: click.Context | None) -> str:
    """`akb cache stats`: the command as a user types it, whatever the program was called (`python -m client`)."""
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["akb", *names])


def explain(error: BaseException, command: str) -> Failure:
    """The failure line and exit code for an exception that escaped `command`."""
    if isinstance(error, Failure):
        return error
    for rule in _RULES:
        found = rule(error)
        if found is not None:
            message, code = found
            failure = Failure(message, code)
            failure.command = command
            return failure
    failure = Failure(
        f"internal error: {type(error).__name__}: {error} (a bug in akb: rerun with --debug and report the traceback)",
        ExitCode.INTERNAL,
    )
    failure.command = command
    return failure


Found = tuple[str, ExitCode] | None


def _config(error: BaseException) -> Found:
    from schema import ConfigError

    if not isinstance(error, ConfigError):
        return None
    if current().config_source == "default" and any("not found; no environments in" in str(p) for p in error.problems):
        from pathlib import Path

        return (
            f"no config directory found: looked for config/environments/ in {Path.cwd()} and every folder above it; "
            + CONFIG_FIX,
            ExitCode.SETUP,
        )
    return str(error), ExitCode.SETUP


def _setup(error: BaseException) -> Found:
    """What the user's side must fix: a lookup that found nothing, a region, a port."""
    if isinstance(error, SetupError):
        return str(error), ExitCode.SETUP
    if isinstance(error, OSError) and error.errno == errno.EADDRINUSE:
        return f"a port is already in use ({error.strerror}): pick another port", ExitCode.SETUP
    return None


def _botocore(error: BaseException) -> Found:
    from botocore import exceptions as boto

    if isinstance(error, boto.ProfileNotFound):
        return f"AWS profile '{error.kwargs.get('profile')}' not found: {PROFILE_FIX}", ExitCode.SETUP
    if isinstance(error, (boto.NoCredentialsError, boto.PartialCredentialsError, boto.NoAuthTokenError)):
        return f"no usable AWS credentials found: {CREDENTIALS_FIX}", ExitCode.SETUP
    if isinstance(error, (boto.SSOError, boto.TokenRetrievalError, boto.CredentialRetrievalError)):
        return f"AWS credentials could not be loaded ({error}): {CREDENTIALS_FIX}", ExitCode.SETUP
    if isinstance(error, (boto.NoRegionError, boto.InvalidRegionError)):
        return f"no valid AWS region: {REGION_FIX}", ExitCode.SETUP
    if isinstance(error, (boto.ConfigParseError, boto.InvalidConfigError)):
        return f"the AWS config file cannot be read ({error}): fix ~/.aws/config or AWS_CONFIG_FILE", ExitCode.SETUP
    if isinstance(error, boto.ReadTimeoutError):
        return f"AWS did not answer in time ({error}): try again, or check the network", ExitCode.DEADLINE
    if isinstance(error, (boto.EndpointConnectionError, boto.ConnectionClosedError, boto.HTTPClientError)):
        return (
            f"cannot reach AWS ({error}): check the network, proxy, the region and any AWS_ENDPOINT_URL* variable",
            ExitCode.UNAVAILABLE,
        )
    if isinstance(error, boto.ClientError):
        return _client_error(error)
    return None


def _client_error(error: Any) -> Found:
    """An AWS API that answered with an error: rejected credentials, refused, throttled, not found."""
    from client.doctor.findings import (
        ACCESS_DENIED_CODES,
        NOT_FOUND_CODES,
        REJECTED_CREDENTIAL_CODES,
        THROTTLING_CODES,
        redact,
    )

    details = error.response.get("Error", {})
    code, operation = details.get("Code", "Unknown"), error.operation_name
    said = redact(details.get("Message", ""))
    if code in REJECTED_CREDENTIAL_CODES:
        return f"AWS rejected the credentials ({code}): refresh them (`aws sso login`, or new keys)", ExitCode.SETUP
    if code in ACCESS_DENIED_CODES:
        return (
            f"AWS refused {operation} ({code}): the caller needs that permission (docs/operations.md lists each "
            "command's)",
            ExitCode.UNAVAILABLE,
        )
    if code in THROTTLING_CODES:
        return f"AWS throttled {operation} ({code}) past botocore's retries: try again later", ExitCode.UNAVAILABLE
    if code in NOT_FOUND_CODES:
        return f"{operation}: {code} ({said}): is the stack deployed in this account and region?", ExitCode.SETUP
    return f"AWS refused {operation} ({code}: {said})", ExitCode.UNAVAILABLE


def _endpoint(error: BaseException) -> Found:
    """The endpoint client's failures (client/endpoint_client.py) and raw httpx ones."""
    import httpx

    from client import endpoint_client as ec

    if isinstance(error, ec.InvalidRequest):
        return f"the endpoint would refuse this request: {error}", ExitCode.USAGE
    if isinstance(error, ec.EndpointHTTPError):
        if error.code == "deadline":
            return str(error), ExitCode.DEADLINE
        return f"{error}{_http_fix(error.status, error.retry_after)}", ExitCode.UNAVAILABLE
    if isinstance(error, ec.EndpointConnectionError):
        from client.sigv4 import is_local

        hint = " (is `akb local` running there? start it, or point AKB_LOCAL_URL at the port it prints)"
        return f"{error}{hint if is_local(error.url) else ''}", ExitCode.UNAVAILABLE
    if isinstance(error, ec.EndpointTimeout):
        return str(error), ExitCode.DEADLINE
    if isinstance(error, ec.StreamError):
        return str(error), ExitCode.DEADLINE if error.code == "deadline" else ExitCode.INCOMPLETE
    if isinstance(error, httpx.TimeoutException):
        return f"no answer in time: {error or type(error).__name__}", ExitCode.DEADLINE
    if isinstance(error, httpx.TransportError):
        return f"cannot reach the endpoint: {error or type(error).__name__}", ExitCode.UNAVAILABLE
    return None


def _http_fix(status: int, retry_after: float | None) -> str:
    if status in (401, 403):
        return " (refused: check --profile/AWS_PROFILE and that the tenant lists your role: `akb policy`)"
    if status == 429 and retry_after is None:  # with one, the endpoint's own "(retry after N s)" says it
        return " (throttled: try again later)"
    return ""


def _interrupted(error: BaseException) -> Found:
    return ("interrupted", ExitCode.INTERRUPTED) if isinstance(error, KeyboardInterrupt) else None


_RULES: tuple[Callable[[BaseException], Found], ...] = (_config, _setup, _botocore, _endpoint, _interrupted)
