"""Result pages the emulator still owes: AgenticRetrieveStream's `result.nextToken` and request `nextToken`.

When the evidence holds more results than the retrievers' maxNumberOfResults admit, the surplus is
kept here under a fresh token and the result carries it as `nextToken`; a request that sends the
token back gets the next page. How the service sizes its pages is UNVERIFIED (ledger); the
emulator's page is what the retrievers' caps admit, so a page never exceeds what was asked for.
A token is bound to the user it was issued to: another userContext cannot read the rest.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from local.emulator.service_errors import ServiceError

MAX_PENDING = 256  # oldest tokens are forgotten first; a forgotten token is an invalid one


@dataclass(frozen=True)
class Page:
    user_id: str | None
    items: tuple[Any, ...]  # the hits still owed, best first
    caps: tuple[tuple[str, int], ...]  # knowledge base id -> results per page


class Pages:
    """Thread-safe token -> owed results; each token is good for one read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pages: dict[str, Page] = {}

    def issue(self, user_id: str | None, items: Sequence[Any], caps: dict[str, int]) -> str | None:
        if not items:
            return None
        token = secrets.token_urlsafe(24)
        with self._lock:
            if len(self._pages) >= MAX_PENDING:
                del self._pages[next(iter(self._pages))]
            self._pages[token] = Page(user_id, tuple(items), tuple(sorted(caps.items())))
        return token

    def take(self, token: str, user_id: str | None) -> Page:
        """The page for `token`, or ValidationException (unknown, used, or another user's token)."""
        with self._lock:
            page = self._pages.get(token)
            if page is None or page.user_id != user_id:
                raise ServiceError("ValidationException", "The provided nextToken is not valid or has expired")
            del self._pages[token]
        return page
