"""Field names of the endpoint's structured log records: what the service writes, what saved queries read.

The service logs one JSON object per line (lambdas/endpoint/logs.py); keys passed with `extra=`
land at the top level of the record, which is how CloudWatch Logs Insights finds
them. The saved queries (monitoring/saved_queries.py) are built from these constants, so a renamed key
changes both sides at once.

Records the queries rely on:
- every record of a request carries CORRELATION_ID (the request id, also sent in the `done` event)
  and TENANT; the first one (EVENT = "request") also carries CALLER;
- one record per planner step (EVENT = "trace") with STEP and, for Retrieval steps, SUB_QUERY
  (one sub-query text per record: Logs Insights can count strings, not list members) — Planning
  records may carry the whole list in SUB_QUERIES;
- one record when a request fails (EVENT = "error") with ERROR_CODE;
- one record when a request ends (EVENT = "done") with DURATION_MS, TIME_TO_FIRST_EVENT_MS,
  ITERATIONS and STOP_REASON.
"""

from __future__ import annotations

CORRELATION_ID = "correlation_id"  # the request id (logs.RequestLog): Powertools Logger's key, kept for saved queries
TENANT = "tenant"
CALLER = "caller"  # the verified IAM principal ARN, never a value from the request body
EVENT = "event"  # one of the EVENT_* values below
STEP = "step"  # the Bedrock trace step: Planning, Retrieval, SpeculativeRetrieval, ...
STATUS = "status"  # IN_PROGRESS | SUCCEEDED | FAILED
SUB_QUERY = "sub_query"
SUB_QUERIES = "sub_queries"
DURATION_MS = "duration_ms"
TIME_TO_FIRST_EVENT_MS = "time_to_first_event_ms"
ITERATIONS = "iterations"
STOP_REASON = "stop_reason"  # enums.STOP_REASONS
ERROR_CODE = "error_code"
TOOL = "tool"  # gateway interceptor: the MCP tool called (`<target>___<tool>`)
MESSAGE = "message"  # the record's message (a fixed key, like level, timestamp and service)

EVENT_REQUEST = "request"
EVENT_TRACE = "trace"
EVENT_ERROR = "error"
EVENT_DONE = "done"
EVENTS = (EVENT_REQUEST, EVENT_TRACE, EVENT_ERROR, EVENT_DONE)
# Every record's `timestamp`: UTC with milliseconds, "2026-12-01 23:45:19,123+0000" (what Powertools Logger
# wrote before the endpoint wrote its own records; `akb local` reads it back).
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S,%f%z"
