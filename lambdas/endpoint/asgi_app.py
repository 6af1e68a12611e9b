"""The ASGI app: routes and error handlers, wired from the other modules and nothing more.

In Lambda, run.sh starts uvicorn through serve.py, whose factory calls `app_from_environment`: the app
is built once at startup from the environment (AKB_TENANT_SETTINGS: settings.py; AKB_LOCAL_MODE /
AKB_LOCAL_CALLER_ARN: identity.py). Tests and `akb local` build their own with `create_app(...)`.
"""

from __future__ import annotations

import os
from typing import Any

from contract.env_vars import LOCAL_FRONT_DOOR as LOCAL_FRONT_DOOR_ENV
from contract.settings import TenantSettings
from lambdas.endpoint import identity
from lambdas.endpoint.api_errors import internal_api_error
from lambdas.endpoint.http_exchange import App, HttpRequest, json_response
from lambdas.endpoint.http_router import Router
from lambdas.endpoint.local_front_door import LocalApiGateway
from lambdas.endpoint.logs import log_exception
from lambdas.endpoint.page_tokens import page_tokens_from_environment
from lambdas.endpoint.request_pipeline import handle_query
from lambdas.endpoint.service import Service
from lambdas.endpoint.snapstart import add_snapstart_hooks
from lambdas.endpoint.upstream import shared_client


def _unexpected(request: HttpRequest) -> App:
    log_exception("unhandled error", path=request.path)
    failure = internal_api_error()
    return json_response(failure.body(), failure.status)  # never the traceback


def create_app(service: Service) -> Router:
    async def healthz(request: HttpRequest) -> App:
        return json_response({"status": "ok", "tenant": service.settings.tenant})

    async def query(request: HttpRequest) -> App:
        return await handle_query(service, request)

    app = Router(on_error=_unexpected)
    app.add_route("/healthz", healthz, methods=["GET"])
    app.add_route("/v1/query", query, methods=["POST"])
    return app


def service_from_environment() -> Service:
    settings = TenantSettings.from_environment()
    local_mode = identity.local_mode_enabled(os.environ)  # refuses to run inside Lambda
    return Service(
        settings=settings,
        local_mode=local_mode,
        local_caller_arn=os.environ.get(identity.LOCAL_CALLER_ENV) or None,
        request_contexts=identity.request_contexts_from(os.environ),  # AKB_REQUEST_CONTEXTS (front doors)
        cache=_cache(settings),  # AKB_CACHE_TABLE | AKB_CACHE_PATH
        page_tokens=page_tokens_from_environment(os.environ, local_mode),  # AKB_PAGE_TOKEN_KEY
        wrappers=_fair_share(settings),  # AKB_QUOTA_TABLE | AKB_QUOTA_PATH; inside the cache (a hit takes no token)
    )


def _cache(settings: TenantSettings) -> Any:
    """The tenant's result cache, or None; its modules (sqlite3, keys, ACL re-check) load only when it has one."""
    if settings.cache is None:
        return None
    from lambdas.endpoint.cache.setup import cache_from_environment

    return cache_from_environment(settings, os.environ, shared_client)


def _fair_share(settings: TenantSettings) -> list[Any]:
    """The tenant's fair-share wrapper, when its settings carry `quota`; its modules load only then."""
    if settings.quota is None:
        return []
    from lambdas.endpoint.quota.quota_setup import fair_share_wrapper

    wrapper = fair_share_wrapper(settings)
    return [wrapper] if wrapper is not None else []


def app_from_environment() -> Any:
    """uvicorn's --factory entry: the service configured by the function's environment.

    Under `akb local --front-door api_gateway` (local mode only) the app sits behind the local stand-in
    for API Gateway + the adapter (local_front_door.py); SnapStart hooks exist only where the stack
    configured them (snapstart.py)."""
    service = service_from_environment()
    app = create_app(service)
    add_snapstart_hooks(app, os.environ)
    front_door = os.environ.get(LOCAL_FRONT_DOOR_ENV)
    if not front_door:
        return app
    if not service.local_mode or front_door != identity.API_GATEWAY:
        raise RuntimeError(
            f"{LOCAL_FRONT_DOOR_ENV}={front_door!r}: the local front door is `api_gateway`, and only with "
            f"{identity.LOCAL_MODE_ENV}=1 (akb local)"
        )
    return LocalApiGateway(app, service.local_caller_arn or identity.LOCAL_DEFAULT_CALLER)
