"""What `akb local` shows of the endpoint's log: one readable line per request, not its ~25 JSON records.

The endpoint writes structured JSON records (lambdas/endpoint/logs.py, contract/log_fields.py) and EMF metric
documents on stdout, as in Lambda. In a terminal, `akb local` prints one line per finished request,
from its `done` record: time, status, stop reason, iterations, duration, request id; warnings and
errors as one line each; anything that is not JSON (a traceback, uvicorn's own messages) unchanged.
`akb local --verbose` prints every record as the endpoint wrote it.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from contract import log_fields as lf

_LOUD_LEVELS = ("WARNING", "ERROR", "CRITICAL")


def shown(line: str, verbose: bool = False) -> str | None:
    """The line to print for one line of the endpoint's output, or None to leave it out."""
    if verbose:
        return line
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    if record.get(lf.EVENT) == lf.EVENT_DONE:
        return request_line(record)
    if record.get("level") in _LOUD_LEVELS:
        request = f"  request {record[lf.CORRELATION_ID]}" if record.get(lf.CORRELATION_ID) else ""
        return f"{_time(record)}  {record['level']}  {record.get(lf.MESSAGE, '')}{request}"
    return None  # the request's other records and its metric documents: --verbose shows them


def request_line(record: dict[str, Any]) -> str:
    """`12:04:31  ok  complete  2 iterations  1.42 s  request 4bce...` from a `done` record."""
    code = record.get("error_code")
    if code is None:
        status = "ok"
    elif lf.TIME_TO_FIRST_EVENT_MS in record or "mode" in record:  # it streamed, then failed
        status = f"error {code}"
    else:  # refused before any event (a 4xx/5xx answer)
        status = f"refused {code}"
    iterations = record.get(lf.ITERATIONS, 0)
    duration = record.get(lf.DURATION_MS, 0) / 1000
    return (
        f"{_time(record)}  {status:<26} {record.get(lf.STOP_REASON, '?'):<15} "
        f"{iterations} iteration{'' if iterations == 1 else 's'}  {duration:.2f} s  "
        f"request {record.get(lf.CORRELATION_ID, '?')}"
    )


def _time(record: dict[str, Any]) -> str:
    try:
        return datetime.strptime(str(record.get("timestamp")), lf.TIMESTAMP_FORMAT).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return datetime.now().strftime("%H:%M:%S")
