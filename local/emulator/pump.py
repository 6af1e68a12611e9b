"""Moves a run's messages to the socket one at a time, applying stream faults and noticing hang-ups.

Kept apart from HTTP so the rules (delay between events, error after N, drop after N, stop when
the client is gone or the server stops) are plain code over two callables.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from enum import Enum

from local.emulator.eventstream import StreamMessage
from local.emulator.faults import StreamFaults
from local.emulator.journal import StreamRecord


class End(Enum):
    COMPLETED = "completed"  # send the terminating chunk
    DROP = "dropped"  # close the connection without it


def _raise_in_stream(faults: StreamFaults, record: StreamRecord, write: Callable[[bytes], None]) -> End:
    error = faults.error
    if error is None:  # called only when a stream error is configured
        raise ValueError("no stream error configured to raise")
    write(StreamMessage("exception", error.stream_member, {"message": error.message}).encode())
    record.outcome = f"exception:{error.stream_member}"
    return End.COMPLETED


def pump(
    messages: Iterator[StreamMessage],
    faults: StreamFaults,
    record: StreamRecord,
    write: Callable[[bytes], None],
    client_gone: Callable[[], bool],
    stopping: Callable[[], bool],
) -> End:
    """Writes each message as soon as it exists; returns how the HTTP response must end.

    `write` raises OSError when the peer has gone; that ends the stream as closed by the client.
    """
    try:
        for message in messages:
            if record.events_sent and faults.delay_seconds:
                time.sleep(faults.delay_seconds)
            if stopping():
                record.outcome = "server_stopped"
                return End.DROP
            if faults.drop_after_events is not None and record.events_sent >= faults.drop_after_events:
                record.outcome = "dropped"
                return End.DROP
            if faults.error is not None and record.events_sent >= (faults.error_after_events or 0):
                return _raise_in_stream(faults, record, write)
            if client_gone():
                raise ConnectionResetError("client closed the stream")
            write(message.encode())
            record.events_sent += 1
            if message.kind == "exception":
                record.outcome = f"exception:{message.name}"
                return End.COMPLETED
        if faults.error is not None:  # error_after_events beyond the end of the stream: still raise it
            return _raise_in_stream(faults, record, write)
        record.outcome = "completed"
        return End.COMPLETED
    except OSError:
        record.closed_by_client = True
        record.outcome = "client_closed"
        return End.DROP
    finally:
        record.finished = True
        close = getattr(messages, "close", None)
        if close:
            close()
