"""Whether an AgenticRetrieveStream response arrived whole and well-formed; `StreamBroken` when not.

botocore's model of the stream (bedrock-agent-runtime `AgenticRetrieveStreamResponseOutput`,
ledger: "What a complete AgenticRetrieveStream response is") documents three event members:
`traceEvent` (required `attributes` with required `step`, `status`, `message`), `responseEvent`
(required `text`, a string) and `result` (required `results`, a list of result items; optional
`generatedResponse` with a required `answer`, optional `citations` list and `nextToken` string).
The `result` is the answer: a response without it has no sources and may have no answer.

botocore does not enforce any of this on its own: a payload that is not JSON becomes an empty
member (`{"traceEvent": {}}`), a missing `results` is left out, a `results` that is not a list can
raise AttributeError inside the parser, and a stream that ends at a frame boundary simply stops.
So the endpoint counts a response complete only when every member it read was well-formed and
exactly one `result` arrived; anything else raises `StreamBroken`, which api_errors.py answers as
`upstream_stream_broken` (retryable): a broken answer is never presented as a complete one.
Corrupted frames (bad CRC, impossible lengths) surface from botocore's event-stream decoder as
its `ParserError`s, and are the same failure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class StreamBroken(Exception):
    """The upstream stream ended or continued in a way AWS does not document for a complete response."""


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _trace_problem(body: Any) -> str | None:
    attributes = body.get("attributes") if isinstance(body, Mapping) else None
    if not isinstance(attributes, Mapping):
        return "a traceEvent without its attributes (unreadable JSON?)"
    missing = [name for name in ("step", "status", "message") if not _is_text(attributes.get(name))]
    return f"a traceEvent without {', '.join(missing)}" if missing else None


def _result_problem(body: Any) -> str | None:
    if not isinstance(body, Mapping):
        return "a result that is not an object"
    results = body.get("results")
    if not isinstance(results, list) or not all(isinstance(item, Mapping) for item in results):
        return "a result whose `results` is not a list of result items"
    generated = body.get("generatedResponse")
    if generated is not None and (not isinstance(generated, Mapping) or not _is_text(generated.get("answer"))):
        return "a result whose generatedResponse has no answer"
    if generated is not None and not isinstance(generated.get("citations", []), list):
        return "a result whose citations are not a list"
    if body.get("nextToken") is not None and not _is_text(body["nextToken"]):
        return "a result whose nextToken is not a string"
    return None


def _response_problem(body: Any) -> str | None:
    text = body.get("text") if isinstance(body, Mapping) else None
    return None if _is_text(text) else "a responseEvent without its text"


_CHECKS = {"traceEvent": _trace_problem, "responseEvent": _response_problem, "result": _result_problem}


class StreamCheck:
    """Fed every member botocore yields, in order; `end()` once the stream stopped without an error."""

    def __init__(self) -> None:
        self.results = 0

    def member(self, raw: Mapping[str, Any]) -> None:
        for name, check in _CHECKS.items():
            if name in raw:
                problem = check(raw[name])
                if problem is not None:
                    raise StreamBroken(f"the stream from Bedrock carried {problem}")
        if "result" in raw:
            self.results += 1
            if self.results > 1:
                raise StreamBroken("the stream from Bedrock carried a second result event")

    def end(self) -> None:
        if self.results == 0:
            raise StreamBroken("the stream from Bedrock ended without its result event")


def checked(stream: Any, check: StreamCheck) -> Iterator[Mapping[str, Any]]:
    """The members of a botocore EventStream, each checked; decoder and parser failures become StreamBroken.

    Errors the service sent (EventStreamError, a ClientError) and transport failures pass through
    unchanged: api_errors.classify maps those."""
    from botocore.eventstream import ParserError

    iterator = iter(stream)
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            check.end()
            return
        except ParserError as error:  # bad CRC, impossible prelude or header lengths
            raise StreamBroken(f"a corrupted event-stream frame from Bedrock ({type(error).__name__})") from error
        except (AttributeError, TypeError, KeyError, IndexError, UnicodeDecodeError) as error:  # botocore's parser
            raise StreamBroken(f"an unreadable event from Bedrock ({type(error).__name__})") from error
        check.member(raw)
        yield raw
