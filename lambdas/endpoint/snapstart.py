"""Lambda SnapStart hooks of the endpoint: nothing that holds credentials or sockets crosses the snapshot.

With `snapstart: true` the stack sets the Lambda Web Adapter's hook variables
(`AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH`, `AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH`; adapter 1.1.0,
src/snapstart.rs: an empty POST to each path, any non-2xx fails the phase). The app then answers:

- before the checkpoint: imports boto3/botocore (the slow part of the first request, paid once in
  the snapshot instead of on every restore) and drops any client or default session that exists.
- after restore: drops them again, so the first request creates its clients — and resolves its
  credentials and opens its connections — in the restored environment. AWS's SnapStart guidance:
  connections made during init are not guaranteed to survive a restore, and SDK clients should be
  created (or re-validated) after it (Lambda developer guide, snapstart-best-practices, networking).

The endpoint already creates its clients on first use (upstream.py, cache/setup.py) and the adapter's
readiness check (GET /healthz) creates none, so normally there is nothing to drop; the hooks make that a
checked property rather than an accident. Dropping is idempotent and harmless, so a stray POST to a hook
path costs one client re-creation and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

from contract.env_vars import SNAPSTART_AFTER_RESTORE as AFTER_RESTORE_ENV
from contract.env_vars import SNAPSTART_BEFORE_CHECKPOINT as BEFORE_CHECKPOINT_ENV
from lambdas.endpoint.http_exchange import App, HttpRequest, json_response
from lambdas.endpoint.http_router import Router


def forget_clients() -> int:
    """Drops every boto3 client the endpoint made and boto3's default session; returns how many clients."""
    import sys

    from lambdas.endpoint import upstream

    dropped = upstream.reset_shared_client()
    setup = sys.modules.get("lambdas.endpoint.cache.setup")  # loaded only for tenants with a cache
    if setup is not None:
        dropped += setup.forget_lazy_clients()
    boto3 = sys.modules.get("boto3")
    if boto3 is not None:
        setattr(boto3, "DEFAULT_SESSION", None)  # noqa: B010 - its credential cache must not outlive the snapshot
    return dropped


def prewarm_imports() -> None:
    """Imports what creating the first client needs, so the snapshot holds it (no client, no credentials)."""
    import boto3  # noqa: F401
    import botocore.client
    import botocore.eventstream  # noqa: F401
    from botocore.config import Config  # noqa: F401


async def _before_checkpoint(request: HttpRequest) -> App:
    prewarm_imports()
    return json_response({"dropped_clients": forget_clients()})


async def _after_restore(request: HttpRequest) -> App:
    return json_response({"dropped_clients": forget_clients()})


def add_snapstart_hooks(app: Router, environ: Mapping[str, str]) -> None:
    """Registers the hook routes at the paths the adapter was told (and only then)."""
    for variable, handler in ((BEFORE_CHECKPOINT_ENV, _before_checkpoint), (AFTER_RESTORE_ENV, _after_restore)):
        path = environ.get(variable)
        if path:
            app.add_route(path, handler, methods=["POST"])
