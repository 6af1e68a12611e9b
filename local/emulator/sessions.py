"""AgentCore Memory behind AgenticRetrieveStream's `memoryConfiguration`, in process.

Short-term memory: sessions keyed by (memoryId, actorId, sessionId), each a list of turns — one
event per AgenticRetrieveStream call with persistenceMode DEFAULT, holding the question and the
generated answer ("persisted to the session as a single event": botocore model). The key includes
the actor, as the service scopes history ("one actor's history is never returned for another"):
the same session id under another actor is another, empty session.

Long-term memory: records with a namespace, added through the control API (`POST
/_emulator/memory-records`); the emulator runs no extraction strategy (an LLM pipeline in the
service), so what a strategy would extract is seeded by tests. A retrieval config's `namespace`
matches records whose namespace starts with it, `namespacePath` those at or under that parent
(botocore model docs); `strategyId`, when given, must match the record's.

The emulator accepts any model-valid memory id (it has no AgentCore control plane); the service
requires an existing ACTIVE memory.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from local.emulator.text import tokenize

MAX_RECORDS_RETURNED = 5  # the emulator's choice: the service's count is not documented


@dataclass(frozen=True)
class Turn:
    question: str
    answer: str


@dataclass(frozen=True)
class MemoryRecord:
    memory_id: str
    namespace: str
    text: str
    strategy_id: str | None = None


class MemoryStore:
    """Thread-safe: the emulator serves each request on its own thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[tuple[str, str, str], list[Turn]] = {}
        self._records: list[MemoryRecord] = []

    def history(self, memory_id: str, actor_id: str, session_id: str) -> list[Turn]:
        with self._lock:
            return list(self._sessions.get((memory_id, actor_id, session_id), ()))

    def append(self, memory_id: str, actor_id: str, session_id: str, turn: Turn) -> None:
        with self._lock:
            self._sessions.setdefault((memory_id, actor_id, session_id), []).append(turn)

    def add_record(self, record: MemoryRecord) -> None:
        with self._lock:
            self._records.append(record)

    def search(
        self,
        memory_id: str,
        query: str,
        namespace: str | None = None,
        namespace_path: str | None = None,
        strategy_id: str | None = None,
    ) -> list[MemoryRecord]:
        """Records in scope, best lexical overlap with `query` first (those with none are left out)."""
        with self._lock:
            records = [r for r in self._records if r.memory_id == memory_id]
        in_scope = [
            r
            for r in records
            if _in_namespace(r.namespace, namespace, namespace_path)
            and (strategy_id is None or r.strategy_id == strategy_id)
        ]
        terms = set(tokenize(query))
        scored = [(len(terms & set(tokenize(r.text))), n, r) for n, r in enumerate(in_scope)]
        return [r for score, _, r in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0][:MAX_RECORDS_RETURNED]

    def sessions(self) -> list[dict[str, object]]:
        """Every session with its turn count (the control API's view, for tests and `akb local`)."""
        with self._lock:
            return [
                {"memoryId": m, "actorId": a, "sessionId": s, "turns": len(turns)}
                for (m, a, s), turns in self._sessions.items()
            ]

    def clear(self) -> None:
        with self._lock:
            self._sessions.clear()
            self._records.clear()


def _in_namespace(record_namespace: str, prefix: str | None, parent: str | None) -> bool:
    if prefix is not None:
        return record_namespace.startswith(prefix)
    if parent is not None:
        base = parent.rstrip("/")
        return record_namespace == base or record_namespace.startswith(base + "/")
    return False


def earlier_questions(turns: Sequence[Turn]) -> list[str]:
    return [turn.question for turn in turns]
