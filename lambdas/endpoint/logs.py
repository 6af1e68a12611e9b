"""Structured logs: one JSON object per line on stdout -> the function's log group.

One logger per process, shared by concurrent requests, so per-request keys (correlation id,
caller) travel with each record instead of being appended to the shared logger. Field names are
log_fields.py's, which the saved Logs Insights queries are built from.

The record is built here from the standard library's `logging` (which botocore imports anyway)
rather than by Powertools Logger: the endpoint used nothing else of Powertools but its EMF metrics
(request_metrics.py), and leaving it out of the package takes its import off every cold start and
halves the package (bench/RESULTS.md). The keys are the ones Powertools wrote, so records, saved
queries and dashboards did not change: `level`, `location`, `message`, `timestamp`, `service`, then
the record's own fields, and `exception` / `exception_name` with a traceback.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from typing import Any

from contract import log_fields
from contract.env_vars import LOG_LEVEL, LOG_SERVICE

SERVICE = "akb-endpoint"
# What every LogRecord has: a record's own fields (`extra=`, as the standard library passes them) are the rest.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime", "taskName"}
_lock = threading.Lock()
_logger: logging.Logger | None = None


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: the fixed keys first, then its fields at the top level."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (stdlib name)
        # log_fields.TIMESTAMP_FORMAT with milliseconds: "2026-12-01 23:45:19,123+0000".
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(record.created)) + f",{int(record.msecs):03d}+0000"

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "level": record.levelname,
            "location": f"{record.funcName}:{record.lineno}",
            "message": record.getMessage(),
            "timestamp": self.formatTime(record),
            "service": self.service,
        }
        entry.update((key, value) for key, value in record.__dict__.items() if key not in _STANDARD)
        if record.exc_info and record.exc_info[0] is not None:
            entry["exception"] = self.formatException(record.exc_info)
            entry["exception_name"] = record.exc_info[0].__name__
        return json.dumps(entry, default=str, separators=(",", ":"))  # lone surrogates escaped, never a crash


def logger() -> logging.Logger:
    """The process's endpoint logger (JSON lines on stdout, level from LOG_LEVEL, INFO by default)."""
    global _logger
    if _logger is None:
        with _lock:
            if _logger is None:
                service = os.environ.get(LOG_SERVICE, SERVICE)
                built = logging.getLogger(service)
                built.setLevel(os.environ.get(LOG_LEVEL, "INFO").upper())
                # It propagates, as Powertools' did: the root logger has no handler in the function (uvicorn
                # configures its own loggers only), and tests read records with pytest's caplog.
                handler = logging.StreamHandler(sys.stdout)
                handler.setFormatter(JsonFormatter(service))
                built.addHandler(handler)
                _logger = built
    return _logger


def log_warning(message: str, *args: Any, **fields: Any) -> None:
    """A warning outside any request (start-up: a setting that turns a feature off, say)."""
    logger().warning(message, *args, extra=fields)


def log_exception(message: str, **fields: Any) -> None:
    """An error record with the current exception's traceback (logs only: clients never see it)."""
    logger().error(message, exc_info=True, extra=fields)


class RequestLog:
    """Log records of one request, each carrying its correlation id, tenant and caller."""

    def __init__(self, correlation_id: str, tenant: str) -> None:
        self.keys: dict[str, Any] = {log_fields.CORRELATION_ID: correlation_id, log_fields.TENANT: tenant}

    def bind(self, **keys: Any) -> None:
        self.keys.update({key: value for key, value in keys.items() if value is not None})

    def info(self, message: str, **fields: Any) -> None:
        logger().info(message, extra={**self.keys, **fields})

    def warning(self, message: str, **fields: Any) -> None:
        logger().warning(message, extra={**self.keys, **fields})

    def exception(self, message: str, error: BaseException | None = None, **fields: Any) -> None:
        """An error record with the traceback (logs only: clients never see it)."""
        logger().error(message, exc_info=error or True, extra={**self.keys, **fields})
