"""run.sh's entry: uvicorn's own command line, with the cycle collector held off while the function starts.

A cold start allocates a few hundred thousand objects that live as long as the process — modules,
classes, the settings, the app and, on the first query, the boto3 client with botocore's service
model — and almost no garbage. Left on, the cycle collector walks them over and over while they are
made (a full collection during the imports, dozens of younger ones while botocore loads its model)
and frees nothing: about a tenth of a cold start's work (bench/RESULTS.md, "Endpoint init in
instructions"). So `main` turns it off before uvicorn is imported, and it comes back on when the
first request other than the adapter's readiness check has ended — whatever its outcome — with
everything allocated so far moved into the permanent generation (`gc.freeze`: no later collection
walks the start's objects again). A request leaves about a hundred cyclic objects (~20 KB) behind,
so the wait is bounded as well: at the latest after `MAX_HELD_REQUESTS` requests of any kind. The
garbage the start itself made is frozen with the rest and never freed: measured at about 1,500
objects (0.5 MB) with the emulator and a test harness in the same process, once per process — less
than one full collection would cost.

    python -m lambdas.endpoint.serve --factory lambdas.endpoint.serve:app_from_environment [uvicorn options]
"""

from __future__ import annotations

import gc

from contract.env_vars import READINESS_PATH
from lambdas.endpoint.http_exchange import App, Receive, Scope, Send

MAX_HELD_REQUESTS = 100


def hold_collector() -> None:
    """No cycle collection until the start is over (it allocates, it does not discard)."""
    gc.disable()


def release_collector() -> None:
    """The start's objects out of every later collection, and the collector back on."""
    gc.freeze()
    gc.enable()


class CollectorHeldUntilFirstQuery:
    """The app; the collector is released when the first request that is not the readiness check ends."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.held = not gc.isenabled()
        self.requests = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            if self.held and scope["type"] == "http":
                self.requests += 1
                if scope["path"] != READINESS_PATH or self.requests >= MAX_HELD_REQUESTS:
                    self.held = False
                    release_collector()


def app_from_environment() -> App:
    """uvicorn's --factory: the app asgi_app builds from the environment, holding the collector until
    the first query has ended."""
    from lambdas.endpoint.asgi_app import app_from_environment as build

    return CollectorHeldUntilFirstQuery(build())


def main() -> None:
    hold_collector()
    from uvicorn.main import main as uvicorn_main

    uvicorn_main()  # reads sys.argv: run.sh's options


if __name__ == "__main__":
    main()
