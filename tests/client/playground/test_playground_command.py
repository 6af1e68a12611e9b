"""`akb playground`'s command line: the endpoint choices and their usage errors (nothing is served)."""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from client.cli import main
from client.playground.local_launch import local_command


def run(*args: str):
    return CliRunner().invoke(main, ["playground", "--no-browser", *args])


@pytest.mark.parametrize(
    "args, says",
    [
        ((), "one of --local, --env/--tenant or --url"),
        (("--local", "--url", "http://127.0.0.1:8080"), "one of --local, --env/--tenant or --url"),
        (("--url", "ftp://example.com"), "must start with http:// or https://"),
        (("--url", "http://127.0.0.1:8080", "--corpus", "local/corpus"), "--corpus is akb local's"),
    ],
)
def test_usage_errors_say_what_to_change(args, says):
    result = run(*args)
    assert result.exit_code == 2
    assert says in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "args, says",
    [
        (("--url", "https://retrieval.example.com/"), "pass --region"),
        (("--local", "--tenant", "nobody"), "tenant 'nobody' is not in environment 'dev'"),
    ],
)
def test_setup_problems_are_one_line_and_exit_1(no_aws_credentials, args, says):
    no_aws_credentials.delenv("AWS_REGION", raising=False)
    no_aws_credentials.delenv("AWS_DEFAULT_REGION", raising=False)
    result = run(*args)
    assert result.exit_code == 1
    assert says in result.output and "Traceback" not in result.output


def test_a_taken_port_is_one_line_and_exit_1():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        result = run("--url", "http://127.0.0.1:9", "--port", str(taken.getsockname()[1]))
    assert result.exit_code == 1
    assert "cannot listen on 127.0.0.1:" in result.output and "Traceback" not in result.output


def test_a_bad_config_is_reported_with_its_file():
    result = run("--local", "--config", "no-such-config")
    assert result.exit_code == 1 and "no-such-config" in result.output


def test_local_runs_the_real_akb_local_command(tmp_path):
    command = local_command("acme", "dev", tmp_path, 5123, 30, tmp_path / "corpus")
    assert command[1:5] == ["-P", "-m", "client", "local"]  # -P: a client/ where it runs does not shadow ours
    assert command[command.index("--corpus") + 1] == str((tmp_path / "corpus").resolve())
    assert command[command.index("--port") + 1] == "5123" and command[command.index("--emulator-port") + 1] == "0"
    assert command[command.index("--config") + 1] == str(tmp_path.resolve())


def test_the_command_is_listed():
    result = CliRunner().invoke(main, ["--help"])
    assert "playground" in result.output
