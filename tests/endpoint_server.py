"""Starting the endpoint for tests: the real app under a real uvicorn, on a background thread.

In-process (not a subprocess) so a test can hand it tenant settings and read the EMF lines it
wrote; `tests/client/test_local.py` and `tests/lambdas/test_run_sh.py` cover the environment-driven
entry points (`akb local`, `lambdas/run.sh`) as separate processes.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any

from contract.settings import Retriever, TenantSettings
from tests.children import wait_until

DEFAULT_CALLER = "arn:aws:sts::123456789012:assumed-role/acme-app/alice"
# Like config/tenants/acme.yaml: acme-app's trust policy pins its session names, so they are user ids.
ACME_APP_ROLE = "arn:aws:iam::123456789012:role/acme-app"
CORPUS_DESCRIPTIONS = {
    "docs": "Public product documentation and API reference.",
    "tickets": "Closed customer support tickets and runbooks.",
    "handbook": "Engineering handbook, architecture decision records and on-call guides.",
    "wiki": "Team wiki pages about services, owners and incidents.",
}


def tenant_settings(aliases: tuple[str, ...] = ("docs", "tickets"), **overrides: Any) -> TenantSettings:
    """TenantSettings over the emulator's corpus folders (knowledge-base id = kb_id_for(alias))."""
    from local.emulator import kb_id_for

    settings = TenantSettings(
        tenant="acme",
        environment="test",
        retrievers=[Retriever(alias, kb_id_for(alias), CORPUS_DESCRIPTIONS[alias]) for alias in aliases],
        session_name_callers=[ACME_APP_ROLE],
    )
    return replace(settings, **overrides)


def emulator_client(emulator_url: str) -> Any:
    """The endpoint's production client (configuration and cancellable calls), pointed at the emulator."""
    import boto3
    from botocore.config import Config

    from lambdas.endpoint.upstream import CLIENT_CONFIG, make_cancellable

    return make_cancellable(
        boto3.client(
            "bedrock-agent-runtime",
            endpoint_url=emulator_url,
            region_name="us-west-2",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(**CLIENT_CONFIG),
        )
    )


@dataclass
class EndpointHandle:
    url: str
    settings: TenantSettings
    default_caller: str
    metric_lines: list[str] = field(default_factory=list)
    _server: Any = None
    _thread: threading.Thread | None = None

    def wait_idle(self, timeout: float = 10.0) -> None:
        """Until the server has no request in progress (uvicorn's shared server state): what a response
        still does after its last byte (storing the answer in the cache, the `done` record, the
        metrics) is then done. The observable event a test waits for before asserting what did not happen."""
        state = self._server.server_state
        wait_until(lambda: not state.tasks, "the endpoint to finish its requests", timeout)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._server.force_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> EndpointHandle:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def build_service(emulator: Any, settings: TenantSettings | None = None, **service: Any) -> Any:
    """A Service (service.py) talking to `emulator`, in local mode, with small backoff for fast retries."""
    from lambdas.endpoint.retry import Backoff
    from lambdas.endpoint.service import Service

    client = emulator_client(emulator.url)
    options: dict[str, Any] = {
        "local_mode": True,
        "local_caller_arn": DEFAULT_CALLER,
        "client_factory": lambda: client,
        "backoff": Backoff(base_seconds=0.01, cap_seconds=0.05),
    }
    options.update(service)
    return Service(settings=settings or tenant_settings(), **options)


def serve_in_thread(app: Any, name: str, lifespan: str = "off") -> tuple[Any, threading.Thread, int]:
    """(server, thread, port): `app` under a real uvicorn on 127.0.0.1 (a free port), once it accepts requests."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", access_log=False, lifespan=lifespan)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), f"{name} to start")
    if not server.started:
        raise RuntimeError(f"{name} did not start")
    return server, thread, server.servers[0].sockets[0].getsockname()[1]


def start_endpoint(emulator: Any, settings: TenantSettings | None = None, **service: Any) -> EndpointHandle:
    """Serves the endpoint on 127.0.0.1 (a free port) until `stop()`; returns once it accepts requests."""

    from lambdas.endpoint.asgi_app import create_app

    lines: list[str] = []
    service.setdefault("write_metrics", lines.append)
    built = build_service(emulator, settings, **service)
    server, thread, port = serve_in_thread(create_app(built), "akb-endpoint-test")
    return EndpointHandle(
        url=f"http://127.0.0.1:{port}",
        settings=built.settings,
        default_caller=built.local_caller_arn,
        metric_lines=lines,
        _server=server,
        _thread=thread,
    )


@dataclass
class Frame:
    type: str
    data: dict[str, Any]
    at: float  # time.monotonic() when the client had it


def iter_frames(response: Any) -> Any:
    """Frames of an httpx streaming response, SSE or NDJSON by its content type, as they arrive."""
    import json

    ndjson = response.headers.get("content-type", "").startswith("application/x-ndjson")
    event_type, data = None, None
    for line in response.iter_lines():
        if ndjson:
            if line:
                body = json.loads(line)
                yield Frame(body.pop("type"), body, time.monotonic())
            continue
        if line.startswith("event: "):
            event_type = line[len("event: ") :]
        elif line.startswith("data: "):
            data = json.loads(line[len("data: ") :])
        elif line == "" and event_type is not None:
            yield Frame(event_type, data or {}, time.monotonic())
            event_type, data = None, None


FUNCTION_ACCOUNT = "123456789012"  # the account the test endpoint "runs in" (acme's, config/environments/dev.yaml)


def context_header(
    arn: str, request_id: str | None = None, owner_account: str | None = FUNCTION_ACCOUNT
) -> dict[str, str]:
    """The `x-amzn-request-context` header the Web Adapter sends for an AWS_IAM function URL call:
    `accountId` is the function owner's account (None: left out), `authorizer.iam.accountId` the caller's."""
    import json

    caller_account = arn.split(":")[4] if arn.count(":") >= 5 else ""
    context: dict[str, Any] = {
        "apiId": "abcdefghijklmnop",
        "authorizer": {"iam": {"accountId": caller_account, "callerId": "AROAEXAMPLE:session", "userArn": arn}},
        "requestId": request_id or "5e3f6a1c-0000-4000-8000-000000000000",
        "routeKey": "$default",
        "stage": "$default",
    }
    if owner_account is not None:
        context["accountId"] = owner_account
    return {"x-amzn-request-context": json.dumps(context)}
