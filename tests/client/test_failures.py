"""The one error path, through the real CLI: each class of expected failure is one line naming the cause and
the fix, with the same exit code from every command, never a traceback; `--debug` adds the traceback.

AWS errors come from a STUB AWS endpoint (tests/client/stub_endpoint.py answering botocore's JSON protocol
over a real socket, reached through AWS_ENDPOINT_URL_*): no AWS account is reachable here.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from click.testing import CliRunner, Result

from client.cli import main
from client.exit_codes import ExitCode
from tests.client.stub_endpoint import Reply, StubEndpoint, stub_endpoint
from tests.conftest import EXAMPLE_CONFIG

CONFIG = ["--config", str(EXAMPLE_CONFIG)]


def akb(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def one_line(result: Result) -> str:
    """The failure's line: exactly one on the output, no traceback."""
    assert "Traceback" not in result.output, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.fixture
def stub() -> Iterator[StubEndpoint]:
    with stub_endpoint() as endpoint:
        yield endpoint


@pytest.fixture
def keys(no_aws_credentials) -> pytest.MonkeyPatch:
    """Dummy keys and a single attempt per AWS call (botocore would retry a throttled call 4 more times)."""
    no_aws_credentials.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    no_aws_credentials.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    no_aws_credentials.setenv("AWS_MAX_ATTEMPTS", "1")
    return no_aws_credentials


def aws_error(stub: StubEndpoint, status: int, code: str, message: str = "denied") -> None:
    """The stub answers like an AWS JSON-protocol service (SSM, CloudWatch) refusing the call."""
    body = json.dumps({"__type": code, "message": message}).encode()
    stub.reply = Reply(status=status, headers={"Content-Type": "application/x-amz-json-1.1"}, chunks=[body])


# --- credentials and profiles: the same cause, the same code, whatever the command ------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["doctor", "--env", "dev"],
        ["cost", "--env", "dev"],
        ["ingest", "--status", "--tenant", "acme"],
        ["ask", "--env", "dev", "--tenant", "acme", "How do I rotate an API key?"],
        ["verify", "--env", "dev", "--tenant", "acme"],
        ["mcp", "--env", "dev", "--tenant", "acme"],
    ],
)
def test_no_credentials_is_one_line_and_exit_1_from_every_command(no_aws_credentials, command):
    result = akb(*command, *CONFIG)
    assert result.exit_code == ExitCode.SETUP, result.output
    line = one_line(result)
    assert line.startswith(f"akb {command[0]}: no usable AWS credentials found: configure them"), line


@pytest.mark.parametrize("where", ["environment", "before", "after"])
def test_a_profile_that_does_not_exist_is_named_with_the_fix(no_aws_credentials, where):
    args = ["doctor", "--env", "dev", *CONFIG]
    if where == "environment":
        no_aws_credentials.setenv("AWS_PROFILE", "nope")
    elif where == "before":
        args = ["--profile", "nope", *args]
    else:
        args = [*args, "--profile", "nope"]
    result = akb(*args)
    assert result.exit_code == ExitCode.SETUP
    assert one_line(result) == (
        "akb doctor: AWS profile 'nope' not found: list yours with `aws configure list-profiles`, then pass "
        "--profile NAME or set AWS_PROFILE"
    )


@pytest.mark.parametrize(
    "command", [["cost", "--env", "dev"], ["ask", "--env", "dev", "--tenant", "acme", "q"], ["cache", "stats"]]
)
def test_a_missing_profile_is_the_same_line_for_other_commands(no_aws_credentials, command):
    no_aws_credentials.setenv("AWS_PROFILE", "nope")
    extra = ["--tenant", "acme"] if command == ["cache", "stats"] else []
    result = akb(*command, *extra, *CONFIG)
    assert result.exit_code == ExitCode.SETUP
    assert "AWS profile 'nope' not found" in one_line(result)


def test_a_profile_given_is_the_one_used(no_aws_credentials, tmp_path, stub):
    """--profile selects the profile's keys: the stub sees them in the request's signature."""
    (tmp_path / "credentials").write_text("[ci]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s\n")
    no_aws_credentials.setenv("AWS_ENDPOINT_URL_SSM", stub.url)
    aws_error(stub, 400, "ParameterNotFound")
    result = akb("--profile", "ci", "ask", "--env", "dev", "--tenant", "acme", "q", *CONFIG)
    assert "Credential=AKIDPROFILE/" in stub.requests[0].headers["Authorization"]
    assert result.exit_code == ExitCode.SETUP and "is the stack dev-acme deployed?" in one_line(result)


# --- region ----------------------------------------------------------------------------------------------


def test_no_region_to_sign_for_is_a_setup_failure_with_the_fix(no_aws_credentials):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        no_aws_credentials.delenv(name, raising=False)
    result = akb("ask", "--url", "https://search.example.com/", "q")
    assert result.exit_code == ExitCode.SETUP
    assert "cannot tell the region to sign for https://search.example.com/" in one_line(result)
    assert "pass --region, or set AWS_REGION" in result.output


def test_a_region_that_contradicts_the_environment_is_refused(no_aws_credentials):
    result = akb("--region", "eu-west-1", "doctor", "--env", "dev", *CONFIG)
    assert result.exit_code == ExitCode.SETUP
    assert "--region eu-west-1, but environment dev is in us-west-2" in one_line(result)


