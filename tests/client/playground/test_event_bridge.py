"""What the page is told when `Client.query()` fails: the stage, the code, the message; nothing internal."""

from __future__ import annotations

import json

import pytest

from client.endpoint_client import EndpointConnectionError, EndpointHTTPError, EndpointTimeout, StreamError
from client.playground.event_bridge import browser_frames, failure_of, sse_frame
from client.sigv4 import SigningError


@pytest.mark.parametrize(
    "error, expected",
    [
        (
            EndpointHTTPError(429, "throttled", "Bedrock throttled the request", 1.0),
            {"stage": "refused", "status": 429, "code": "throttled", "message": "Bedrock throttled the request",
             "retryAfter": 1.0},
        ),
        (EndpointConnectionError("cannot reach http://x"), {"stage": "unreachable", "code": "connection_failed",
                                                             "message": "cannot reach http://x"}),
        (EndpointTimeout("idle", 120), {"stage": "timeout", "code": "client_timeout_idle",
                                        "message": str(EndpointTimeout("idle", 120))}),
        (StreamError("bad_event", "not JSON", False), {"stage": "stream", "code": "bad_event", "message": "not JSON",
                                                       "retryable": False}),
        (SigningError("no AWS credentials found"), {"stage": "signing", "code": "no_credentials",
                                                    "message": "no AWS credentials found"}),
    ],
)  # fmt: skip
def test_each_client_error_becomes_a_failure(error, expected):
    assert failure_of(error) == expected


def test_a_bug_is_a_generic_failure_without_its_details():
    failure = failure_of(KeyError("arn:aws:iam::123456789012:role/secret-internal"))
    assert failure["code"] == "internal" and "arn:" not in json.dumps(failure)


class ExplodingClient:
    """A TEST DOUBLE of Client: its query() raises a bug mid-stream (no real client fails like this)."""

    def query(self, question, **options):
        raise RuntimeError("arn:aws:iam::123456789012:role/inside")
        yield


def test_a_bug_mid_stream_ends_the_stream_with_a_failure_frame():
    frames = list(browser_frames(ExplodingClient(), "q", {}))  # type: ignore[arg-type]
    assert frames == [sse_frame("failure", failure_of(RuntimeError()))]
    assert "arn:" not in frames[0]


def test_frames_are_one_line_of_json_each():
    frame = sse_frame("text", {"delta": "two\nlines"})
    assert frame == 'event: text\ndata: {"delta":"two\\nlines"}\n\n'
