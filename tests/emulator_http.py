"""The emulator's control API over HTTP, as any tool outside the process would use it: fault
injection, the request journal and the stream records (local/emulator; docs/emulator.md).

For an emulator in another process (`akb local`'s) or the session emulator seen from outside;
inside the test process the `emulator` fixture's handle offers the same as method calls.
"""

from __future__ import annotations

from typing import Any

import httpx


class Faults:
    """POST {emulator}/_emulator/faults; reset after the test."""

    def __init__(self, emulator_url: str) -> None:
        self._url = emulator_url.rstrip("/") + "/_emulator/faults"

    def set(self, **spec: Any) -> None:
        response = httpx.post(self._url, json=spec, timeout=5)
        assert response.status_code == 200, response.text

    def reset(self) -> None:
        self.set(reset=True)


def _get(emulator_url: str, what: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{emulator_url.rstrip('/')}/_emulator/{what}", timeout=5)
    response.raise_for_status()
    return response.json()


def emulator_requests(emulator_url: str) -> list[dict[str, Any]]:
    """Every request the emulator received (its journal), oldest first."""
    return _get(emulator_url, "requests")


def emulator_streams(emulator_url: str) -> list[dict[str, Any]]:
    """The emulator's record of each stream it served (events sent, how it ended)."""
    return _get(emulator_url, "streams")