# --- the endpoint: unreachable, refused, throttled ------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_endpoint_exits_3_and_says_where(monkeypatch):
    url = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("AKB_LOCAL_URL", url)
    result = akb("ask", "--local", "q")
    assert result.exit_code == ExitCode.UNAVAILABLE
    line = one_line(result)
    assert line.startswith(f"akb ask: cannot reach {url}")
    assert line.endswith("(is `akb local` running there? start it, or point AKB_LOCAL_URL at the port it prints)")


def test_a_refusal_names_the_endpoints_code_and_the_fix(stub):
    body = json.dumps({"error": {"code": "user_identity_unverified", "message": "no end user"}}).encode()
    stub.reply = Reply(status=403, headers={"Content-Type": "application/json"}, chunks=[body])
    result = akb("ask", "--url", stub.url, "q")
    assert result.exit_code == ExitCode.UNAVAILABLE
    line = one_line(result)
    assert line.startswith("akb ask: HTTP 403 user_identity_unverified: no end user")
    assert "the tenant lists your role" in line


def test_throttling_past_the_retries_exits_3_with_when_to_retry(stub):
    body = json.dumps({"error": {"code": "throttled", "message": "slow down"}}).encode()
    stub.reply = Reply(status=429, headers={"Content-Type": "application/json", "Retry-After": "2"}, chunks=[body])
    result = akb("ask", "--url", stub.url, "q")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert one_line(result) == "akb ask: HTTP 429 throttled: slow down (retry after 2 s)"


def test_a_body_the_endpoint_would_refuse_is_a_usage_error_before_sending(stub):
    result = akb("ask", "--url", stub.url, "--session", "-bad-", "q")
    assert result.exit_code == ExitCode.USAGE and stub.requests == []
    assert "field 'sessionId': String should match pattern" in one_line(result)


# --- AWS APIs: refused, throttled, not deployed, rejected credentials -------------------------------------------


@pytest.mark.parametrize(
    "status, code, exit_code, words",
    [
        (400, "AccessDeniedException", ExitCode.UNAVAILABLE, "AWS refused GetParameter (AccessDeniedException)"),
        (400, "ThrottlingException", ExitCode.UNAVAILABLE, "AWS throttled GetParameter (ThrottlingException)"),
        (400, "ParameterNotFound", ExitCode.SETUP, "is the stack dev-acme deployed?"),
        (400, "ExpiredTokenException", ExitCode.SETUP, "AWS rejected the credentials (ExpiredTokenException)"),
    ],
)
def test_aws_answers_become_one_line_with_the_code_of_their_class(keys, stub, status, code, exit_code, words):
    keys.setenv("AWS_ENDPOINT_URL_SSM", stub.url)
    aws_error(stub, status, code, "User: arn:aws:iam::999999999999:user/x is not authorized")
    result = akb("ask", "--env", "dev", "--tenant", "acme", "q", *CONFIG)
    assert result.exit_code == exit_code, result.output
    line = one_line(result)
    assert words in line and "999999999999" not in line


def test_aws_unreachable_exits_3(keys):
    keys.setenv("AWS_ENDPOINT_URL_CLOUDWATCH", f"http://127.0.0.1:{_closed_port()}")
    keys.setenv("AWS_ENDPOINT_URL_SSM", f"http://127.0.0.1:{_closed_port()}")
    result = akb("cost", "--env", "dev", *CONFIG)
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert one_line(result).startswith("akb cost: cannot reach AWS")


# --- config: every problem, named; unknown environments and tenants -----------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["policy", "--tenant", "nobody"],
        ["cache", "stats", "--tenant", "nobody"],
        ["cost", "--tenant", "nobody"],
        ["doctor", "--tenant", "nobody"],
        ["local", "--tenant", "nobody", "--port", "1", "--emulator-port", "0"],
    ],
)
def test_an_unknown_tenant_is_exit_1_from_every_command(no_aws_credentials, command):
    if command[0] == "local":  # the port check comes first: give it a free one
        command[command.index("--port") + 1] = str(_closed_port())
    result = akb(*command, *CONFIG)
    assert result.exit_code == ExitCode.SETUP, result.output
    assert "'nobody' is not deployed in" in one_line(result)


def test_an_unknown_environment_lists_the_known_ones(no_aws_credentials):
    result = akb("validate", "--env", "qa", *CONFIG)
    assert result.exit_code == ExitCode.SETUP
    assert "environment 'qa' not found; available: dev, prod" in result.output and "Traceback" not in result.output


# --- bugs and --debug -----------------------------------------------------------------------------------------


def test_an_unexpected_exception_is_one_line_saying_it_is_a_bug(monkeypatch):
    import client.commands.validate as validate

    monkeypatch.setattr(validate, "load_or_exit", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    result = akb("validate", *CONFIG)
    assert result.exit_code == ExitCode.INTERNAL
    assert one_line(result) == (
        "akb validate: internal error: RuntimeError: boom (a bug in akb: rerun with --debug and report the traceback)"
    )


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_adds_the_traceback_and_keeps_the_line_and_the_code(no_aws_credentials, where):
    no_aws_credentials.setenv("AWS_PROFILE", "nope")
    args = ["--debug", "doctor", *CONFIG] if where == "before" else ["doctor", *CONFIG, "--debug"]
    result = akb(*args)
    assert result.exit_code == ExitCode.SETUP
    assert "Traceback (most recent call last)" in result.output and "ProfileNotFound" in result.output
    assert result.output.strip().splitlines()[-1].startswith("akb doctor: AWS profile 'nope' not found")
