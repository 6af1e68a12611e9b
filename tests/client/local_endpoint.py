"""Helpers for the end-to-end client tests: the REAL endpoint service (tests/conftest.py `endpoint`,
uvicorn on 127.0.0.1) in front of the REAL emulator, steered through the emulator's fault API."""

from __future__ import annotations

from typing import Any

import httpx


class Faults:
    """POST {emulator}/_emulator/faults, over HTTP as any tool would; reset after the test."""

    def __init__(self, emulator_url: str) -> None:
        self._url = emulator_url.rstrip("/") + "/_emulator/faults"

    def set(self, **spec: Any) -> None:
        response = httpx.post(self._url, json=spec, timeout=5)
        assert response.status_code == 200, response.text

    def reset(self) -> None:
        self.set(reset=True)


def emulator_streams(emulator_url: str) -> list[dict[str, Any]]:
    response = httpx.get(emulator_url.rstrip("/") + "/_emulator/streams", timeout=5)
    response.raise_for_status()
    return response.json()
