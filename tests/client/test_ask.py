"""`akb ask` output modes and exit codes, against a stub endpoint (scripted wire, real HTTP).

The end-to-end runs against the real endpoint service and emulator are at the end of this file.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from client.cli import main
from contract.events import DoneEvent, ErrorEvent, TextEvent
from tests.client.stub_endpoint import Reply, sample_events, sse, stub_endpoint


@pytest.fixture
def stub():
    with stub_endpoint() as endpoint:
        yield endpoint


def ask(*args: str):
    return CliRunner().invoke(main, ["ask", *args])


def test_view_in_a_pipe_shows_trace_answer_sources_and_footer(stub):
    stub.reply = Reply(chunks=[sse(*sample_events())])
    result = ask("--url", stub.url, "What is the rate limit?")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "> Planning started (3 ms)"
    assert "The limit is 100 requests per minute.[1][2]" in lines
    assert "[1] docs | api/rate-limits.md | Each API key may send 100 requests per minute." in lines
    assert lines[-1].startswith("1 iteration | first event 3 ms")
    assert "\x1b" not in result.stdout


def test_json_prints_each_event_as_a_parseable_line_ending_with_done(stub):
    stub.reply = Reply(chunks=[sse(*sample_events())])
    result = ask("--url", stub.url, "--json", "q")
    assert result.exit_code == 0, result.output
    parsed = [json.loads(line) for line in result.stdout.splitlines()]
    assert [item["type"] for item in parsed] == [event.type for event in sample_events()]
    assert parsed[-1]["type"] == "done" and parsed[-1]["requestId"] == "req-1"


def test_quiet_prints_only_the_answer(stub):
    stub.reply = Reply(chunks=[sse(*sample_events())])
    result = ask("--url", stub.url, "--quiet", "q")
    assert (result.exit_code, result.stdout) == (0, "The limit is 100 requests per minute.\n")


def test_options_become_the_request_body(stub):
    stub.reply = Reply(headers={"Content-Type": "application/x-ndjson"}, chunks=[b""])
    ask(
        "--url",
        stub.url,
        "--format",
        "ndjson",
        "--kb",
        "docs",
        "--kb",
        "wiki",
        "--no-answer",
        "--max-iterations",
        "4",
        "--max-results",
        "7",
        "--filter",
        '{"equals": {"key": "team", "value": "api"}}',
        "--user-id",
        "u-1",
        "--mode",
        "retrieve",
        "q",
    )
    request = stub.requests[0]
    assert request.headers["Accept"] == "application/x-ndjson"
    assert json.loads(request.body) == {
        "question": "q",
        "knowledgeBases": ["docs", "wiki"],
        "generateResponse": False,
        "maxAgentIteration": 4,
        "maxResults": 7,
        "filter": {"equals": {"key": "team", "value": "api"}},
        "userId": "u-1",
        "mode": "retrieve",
    }


def test_http_error_before_streaming_exits_3_with_the_code_on_stderr(stub):
    body = json.dumps({"error": {"code": "throttled", "message": "slow down"}}).encode()
    stub.reply = Reply(status=429, headers={"Content-Type": "application/json", "Retry-After": "2"}, chunks=[body])
    result = ask("--url", stub.url, "q")
    assert result.exit_code == 3
    assert result.stderr.strip() == "akb ask: HTTP 429 throttled: slow down (retry after 2 s)"
    assert "Traceback" not in result.output


def test_a_504_deadline_before_streaming_exits_5(stub):
    body = json.dumps({"error": {"code": "deadline", "message": "no answer within 1 s"}}).encode()
    stub.reply = Reply(status=504, headers={"Content-Type": "application/json"}, chunks=[body])
    assert ask("--url", stub.url, "q").exit_code == 5


def test_connection_refused_exits_3():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = ask("--url", f"http://127.0.0.1:{port}", "q")
    assert result.exit_code == 3
    assert "cannot reach" in result.stderr


def _done(stop: str) -> DoneEvent:
    return DoneEvent(requestId="r", stopReason=stop, iterations=1, durationMs=10, timeToFirstEventMs=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "events, exit_code",
    [
        ([ErrorEvent("upstream_error", "internalServerException", True), _done("error")], 4),
        ([TextEvent("part"), ErrorEvent("deadline", "out of time", True), _done("deadline")], 5),
        ([TextEvent("part"), _done("deadline")], 5),
        ([TextEvent("part")], 4),  # the stream broke off before done
    ],
    ids=["error-event", "deadline-error", "deadline-stop-reason", "interrupted"],
)
def test_stream_failures_exit_4_and_deadlines_exit_5_in_every_output_mode(stub, events, exit_code):
    stub.reply = Reply(chunks=[sse(*events)])
    for mode in ([], ["--json"], ["--quiet"]):
        result = ask("--url", stub.url, *mode, "q")
        assert result.exit_code == exit_code, (mode, result.output)
        assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["q"], "exactly one of --url, --env/--tenant or --local"),
        (["--local", "--url", "http://127.0.0.1:1", "q"], "exactly one of"),
        (["--local", "--env", "prod", "q"], "--env selects a deployed endpoint together with --tenant"),
        (["--local", "--filter", "{oops", "q"], "not JSON"),
        (["--local", "--filter", "[1]", "q"], "must be a JSON object"),
        (["--local", "--max-iterations", "-1", "q"], "-1 is not in the range x>=0"),
        (["--local", "--mode", "magic", "q"], "'magic' is not one of"),
        (["--local", "--json", "--quiet", "q"], "--json and --quiet are alternatives"),
        (["--local", "  "], "the question is empty"),
        (["--url", "ftp://x", "q"], "must start with http:// or https://"),
    ],
)
def test_usage_errors_exit_2_with_a_message(args, message):
    result = ask(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_help_says_max_results_is_per_knowledge_base():
    result = ask("--help")
    assert result.exit_code == 0
    help_text = " ".join(result.output.split())  # click wraps the help column
    option = help_text[help_text.index("--max-results") : help_text.index("--filter")]
    assert "per knowledge base" in option and "up to 6" in option


def test_unknown_tenant_exits_1_before_any_aws_call():
    result = ask("--env", "dev", "--tenant", "initech", "q")
    assert result.exit_code == 1
    assert "tenant 'initech' is not deployed in environment 'dev'" in result.stderr


def test_local_follows_akb_local_url(stub, monkeypatch):
    monkeypatch.setenv("AKB_LOCAL_URL", stub.url)
    stub.reply = Reply(chunks=[sse(*sample_events())])
    assert ask("--local", "-q", "q").exit_code == 0
    assert len(stub.requests) == 1


# --- Against the real endpoint service (tests/conftest.py `endpoint`) and the real emulator ---

QUESTION = "How do I rotate an API key?"
REPO = Path(__file__).resolve().parents[2]


def akb_ask(*args: str) -> subprocess.CompletedProcess:
    """`akb ask` as its own process writing into a pipe (what a script, `| less` or CI sees); the
    endpoint under test runs in this process, so its logs never mix into the command's stdout."""
    return subprocess.run(
        [sys.executable, "-m", "client", "ask", *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "AWS_EC2_METADATA_DISABLED": "true"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_real_endpoint_view_through_a_pipe_is_plain_and_complete(endpoint):
    run = akb_ask("--url", endpoint.url, QUESTION)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "\x1b" not in run.stdout and "\r" not in run.stdout
    assert lines[0].startswith("> ") and " started (" in lines[0]
    assert any(line.startswith('    query "') for line in lines)
    answer = lines[lines.index("Answer") + 1]
    assert re.search(r"\[\d+\]", answer)  # citation markers in the answer
    sources = [line for line in lines if re.match(r"\[\d+\] (docs|tickets) \| ", line)]
    assert sources and len(sources) == int(re.search(r"Sources \((\d+)\)", run.stdout).group(1))
    assert re.match(r"\d+ iterations? \| first event \d+ ms \| duration [\d.]+ s \| est\. cost \$", lines[-1])
    assert "stop complete" in lines[-1]


def test_real_endpoint_json_lines_all_parse_and_end_with_done(endpoint):
    run = akb_ask("--url", endpoint.url, "--json", "--format", "ndjson", QUESTION)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert events[0]["type"] == "trace" and events[-1]["type"] == "done"
    assert events[-1]["stopReason"] == "complete"
    assert {"text", "result"} <= {event["type"] for event in events}


def test_real_endpoint_quiet_prints_exactly_the_answer(endpoint):
    from client.endpoint_client import Client

    with Client(endpoint.url) as client:
        expected = client.ask(QUESTION).answer
    run = akb_ask("--url", endpoint.url, "--quiet", QUESTION)
    assert (run.returncode, run.stdout) == (0, expected + "\n")


def test_real_endpoint_throttled_past_retries_exits_3(endpoint, faults):
    faults.set(throttle_before=20)
    run = akb_ask("--url", endpoint.url, QUESTION)
    assert run.returncode == 3
    assert "HTTP 429 throttled" in run.stderr


def test_real_endpoint_error_event_exits_4(endpoint, faults):
    faults.set(error_after_events=3, error_type="internalServerException")
    run = akb_ask("--url", endpoint.url, QUESTION)
    assert run.returncode == 4
    assert "error upstream_" in run.stdout


def test_real_endpoint_deadline_exits_5(deadline_endpoint, faults):
    faults.set(delay_ms=400)  # slower than the tenant's 1 s deadline allows the planner to finish
    run = akb_ask("--url", deadline_endpoint.url, "--json", QUESTION)
    assert run.returncode == 5, run.stdout + run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert events[-1]["stopReason"] == "deadline"
    assert any(event["type"] == "error" and event["code"] == "deadline" for event in events)


def _limited(iterations: int) -> list:
    events = [e for e in sample_events() if not isinstance(e, DoneEvent)]
    return [
        *events,
        DoneEvent(requestId="req-2", stopReason="iteration_limit", iterations=iterations, durationMs=9, partial=True),
    ]


def test_an_iteration_limit_exits_4_naming_the_tenants_cap_and_where_to_raise_it(stub):
    stub.reply = Reply(chunks=[sse(*_limited(3))])
    result = ask("--url", stub.url, "q")
    assert result.exit_code == 4
    assert "The limit is 100 requests per minute." in result.stdout  # the answer is still shown
    hint = result.stderr.strip().splitlines()[-1]
    assert "all 3 iterations the tenant allows" in hint and "a request may not ask for more" in hint
    assert "retrieval.max_agent_iteration (at most 10) in config/tenants/<tenant>.yaml and redeploy" in hint
    assert "--max-iterations" not in hint  # a request value above the cap is refused: never suggested


def test_an_iteration_limit_under_a_lower_max_iterations_suggests_raising_it_up_to_the_cap(stub):
    stub.reply = Reply(chunks=[sse(*_limited(1))])
    result = ask("--url", stub.url, "--max-iterations", "1", "q")
    assert result.exit_code == 4
    assert "the 1 iteration --max-iterations allowed; ask again with a higher --max-iterations" in result.stderr
