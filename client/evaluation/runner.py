"""Runs every (question, mode) pair against an endpoint, a bounded number at a time, resumably.

Each finished pair is appended as one JSON line to `<out>/records.jsonl` the moment it ends, so an
interrupted run loses at most the pairs in flight: the next run skips pairs already recorded for
the same question and labels (the item's fingerprint) against the same target and retrieval
settings (target_key.py), and retries pairs that ended in an error.
The runner never knows about HTTP: it calls a `query(item, mode)` function that yields the
endpoint's typed events (contract/events.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from client.evaluation.scores import abstained, judge, rank_documents
from contract.events import DoneEvent, ErrorEvent, Event, ResultEvent, TextEvent, TraceEvent
from lambdas.endpoint.routing import ROUTING_STEP
from schema.eval_dataset import EvalItem

RECORDS_FILE = "records.jsonl"
MAX_STORED_ANSWER = 2000
# A question refused with HTTP 429 before any event (the tenant's fair share, docs/quota.md, or Bedrock's
# throttling past the endpoint's own retries) is asked again after the endpoint's Retry-After: a run that
# outpaces its share measures the tenant, not the throttle. Bounded: attempts, and each wait.
THROTTLED_ATTEMPTS = 5
MAX_RETRY_AFTER_SECONDS = 30.0

QueryFn = Callable[[EvalItem, str], Iterable[Event]]


@dataclass
class Record:
    """What one question asked in one mode produced: the judged ranking and what it cost."""

    id: str
    mode: str
    fingerprint: str
    target: str = ""  # target_key.target_key(): where and under which retrieval settings it was asked
    documents: list[str] = field(default_factory=list)  # distinct documents, in result order
    gold_ranks: list[int | None] = field(default_factory=list)
    relevant: list[bool] = field(default_factory=list)
    result_count: int = 0
    cited: int = 0  # distinct results the answer cites
    answer: str | None = None
    abstained: bool = False
    routed_mode: str | None = None  # the `done` event's mode: for `auto`, the path it took
    routing: str | None = None  # the Routing trace's message (auto only)
    note: str | None = None
    iterations: int | None = None
    time_to_first_event_ms: float | None = None  # measured by this client, request to first event
    duration_ms: float | None = None  # measured by this client, request to end of stream
    server_time_to_first_event_ms: int | None = None
    server_duration_ms: int | None = None
    cost_usd: float | None = None
    stop_reason: str | None = None
    error: str | None = None
    throttled: int = 0  # times the question was refused with 429 and asked again after Retry-After

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Record:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


def collect(
    item: EvalItem,
    mode: str,
    query: QueryFn,
    clock: Callable[[], float] = time.perf_counter,
    target: str = "",
    sleep: Callable[[float], None] = time.sleep,
) -> Record:
    """Asks one question in one mode and judges what came back. Never raises for a failed request."""
    record = Record(item.id, mode, item.fingerprint(), target, gold_ranks=[None] * item.gold_count)
    while True:
        start = clock()  # a throttled attempt's wait is not the answer's time
        events: dict[str, Any] = {"answer": []}
        wait = _ask(item, mode, query, clock, start, record, events)
        if wait is None:
            break
        record.throttled += 1
        sleep(wait)
    result: ResultEvent | None = events.get("result")
    done: DoneEvent | None = events.get("done")
    answer_parts: list[str] = events["answer"]
    record.duration_ms = round((clock() - start) * 1000, 1)
    if done is not None:
        record.routed_mode = done.mode
        record.iterations = done.iterations
        record.server_duration_ms = done.durationMs
        record.server_time_to_first_event_ms = done.timeToFirstEventMs
        record.cost_usd = done.estimatedCostUsd
        record.stop_reason = done.stopReason
    elif record.error is None:
        record.error = "stream ended without a done event"
    if result is not None:
        ranking = rank_documents(result.results)
        judged = judge(item.documents, item.spans, ranking)
        record.documents = [document.key for document in ranking]
        record.gold_ranks, record.relevant = list(judged.gold_ranks), list(judged.relevant)
        record.result_count = len(result.results)
        record.cited = len({index for citation in result.citations for index in citation.results})
        answer = result.answer if result.answer is not None else ("".join(answer_parts) if answer_parts else None)
        record.answer = answer[:MAX_STORED_ANSWER] if answer is not None else None
        record.note = result.note
        record.abstained = abstained(record.result_count, answer)
    elif record.error is None:
        record.error = "stream ended without a result event"
    if record.error is not None and result is None:
        record.abstained = False  # a failure is not an abstention
    return record


def _ask(
    item: EvalItem,
    mode: str,
    query: QueryFn,
    clock: Callable[[], float],
    start: float,
    record: Record,
    events: dict[str, Any],
) -> float | None:
    """One attempt: its events into `events` and `record`; the seconds to wait before asking again when it
    was refused with 429 before any event (None: judge what came back)."""
    try:
        for event in query(item, mode):
            if record.time_to_first_event_ms is None:
                record.time_to_first_event_ms = round((clock() - start) * 1000, 1)
            if isinstance(event, TraceEvent) and event.step == ROUTING_STEP and record.routing is None:
                record.routing = event.message
            elif isinstance(event, TextEvent):
                events["answer"].append(event.delta)
            elif isinstance(event, ResultEvent):
                events["result"] = event
            elif isinstance(event, ErrorEvent):
                record.error = f"{event.code}: {event.message}"
            elif isinstance(event, DoneEvent):
                events["done"] = event
    except Exception as error:  # a broken connection or bad response is a failed record, not a crash
        status, retry_after = getattr(error, "status", None), getattr(error, "retry_after", None)
        if status == 429 and record.time_to_first_event_ms is None and record.throttled + 1 < THROTTLED_ATTEMPTS:
            return min(float(retry_after or 1.0), MAX_RETRY_AFTER_SECONDS)
        record.error = f"{type(error).__name__}: {error}"
    return None


def load_records(path: Path) -> dict[tuple[str, str], Record]:
    """The last record per (id, mode); a line cut short by a crash is skipped."""
    records: dict[tuple[str, str], Record] = {}
    if not path.exists():
        return records
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = Record.from_dict(json.loads(line))
        except (json.JSONDecodeError, TypeError):
            continue
        records[(record.id, record.mode)] = record
    return records


def pending(
    items: Sequence[EvalItem], modes: Sequence[str], done: dict[tuple[str, str], Record], target: str = ""
) -> list[tuple[EvalItem, str]]:
    """Pairs still to ask: never recorded, recorded for other labels, another target or other
    retrieval settings, or recorded as an error."""
    todo = []
    for item in items:
        for mode in modes:
            record = done.get((item.id, mode))
            if (
                record is None
                or record.fingerprint != item.fingerprint()
                or record.target != target
                or record.error is not None
            ):
                todo.append((item, mode))
    return todo


def run_evaluation(
    items: Sequence[EvalItem],
    modes: Sequence[str],
    query: QueryFn,
    out_dir: Path,
    concurrency: int = 4,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Callable[[Record], None] | None = None,
    target: str = "",
) -> list[Record]:
    """Asks what is pending, `concurrency` at a time; returns one record per (item, mode), in order.

    `on_start(total, already_done)` and `on_record(record)` drive a progress display.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RECORDS_FILE
    records = load_records(path)
    todo = pending(items, modes, records, target)
    if on_start:
        on_start(len(items) * len(modes), len(items) * len(modes) - len(todo))
    with path.open("a", encoding="utf-8") as sink, ThreadPoolExecutor(concurrency) as pool:
        queue = iter(todo)
        running: set[Future[Record]] = set()
        try:
            while True:
                while len(running) < concurrency and (pair := next(queue, None)) is not None:
                    running.add(pool.submit(collect, pair[0], pair[1], query, time.perf_counter, target))
                if not running:
                    break
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    record = future.result()
                    sink.write(record.to_json() + "\n")  # only this thread writes
                    sink.flush()
                    records[(record.id, record.mode)] = record
                    if on_record:
                        on_record(record)
        except BaseException:
            for future in running:
                future.cancel()
            raise
    return [records[(item.id, mode)] for item in items for mode in modes if (item.id, mode) in records]
