"""Structured logs (Powertools Logger, JSON on stdout -> the function's log group).

One logger per process, shared by concurrent requests, so per-request keys (correlation id,
caller) travel with each record instead of being appended to the shared logger. Field names are
log_fields.py's, which the saved Logs Insights queries are built from.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from contract import log_fields
from contract.env_vars import LOG_LEVEL, LOG_SERVICE

SERVICE = "akb-endpoint"
_lock = threading.Lock()
_logger: Any = None


def logger() -> Any:
    global _logger
    if _logger is None:
        with _lock:
            if _logger is None:
                from aws_lambda_powertools import Logger

                _logger = Logger(service=os.environ.get(LOG_SERVICE, SERVICE), level=os.environ.get(LOG_LEVEL, "INFO"))
    return _logger


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
