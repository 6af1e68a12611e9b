"""The endpoint's JSON-lines records: the keys the saved queries and `akb local` read, never a crash."""

from __future__ import annotations

import io
import json
import logging
from datetime import datetime

import pytest

from contract import log_fields as lf
from lambdas.endpoint import logs
from lambdas.endpoint.logs import JsonFormatter, RequestLog


@pytest.fixture
def lines():
    """What the endpoint's logger writes, through its own formatter, into a buffer instead of stdout."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonFormatter("akb-endpoint"))
    logs.logger().addHandler(handler)
    # Encoded as stdout encodes them (UTF-8, strict): an unescaped lone surrogate would raise here.
    yield lambda: [json.loads(line) for line in buffer.getvalue().encode("utf-8").decode().splitlines()]
    logs.logger().removeHandler(handler)


def test_a_record_is_one_json_line_with_the_fixed_keys_first_then_its_fields(lines):
    RequestLog("req-1", "acme").info("done", **{lf.EVENT: lf.EVENT_DONE, lf.STOP_REASON: "complete"})
    (record,) = lines()
    assert list(record)[:5] == ["level", "location", "message", "timestamp", "service"]
    assert record["level"] == "INFO" and record[lf.MESSAGE] == "done" and record["service"] == "akb-endpoint"
    assert record[lf.CORRELATION_ID] == "req-1" and record[lf.TENANT] == "acme"
    assert record[lf.EVENT] == lf.EVENT_DONE and record[lf.STOP_REASON] == "complete"
    parsed = datetime.strptime(record["timestamp"], lf.TIMESTAMP_FORMAT)  # what `akb local` parses
    assert parsed.utcoffset().total_seconds() == 0 and parsed.microsecond % 1000 == 0


def test_an_exception_adds_its_traceback_and_name_to_the_record_only(lines):
    try:
        raise KeyError("upstream")
    except KeyError as error:
        RequestLog("req-2", "acme").exception("endpoint error while streaming", error)
    (record,) = lines()
    assert record["level"] == "ERROR" and record["exception_name"] == "KeyError"
    assert "Traceback" in record["exception"] and "KeyError: 'upstream'" in record["exception"]


def test_a_lone_surrogate_or_an_object_in_a_field_is_escaped_not_a_crash(lines):
    RequestLog("req-3", "acme").info("request", question="half \ud800 pair", started=datetime(2026, 12, 1))
    (record,) = lines()
    assert record["question"] == "half \ud800 pair" and record["started"] == "2026-12-01 00:00:00"


def test_records_below_the_configured_level_are_not_written(lines):
    logger, configured = logs.logger(), logs.logger().level
    logger.setLevel(logging.WARNING)  # what LOG_LEVEL=WARNING sets when the logger is built
    try:
        RequestLog("req-4", "acme").info("request")
        logs.log_warning("the cache store is not named: running without it", store=None)
    finally:
        logger.setLevel(configured)
    (record,) = lines()
    assert record["level"] == "WARNING" and record["store"] is None


def test_no_field_name_is_one_the_standard_library_reserves_for_the_record_itself():
    """`extra=` with a key a LogRecord already has (`name`, `module`, `lineno`, ...) raises mid-request."""
    reserved = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"asctime"}
    fields = {value for name, value in vars(lf).items() if name.isupper() and isinstance(value, str)}
    fixed = {lf.MESSAGE}  # the record's own message key, written by the formatter, never passed as a field
    assert (fields - fixed) & reserved == set()
