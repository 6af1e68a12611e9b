"""Fault injection, so callers can test their handling of everything the real service can do to them.

Counters are consumed by the requests they hit (`throttle_before: 2` fails the next two requests;
`disconnect_before: 2` closes the next two connections without an answer, as an overloaded server
does); stream faults (`error_after_events`, `drop_after_events`, `delay_first_ms`,
`corrupt_stream`: stream_corruption.py) apply to the next stream only; `delay_ms` and
`failing_knowledge_bases` (every Retrieve on those knowledge bases fails with the given error) stay
until changed or reset. All of it is shared by the server's
threads, hence the lock.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from local.emulator.service_errors import ServiceError, shape_name
from local.emulator.stream_corruption import KINDS

_COUNTERS = ("throttle_before", "error_before", "fail_retrievals", "disconnect_before")
_OPTIONAL_COUNTS = ("error_after_events", "drop_after_events")
KNOWN_KEYS = frozenset(
    {
        "reset",
        "delay_ms",
        "delay_first_ms",
        "error_type",
        "error_message",
        "error_before_type",
        "failing_knowledge_bases",
        "instruction_inactive",
        "corrupt_stream",
        *_COUNTERS,
        *_OPTIONAL_COUNTS,
    }
)


@dataclass
class _State:
    delay_ms: float
    throttle_before: int = 0
    error_before: int = 0
    error_before_type: str = "InternalServerException"
    fail_retrievals: int = 0
    disconnect_before: int = 0
    failing_knowledge_bases: dict[str, str] = field(default_factory=dict)  # kb id -> error shape name
    error_after_events: int | None = None
    error_type: str = "InternalServerException"
    error_message: str | None = None
    drop_after_events: int | None = None
    delay_first_ms: float = 0.0
    # A retrieval instruction still under Bedrock's content review (status INACTIVE): until reset.
    instruction_inactive: bool = False
    corrupt_stream: str | None = None  # stream_corruption.KINDS: the next response is malformed


@dataclass(frozen=True)
class StreamFaults:
    """What the next stream should suffer, taken once by the stream that starts next."""

    error_after_events: int | None
    error: ServiceError | None
    drop_after_events: int | None
    delay_seconds: float
    delay_first_seconds: float = 0.0  # before the HTTP 200 headers, i.e. before the first event
    corruption: str | None = None  # stream_corruption.KINDS


def _count(spec: dict[str, Any], key: str) -> int:
    value = spec[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key} must be a non-negative integer")
    return value


def _milliseconds(spec: dict[str, Any], key: str) -> float:
    value = spec[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 60_000:
        raise ValueError(f"{key} must be a number between 0 and 60000")
    return float(value)


def _failing(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError("failing_knowledge_bases must map knowledge base ids to error types")
    return {key: shape_name(str(error)) for key, error in value.items()}


def _corruption(value: Any) -> str | None:
    if value is not None and value not in KINDS:
        raise ValueError(f"corrupt_stream must be one of {list(KINDS)} or null")
    return value


class Faults:
    def __init__(self, delay_ms: float) -> None:
        self._default_delay_ms = float(delay_ms)
        self._lock = threading.Lock()
        self._state = _State(delay_ms=self._default_delay_ms)

    def configure(self, spec: Any) -> dict[str, Any]:
        """Applies a control-API body atomically (all or nothing) and returns the new state."""
        if not isinstance(spec, dict):
            raise ValueError("expected a JSON object")
        unknown = set(spec) - KNOWN_KEYS
        if unknown:
            raise ValueError(f"unknown fault keys {sorted(unknown)}; known: {sorted(KNOWN_KEYS)}")
        with self._lock:
            state = _State(delay_ms=self._default_delay_ms) if spec.get("reset") else _State(**asdict(self._state))
            for key in (*_COUNTERS, *_OPTIONAL_COUNTS):
                if key in spec:
                    setattr(
                        state,
                        key,
                        None if spec[key] is None and key in _OPTIONAL_COUNTS else _count(spec, key),
                    )
            for key in ("delay_ms", "delay_first_ms"):
                if key in spec:
                    setattr(state, key, _milliseconds(spec, key))
            for key in ("error_type", "error_before_type"):
                if key in spec:
                    setattr(state, key, shape_name(str(spec[key])))
            if "failing_knowledge_bases" in spec:
                state.failing_knowledge_bases = _failing(spec["failing_knowledge_bases"])
            if "instruction_inactive" in spec:
                if not isinstance(spec["instruction_inactive"], bool):
                    raise ValueError("instruction_inactive must be true or false")
                state.instruction_inactive = spec["instruction_inactive"]
            if "corrupt_stream" in spec:
                state.corrupt_stream = _corruption(spec["corrupt_stream"])
            if "error_message" in spec:
                state.error_message = None if spec["error_message"] is None else str(spec["error_message"])
            self._state = state
            return asdict(state)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return asdict(self._state)

    def take_pre_stream_error(self) -> ServiceError | None:
        """The error the current request must fail with before any event, if one is armed."""
        with self._lock:
            if self._state.throttle_before:
                self._state.throttle_before -= 1
                return ServiceError("ThrottlingException", "Rate exceeded (injected fault)")
            if self._state.error_before:
                self._state.error_before -= 1
                code = self._state.error_before_type
                return ServiceError(code, self._state.error_message or f"{code} (injected fault)")
            return None

    def take_disconnect(self) -> bool:
        """Whether the current request's connection must be closed without any answer."""
        with self._lock:
            if self._state.disconnect_before:
                self._state.disconnect_before -= 1
                return True
            return False

    def knowledge_base_error(self, kb_id: str) -> ServiceError | None:
        """The error every Retrieve on `kb_id` fails with, if `failing_knowledge_bases` names it."""
        with self._lock:
            code = self._state.failing_knowledge_bases.get(kb_id)
        return ServiceError(code, f"{code} on knowledge base {kb_id} (injected fault)") if code else None

    def inactive_instruction_error(self, body: dict[str, Any]) -> ServiceError | None:
        """The failure of a request naming a retrieval instruction that is not ACTIVE yet.

        Bedrock documents that only an ACTIVE instruction resolves, not the error it answers with:
        ValidationException and this message are the emulator's assumption (UNVERIFIED in
        docs/facts-and-decisions.md).
        """
        instruction = body.get("retrievalInstructionConfiguration")
        with self._lock:
            if not self._state.instruction_inactive or not isinstance(instruction, dict):
                return None
        return ServiceError(
            "ValidationException",
            f"Retrieval instruction {instruction.get('retrievalInstructionId')} is not ACTIVE "
            "(content review in progress) (injected fault)",
        )

    def take_stream_faults(self) -> StreamFaults:
        with self._lock:
            state = self._state
            error = None
            if state.error_after_events is not None:
                error = ServiceError(state.error_type, state.error_message or f"{state.error_type} (injected fault)")
            faults = StreamFaults(
                state.error_after_events,
                error,
                state.drop_after_events,
                state.delay_ms / 1000,
                state.delay_first_ms / 1000,
                state.corrupt_stream,
            )
            state.corrupt_stream = None
            state.error_after_events = None
            state.drop_after_events = None
            state.delay_first_ms = 0.0
            return faults

    def take_retrieve_corruption(self) -> bool:
        """Whether the current Retrieve must answer with a malformed body (`results_not_list`)."""
        with self._lock:
            if self._state.corrupt_stream == "results_not_list":
                self._state.corrupt_stream = None
                return True
            return False

    def take_retrieval_failure(self) -> bool:
        with self._lock:
            if self._state.fail_retrievals:
                self._state.fail_retrievals -= 1
                return True
            return False
