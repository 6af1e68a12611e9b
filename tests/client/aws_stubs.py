"""botocore Stubbers on real boto3 clients for commands that call AWS (a stand-in: no AWS account here).

The Stubber validates every request's parameters and every scripted response against botocore's
service models, so code that sends a wrong parameter name or reads a field the API does not have
fails in tests; nothing is sent.
"""

from __future__ import annotations

import functools
from typing import Any

import boto3
from botocore.stub import Stubber

REGION = "us-west-2"


@functools.cache
def shared_session() -> Any:
    """One boto3 session for the whole run: it keeps the service models it has read, so each test's
    clients take milliseconds instead of re-reading the JSON models (every test still gets its own
    clients and Stubbers)."""
    return boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)


class Stubs:
    """service -> a real client whose Stubber answers from a script; used as the checkup's client factory."""

    def __init__(self) -> None:
        self._session = shared_session()
        self.clients: dict[str, Any] = {}
        self.stubbers: dict[str, Stubber] = {}

    def __call__(self, service: str) -> Any:
        self._ensure(service)
        return self.clients[service]

    def _ensure(self, service: str) -> Stubber:
        if service not in self.clients:
            self.clients[service] = self._session.client(service)
            self.stubbers[service] = Stubber(self.clients[service])
            self.stubbers[service].activate()
        return self.stubbers[service]

    def respond(self, service: str, method: str, response: dict[str, Any], params: dict[str, Any] | None = None):
        self._ensure(service).add_response(method, response, params)
        return self

    def error(self, service: str, method: str, code: str, *, status: int = 400, message: str = "", params=None):
        self._ensure(service).add_client_error(
            method, service_error_code=code, service_message=message, http_status_code=status, expected_params=params
        )
        return self

    def assert_all_used(self) -> None:
        for stubber in self.stubbers.values():
            stubber.assert_no_pending_responses()

    def close(self) -> None:
        for stubber in self.stubbers.values():
            stubber.deactivate()
