"""run.sh's entry: uvicorn's own command line, with the cycle collector held off while the function starts.

Starting the endpoint allocates a few hundred thousand objects that live as long as the process
(modules, classes, the settings, the app) and almost no garbage. Left on, the cycle collector walks
all of them in a full collection part-way through the imports — about 18 ms, 6 % of a cold start's
work, freeing nothing (bench/RESULTS.md, "Endpoint init in instructions"). So `main` turns it off
before uvicorn is imported, and the factory, once the app exists, moves everything allocated so far
into the permanent generation (`gc.freeze`: later collections never walk the init's objects again)
and turns it back on for the requests' own garbage.

    python -m lambdas.endpoint.serve --factory lambdas.endpoint.serve:app_from_environment [uvicorn options]
"""

from __future__ import annotations

import gc
from typing import Any


def hold_collector() -> None:
    """No cycle collection until `app_from_environment` has built the app (the start allocates, it
    does not discard)."""
    gc.disable()


def app_from_environment() -> Any:
    """uvicorn's --factory: the app asgi_app builds from the environment, then the collector back on."""
    from lambdas.endpoint.asgi_app import app_from_environment as build

    app = build()
    gc.freeze()
    gc.enable()
    return app


def main() -> None:
    hold_collector()
    from uvicorn.main import main as uvicorn_main

    uvicorn_main()  # reads sys.argv: run.sh's options


if __name__ == "__main__":
    main()
