"""The playground's routes: the page, the tenant it talks to, and one streaming query route.

| route | answers |
|---|---|
| `GET /?token=T` | the page (static/index.html with this run's token in a meta tag; never cached) |
| `GET /static/...` | its CSS and JavaScript, shipped as package data |
| `GET /api/tenant` | the endpoint's address and the tenant's knowledge bases, caps and features (no secret) |
| `POST /api/query` | one endpoint request, relayed as Server-Sent Events while it runs (event_bridge.py) |
| `GET /api/document?kb=A&id=D` | a whole document an answer returned, from `akb local`'s corpus (document_shelf.py) |

`/api/query` takes the endpoint's own request fields (camelCase, docs/endpoint.md) and checks only their
JSON types: whether a value is allowed is the endpoint's to say, so the page shows the endpoint's own
code and message (a `maxAgentIteration` above the cap is the endpoint's 400 `limit_exceeded`).
The guard in front of all of it is origin_guard.py.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from client.playground.document_shelf import DocumentShelf, DocumentUnavailable
from client.playground.event_bridge import browser_frames, relay
from client.playground.origin_guard import LoopbackGuard

if TYPE_CHECKING:
    from client.endpoint_client import Client, QueryOptions
    from client.playground.endpoint_target import Target
    from client.playground.origin_guard import ASGIApp

MAX_BODY_BYTES = 256 * 1024  # far above any request the page builds (the endpoint's own limit is smaller)
TOKEN_PLACEHOLDER = "__PLAYGROUND_TOKEN__"  # noqa: S105 - a placeholder in the page, not a secret


class PageQuery(BaseModel):
    """The endpoint's request fields the page can set (docs/endpoint.md); JSON types only."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: str
    mode: str | None = None
    knowledgeBases: list[str] | None = None  # noqa: N815 - the endpoint's camelCase field
    filter: dict[str, Any] | None = None
    maxAgentIteration: int | None = None  # noqa: N815
    maxResults: int | None = None  # noqa: N815
    generateResponse: bool | None = None  # noqa: N815
    sessionId: str | None = None  # noqa: N815
    persistence: str | None = None
    userId: str | None = None  # noqa: N815

    def options(self) -> QueryOptions:
        """`Client.query()`'s keyword arguments; None leaves a field out (the tenant's default)."""
        return {
            "mode": self.mode,
            "knowledge_bases": self.knowledgeBases,
            "filter": self.filter,
            "max_agent_iteration": self.maxAgentIteration,
            "max_results": self.maxResults,
            "generate_response": self.generateResponse,
            "session_id": self.sessionId,
            "persistence": self.persistence,
            "user_id": self.userId,
        }


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def page_html(token: str) -> str:
    page = resources.files("client.playground").joinpath("static", "index.html").read_text(encoding="utf-8")
    return page.replace(TOKEN_PLACEHOLDER, html.escape(token, quote=True))


def _validation_message(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "body"
    return f"field '{where}': {first['msg']}"


def create_app(target: Target, client: Client, token: str, origin: str) -> ASGIApp:
    """The whole ASGI app: the routes behind the loopback guard (Host, Origin, token)."""

    shelf = DocumentShelf(target.corpus_root)

    async def page(_: Request) -> Response:
        return HTMLResponse(page_html(token), headers={"cache-control": "no-store"})

    async def tenant(_: Request) -> Response:
        return JSONResponse(target.page_json(), headers={"cache-control": "no-store"})

    async def query(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error(415, "unsupported_media_type", "send the query as application/json")
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, "body_too_large", f"the query is above {MAX_BODY_BYTES} bytes")
        try:
            asked = PageQuery.model_validate(json.loads(body))
        except json.JSONDecodeError as error:
            return _error(400, "invalid_json", f"the body is not JSON: {error.msg}")
        except RecursionError:
            return _error(400, "invalid_json", "the body is nested too deeply")
        except ValidationError as error:
            return _error(400, "invalid_playground_request", _validation_message(error))
        frames = relay(browser_frames(client, asked.question, asked.options(), shelf.remember))
        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        return StreamingResponse(frames, media_type="text/event-stream", headers=headers)

    async def document(request: Request) -> Response:
        alias, document_id = request.query_params.get("kb", ""), request.query_params.get("id", "")
        try:
            text = shelf.read(alias, document_id)
        except DocumentUnavailable as unavailable:
            return _error(unavailable.status, unavailable.code, unavailable.message)
        return JSONResponse({"knowledgeBase": alias, "documentId": document_id, "text": text})

    app = Starlette(
        routes=[
            Route("/", page, methods=["GET"]),
            Route("/api/tenant", tenant, methods=["GET"]),
            Route("/api/query", query, methods=["POST"]),
            Route("/api/document", document, methods=["GET"]),
            Mount("/static", app=StaticFiles(packages=[("client.playground", "static")]), name="static"),
        ]
    )
    return LoopbackGuard(app, origin, token)
