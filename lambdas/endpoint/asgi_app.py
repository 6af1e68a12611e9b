"""The ASGI app: routes and error handlers, wired from the other modules and nothing more.

In Lambda, run.sh starts `uvicorn --factory lambdas.endpoint.asgi_app:app_from_environment`: the app
is built once at startup from the environment (AKB_TENANT_SETTINGS: settings.py; AKB_LOCAL_MODE /
AKB_LOCAL_CALLER_ARN: identity.py). Tests and `akb local` build their own with `create_app(...)`.
"""

from __future__ import annotations

import os

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lambdas.endpoint import identity
from lambdas.endpoint.api_errors import internal_api_error
from lambdas.endpoint.cache.setup import cache_from_environment
from lambdas.endpoint.logs import logger
from lambdas.endpoint.query import Service, handle_query
from lambdas.endpoint.settings import TenantSettings
from lambdas.endpoint.upstream import shared_client

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(request: Request, error: Exception) -> Response:
    if not isinstance(error, HTTPException):  # registered for HTTPException only
        raise error
    code = _HTTP_CODES.get(error.status_code, "http_error")
    message = f"{request.method} {request.url.path}: {error.detail}"
    return JSONResponse({"error": {"code": code, "message": message}}, error.status_code, headers=error.headers)


async def _unexpected(request: Request, error: Exception) -> Response:
    logger().exception("unhandled error", extra={"path": request.url.path})
    failure = internal_api_error()
    return JSONResponse(failure.body(), failure.status)  # never the traceback


def create_app(service: Service) -> Starlette:
    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "tenant": service.settings.tenant})

    async def query(request: Request) -> Response:
        return await handle_query(service, request)

    app = Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/v1/query", query, methods=["POST"]),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _unexpected},
    )
    # Starlette would answer `/v1/query/` with a 307 whose Location it builds from the Host header
    # (any host a client names); the API has exactly two paths, so anything else is a plain 404.
    app.router.redirect_slashes = False
    return app


def service_from_environment() -> Service:
    settings = TenantSettings.from_environment()
    return Service(
        settings=settings,
        local_mode=identity.local_mode_enabled(os.environ),  # refuses to run inside Lambda
        local_caller_arn=os.environ.get(identity.LOCAL_CALLER_ENV) or None,
        cache=cache_from_environment(settings, os.environ, shared_client),  # AKB_CACHE_TABLE | AKB_CACHE_PATH
    )


def app_from_environment() -> Starlette:
    """uvicorn's --factory entry: the service configured by the function's environment."""
    return create_app(service_from_environment())
