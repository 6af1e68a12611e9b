"""HTTP plumbing: routes, status codes and headers as botocore expects them, and the control API.

A stdlib ThreadingHTTPServer with hand-written chunked encoding: every event is one chunk written
straight to the socket (no buffering layer to defeat), and a failed write or a readable-at-EOF
socket tells us the client has gone. Request bodies come with Content-Length or chunked
(`Transfer-Encoding: chunked`, decoded here: http.server leaves that to the handler), bounded by
MAX_BODY_BYTES either way. The listen backlog is LISTEN_BACKLOG, not socketserver's 5: a burst of
hundreds of connections must queue, not be reset before the server ever sees them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import select
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from local.emulator.account_quota import AccountQuota
from local.emulator.agent_runtime import INVOKE_AGENT_PATH, Agents, Orchestration, emulator_client
from local.emulator.agentic_stream import AgenticRun
from local.emulator.corpus import KnowledgeBase
from local.emulator.faults import Faults
from local.emulator.guardrails import GuardrailPolicy, GuardrailRegistry
from local.emulator.index import KnowledgeBaseIndex
from local.emulator.ingestion import Ingestion
from local.emulator.journal import Journal
from local.emulator.pages import Pages
from local.emulator.pump import End, pump
from local.emulator.retrieve_api import run_retrieve
from local.emulator.service_errors import ServiceError
from local.emulator.sessions import MemoryRecord, MemoryStore
from local.emulator.stream_corruption import corrupt, corrupt_retrieve
from local.emulator.validation import knowledge_base_id_from, validate_agentic, validate_retrieve

log = logging.getLogger("local.emulator")

MAX_BODY_BYTES = 5 * 1024 * 1024
# Pending connections the kernel queues before accept() (Linux caps it at net.core.somaxconn, 4096
# by default since 5.4); socketserver's default of 5 resets connections under a burst of streams.
LISTEN_BACKLOG = 1024
_POLL_SECONDS = 0.05  # how often a held response (delay_first_ms) checks that its client is still there
_RETRIEVE_PATH = re.compile(r"^/knowledgebases/([^/]+)/retrieve$")
# bedrock-agent's data sources and ingestion jobs, and bedrock-agent-runtime's ACL check
# (request URIs from botocore's service models; ingestion.py).
_KB = r"^/knowledgebases/([^/]+)/datasources"
_CONTROL_PLANE: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("POST", re.compile(_KB + r"/?$"), "list_data_sources"),
    ("POST", re.compile(_KB + r"/([^/]+)/ingestionjobs/?$"), "list_jobs"),
    ("PUT", re.compile(_KB + r"/([^/]+)/ingestionjobs/?$"), "start_job"),
    ("GET", re.compile(_KB + r"/([^/]+)/ingestionjobs/([^/]+)$"), "get_job"),
    ("POST", re.compile(_KB + r"/([^/]+)/check-ingested-document-acl$"), "check_acl"),
)


class EmulatorState:
    """Everything the request handlers share: indexes, faults, the journal, the stop flag."""

    def __init__(self, knowledge_bases: Mapping[str, KnowledgeBase], delay_ms: float) -> None:
        self.knowledge_bases = dict(knowledge_bases)
        self.indexes = {kb_id: KnowledgeBaseIndex(kb) for kb_id, kb in knowledge_bases.items()}
        self.faults = Faults(delay_ms)
        self.journal = Journal()
        self.ingestion = Ingestion(knowledge_bases, self.indexes)
        self.pages = Pages()
        self.retrieve_pages = Pages()  # Retrieve's nextToken pages (retrieve_api.py)
        self.memory = MemoryStore()
        self.agents = Agents()  # InvokeAgent for registered local agents (agent_runtime.py)
        self.guardrails = GuardrailRegistry()  # tenants' guardrails by id and version (guardrails.py)
        self.account_quota: AccountQuota | None = None  # `--account-rpm` (account_quota.py); None: not enforced
        self.stopping = threading.Event()

    def knowledge_base_list(self) -> list[dict[str, Any]]:
        return [
            {
                "id": kb.kb_id,
                "folder": kb.folder,
                "name": kb.name,
                "description": kb.description,
                "document_count": len(kb.documents),
                "chunk_count": sum(len(d.chunks) for d in kb.documents.values()),
            }
            for kb in self.knowledge_bases.values()
        ]


_WITH_BODY = ("list_jobs", "start_job", "check_acl")


class _BadRequest(Exception):
    """A control-API request the emulator cannot apply (HTTP 400, not an AWS error)."""


class _HangUp(Exception):
    """Close the connection without any answer (the `disconnect_before` fault)."""


def _too_deep() -> ServiceError:
    return ServiceError("ValidationException", "The request body nests too deeply")


def _json_body(raw: bytes) -> Any:
    """The parsed body; ValueError for anything that is not JSON, including absurd nesting."""
    try:
        return json.loads(raw)
    except RecursionError:  # thousands of nested brackets: a client error, never a 500
        raise ValueError("The request body nests too deeply") from None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, and chunked transfer for the stream
    server_version = "akb-bedrock-emulator"
    timeout = 120  # idle keep-alive connections do not hold a thread forever
    server: EmulatorServer
    # TCP_NODELAY on every accepted socket (socketserver sets it in setup()): headers and each event
    # are separate small writes, and with Nagle's algorithm on the first event of a reused
    # connection would wait for the peer's delayed (~40 ms) ACK of the headers.
    disable_nagle_algorithm = True
    tcp_nodelay = False  # what the socket reports after setup(), journaled per stream

    # -- plumbing -----------------------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        self.tcp_nodelay = bool(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s - %s", self.address_string(), format % args)

    @property
    def state(self) -> EmulatorState:
        return self.server.state

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            self.close_connection = True
            raise ServiceError("ValidationException", "Invalid or too large Content-Length")
        return self.rfile.read(length) if length else b""

    def _read_chunked(self) -> bytes:
        """A chunked body (RFC 9112 section 7.1): hex size line, data, CRLF; a 0 chunk, then trailers."""
        body = bytearray()
        while True:
            size_line = self.rfile.readline(1026).split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                size = -1
            if size < 0 or len(body) + size > MAX_BODY_BYTES:
                self.close_connection = True  # the rest of the body cannot be found: drop the connection
                raise ServiceError("ValidationException", "Invalid chunked body or body too large")
            if size == 0:
                while self.rfile.readline(8194) not in (b"\r\n", b"\n", b""):
                    pass  # trailer fields: ignored
                return bytes(body)
            body += self.rfile.read(size)
            self.rfile.readline(3)  # the CRLF after the chunk's data

    def _send(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        raw = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.send_header("x-amzn-RequestId", str(uuid.uuid4()))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    def _send_error(self, error: ServiceError) -> None:
        """The service's error shape: status, x-amzn-ErrorType, and a JSON body with `message`."""
        self._send(error.status, {"message": error.message}, {"x-amzn-ErrorType": error.code})

    def _dispatch(self, routes: Mapping[str, Callable[[], None]]) -> None:
        path = urlsplit(self.path).path
        try:
            route = routes.get(path)
            if route is None and self.command == "POST" and _RETRIEVE_PATH.fullmatch(path):
                route = self._retrieve
            if route is None and self.command == "POST" and INVOKE_AGENT_PATH.fullmatch(path):
                route = self._invoke_agent
            route = route or self._control_plane(path)
            if route is None:
                self._read_body()
                self._send(
                    404,
                    {"message": f"No route for {self.command} {path}"},
                    {"x-amzn-ErrorType": "UnknownOperationException"},
                )
                return
            route()
        except ServiceError as error:
            self._send_error(error)
        except _HangUp:
            self._hang_up()
        except _BadRequest as error:
            self._send(400, {"message": str(error)})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:  # never a traceback on the wire; keep it in the server's log
            log.exception("unhandled error serving %s %s", self.command, path)
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._send_error(ServiceError("InternalServerException", "Internal error in the emulator"))

    def do_GET(self) -> None:
        self._dispatch(
            {
                "/_emulator/requests": lambda: self._send(200, self.state.journal.requests()),
                "/_emulator/streams": lambda: self._send(200, self.state.journal.streams()),
                "/_emulator/knowledgebases": lambda: self._send(200, self.state.knowledge_base_list()),
                "/_emulator/faults": lambda: self._send(200, self.state.faults.snapshot()),
                "/_emulator/health": lambda: self._send(200, {"status": "ok"}),
                "/_emulator/account-quota": self._account_quota,
                "/_emulator/memory-sessions": lambda: self._send(200, self.state.memory.sessions()),
            }
        )

    def do_DELETE(self) -> None:
        self._dispatch({"/_emulator/requests": self._clear_requests, "/_emulator/streams": self._clear_streams})

    def do_POST(self) -> None:
        self._dispatch(
            {
                "/agenticRetrieveStream": self._agentic,
                "/_emulator/faults": self._faults,
                "/_emulator/ingestion/complete": self._complete_ingestion,
                "/_emulator/acl": self._set_acl,
                "/_emulator/memory-records": self._add_memory_record,
                "/_emulator/agents": self._register_agent,
                "/_emulator/guardrails": self._register_guardrail,
            }
        )

    def do_PUT(self) -> None:
        self._dispatch({})

    def _control_plane(self, path: str) -> Callable[[], None] | None:
        """The ingestion-job and ACL-check routes; they never consume armed stream faults."""
        for method, pattern, operation in _CONTROL_PLANE:
            match = pattern.fullmatch(path)
            if match and self.command == method:
                ids = [unquote(group) for group in match.groups()]

                def route(operation: str = operation, ids: list[str] = ids) -> None:
                    body = self._control_body(record=True)
                    handler = getattr(self.state.ingestion, operation)
                    status = 202 if operation == "start_job" else 200  # StartIngestionJob answers 202
                    self._send(status, handler(*ids, body) if operation in _WITH_BODY else handler(*ids))

                return route
        return None

    def _control_body(self, record: bool = False) -> Any:
        raw = self._read_body()
        try:
            body = json.loads(raw) if raw else {}
        except (ValueError, UnicodeDecodeError):
            raise ServiceError("ValidationException", "The request body is not valid JSON") from None
        if record:
            self.state.journal.record_request(self.command, urlsplit(self.path).path, dict(self.headers), body)
        if not isinstance(body, dict):
            raise ServiceError("ValidationException", "The request body must be a JSON object")
        return body

    def _complete_ingestion(self) -> None:
        body = self._control_body()
        self._send(200, self.state.ingestion.complete(str(body.get("knowledgeBaseId"))))

    def _set_acl(self) -> None:
        body = self._control_body()
        users = body.get("users")
        if users is not None and not (isinstance(users, list) and all(isinstance(u, str) for u in users)):
            raise _BadRequest('"users" must be a list of user ids, or null for no ACL')
        kb_id, document_id = str(body.get("knowledgeBaseId")), str(body.get("documentId"))
        self._send(200, self.state.ingestion.set_acl(kb_id, document_id, users))

    def _add_memory_record(self) -> None:
        """Seeds a long-term memory record (what a strategy would have extracted: sessions.py)."""
        body = self._control_body()
        memory_id, namespace, text = (body.get(key) for key in ("memoryId", "namespace", "text"))
        if not all(isinstance(value, str) and value for value in (memory_id, namespace, text)):
            raise _BadRequest('"memoryId", "namespace" and "text" must be non-empty strings')
        strategy = body.get("strategyId")
        record = MemoryRecord(
            str(memory_id), str(namespace), str(text), strategy_id=strategy if isinstance(strategy, str) else None
        )
        self.state.memory.add_record(record)
        self._send(200, {"added": 1})

    # -- control API --------------------------------------------------------------------------
    def _register_agent(self) -> None:
        try:
            self._send(200, self.state.agents.register(self._control_body()))
        except ValueError as error:  # pydantic's ValidationError is one
            raise _BadRequest(f"cannot register the agent: {str(error).splitlines()[0]}") from None

    def _register_guardrail(self) -> None:
        body = self._control_body()
        definition = {k: v for k, v in body.items() if k not in ("guardrailId", "guardrailVersion")}
        try:
            registered = self.state.guardrails.register(
                str(body.get("guardrailId")), str(body.get("guardrailVersion")), definition
            )
        except ValueError as error:
            raise _BadRequest(f"cannot register the guardrail: {error}") from None
        self._send(200, registered)

    def _guardrail_policy(self, configuration: Mapping[str, Any] | None) -> GuardrailPolicy | None:
        """The registered policy a request's guardrail names; ResourceNotFoundException if none is
        registered under that id and version (the service's answer for an unknown guardrail: UNVERIFIED)."""
        if not configuration:
            return None
        guardrail_id, version = str(configuration["guardrailId"]), str(configuration["guardrailVersion"])
        policy = self.state.guardrails.get(guardrail_id, version)
        if policy is None:
            raise ServiceError(
                "ResourceNotFoundException",
                f"Guardrail {guardrail_id} version {version} does not exist "
                "(the emulator knows the guardrails registered with POST /_emulator/guardrails)",
            )
        return policy

    def _account_quota(self) -> None:
        quota = self.state.account_quota
        self._send(200, quota.snapshot() if quota is not None else {"per_minute": None})

    def _faults(self) -> None:
        try:
            spec = _json_body(self._read_body() or b"{}")
            self._send(200, self.state.faults.configure(spec))
        except ValueError as error:  # JSONDecodeError is a ValueError too
            raise _BadRequest(str(error)) from None

    def _clear_requests(self) -> None:
        self.state.journal.clear_requests()
        self._send(200, {"cleared": "requests"})

    def _clear_streams(self) -> None:
        self.state.journal.clear_streams()
        self._send(200, {"cleared": "streams"})

    # -- the AWS surface ----------------------------------------------------------------------
    def _accept(self) -> tuple[int, Any]:
        """Reads and journals the request, then applies any armed pre-stream fault."""
        raw = self._read_body()
        try:
            body: Any = _json_body(raw) if raw else {}
        except ValueError:  # UnicodeDecodeError is a ValueError too
            body = raw.decode("utf-8", errors="replace")
        seq = self.state.journal.record_request(self.command, urlsplit(self.path).path, dict(self.headers), body)
        if self.state.faults.take_disconnect():
            raise _HangUp
        error = self.state.faults.take_pre_stream_error()
        if error:
            raise error
        if isinstance(body, str):
            raise ServiceError("ValidationException", "The request body is not valid JSON")
        return seq, body

    def _retrieve(self) -> None:
        match = _RETRIEVE_PATH.fullmatch(urlsplit(self.path).path)
        if match is None:  # _dispatch routes only matching paths here
            raise ServiceError("ValidationException", "not a knowledge base retrieve path")
        kb_identifier = unquote(match.group(1))
        _, body = self._accept()
        try:
            validate_retrieve(body, kb_identifier, self.state.indexes)
        except RecursionError:  # a filter nested hundreds deep: the model's shapes are recursive
            raise _too_deep() from None
        policy = self._guardrail_policy(body.get("guardrailConfiguration"))
        failing = self.state.faults.knowledge_base_error(knowledge_base_id_from(kb_identifier))
        if failing:
            raise failing
        response = run_retrieve(body, kb_identifier, self.state.indexes, self.state.retrieve_pages, policy)
        self._send(200, corrupt_retrieve(response) if self.state.faults.take_retrieve_corruption() else response)

    def _agentic(self) -> None:
        seq, body = self._accept()
        throttled = self.state.account_quota.take() if self.state.account_quota is not None else None
        if throttled:
            raise throttled
        try:
            validate_agentic(body, self.state.indexes)
        except RecursionError:  # a filter nested hundreds deep: the model's shapes are recursive
            raise _too_deep() from None
        inactive = self.state.faults.inactive_instruction_error(body)
        if inactive:
            raise inactive
        policy = self._guardrail_policy((body.get("policyConfiguration") or {}).get("bedrockGuardrailConfiguration"))
        run = AgenticRun(
            body,
            self.state.indexes,
            self.state.faults.take_retrieval_failure,
            self.state.pages,
            self.state.memory,
            policy,
        )
        faults = self.state.faults.take_stream_faults()
        record = self.state.journal.open_stream(seq, tcp_nodelay=self.tcp_nodelay)
        # delay_first_ms: nothing on the wire yet; a client that gives up waiting ends the stream here.
        if not self._hold(faults.delay_first_seconds):
            record.closed_by_client = True
            record.outcome = "client_closed"
            record.finished = True
            self._hang_up()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.amazon.eventstream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-amzn-RequestId", run.request_id)
        self.end_headers()
        messages = run.messages() if faults.corruption is None else corrupt(run.messages(), faults.corruption)
        end = pump(messages, faults, record, self._write_chunk, self._client_gone, self.state.stopping.is_set)
        if end is End.COMPLETED:
            try:
                self.wfile.write(b"0\r\n\r\n")
                return
            except OSError:
                record.closed_by_client = True
                record.outcome = "client_closed"
        self._hang_up()

    def _invoke_agent(self) -> None:
        match = INVOKE_AGENT_PATH.fullmatch(urlsplit(self.path).path)
        if match is None:  # _dispatch routes only matching paths here
            raise ServiceError("ValidationException", "not an InvokeAgent path")
        agent_id, alias_id, session_id = (unquote(group) for group in match.groups())
        _, body = self._accept()
        url = f"http://127.0.0.1:{self.server.server_address[1]}"
        run = Orchestration(self.state.agents.get(agent_id, alias_id), session_id, body, lambda: emulator_client(url))
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.amazon.eventstream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-amzn-RequestId", str(uuid.uuid4()))
        self.send_header("x-amzn-bedrock-agent-content-type", "application/json")
        self.send_header("x-amz-bedrock-agent-session-id", session_id)
        self.end_headers()
        try:
            for message in run.messages():
                self._write_chunk(message.encode())
        except OSError:
            self._hang_up()
            return
        except Exception:  # after the headers: a modeled in-stream error, never a traceback
            log.exception("InvokeAgent orchestration failed")
            self._write_chunk(_internal_stream_error())
        self.wfile.write(b"0\r\n\r\n")

    def _hold(self, seconds: float) -> bool:
        """Waits `seconds` before answering; False as soon as the client has gone (or the server stops)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._client_gone():
                return False
            if self.state.stopping.wait(min(_POLL_SECONDS, left)):
                return True  # stopping: the pump ends the stream at its first event
        return True

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def _client_gone(self) -> bool:
        """Mid-response the client sends nothing, so a readable socket means EOF or a reset."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _hang_up(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _internal_stream_error() -> bytes:
    from local.emulator.eventstream import encode_exception

    return encode_exception("internalServerException", {"message": "Internal error in the emulator"})


class EmulatorServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = LISTEN_BACKLOG  # socketserver passes it to listen()

    def __init__(self, port: int, state: EmulatorState) -> None:
        self.state = state
        super().__init__(("127.0.0.1", port), Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client resetting an idle keep-alive connection is normal; anything else goes to the log."""
        log.debug("connection error from %s", client_address, exc_info=True)
