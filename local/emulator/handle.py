"""Starting and stopping the emulator from Python: what tests, `akb local` and `akb emulator` use."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from local.emulator.corpus import DEFAULT_CORPUS, KnowledgeBase, load_corpus
from local.emulator.ids import kb_id_for
from local.emulator.server import EmulatorServer, EmulatorState

DEFAULT_DELAY_MS = 20.0
ENDPOINT_ENV = "AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME"
AGENT_ENDPOINT_ENV = "AWS_ENDPOINT_URL_BEDROCK_AGENT"  # ingestion jobs (the result cache's content versions)


class EmulatorHandle:
    """A running emulator on 127.0.0.1. Use as a context manager or call `stop()`."""

    def __init__(self, server: EmulatorServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread
        self.port: int = server.server_address[1]
        self.url: str = f"http://127.0.0.1:{self.port}"
        self.knowledge_bases: dict[str, str] = {
            kb.folder: kb.kb_id for kb in server.state.knowledge_bases.values()
        }  # folder name -> knowledge base id

    @property
    def env(self) -> dict[str, str]:
        """Environment that points an unmodified boto3 at this emulator."""
        return {
            ENDPOINT_ENV: self.url,
            AGENT_ENDPOINT_ENV: self.url,
            "AWS_ACCESS_KEY_ID": "x",
            "AWS_SECRET_ACCESS_KEY": "x",
        }

    def client(self, service: str = "bedrock-agent-runtime", **config: Any) -> Any:
        """A boto3 client (bedrock-agent-runtime or bedrock-agent) for this emulator; `config`: botocore Config."""
        import boto3
        from botocore.config import Config

        return boto3.client(
            service,
            endpoint_url=self.url,
            region_name="us-west-2",
            aws_access_key_id="x",
            aws_secret_access_key="x",  # noqa: S106 - the emulator does not check signatures
            config=Config(**config) if config else None,
        )

    # In-process shortcuts for the control API (same state the HTTP endpoints read and write).
    def set_faults(self, **spec: Any) -> dict[str, Any]:
        return self._server.state.faults.configure(spec)

    def complete_ingestion(self, knowledge_base_id: str) -> dict[str, Any]:
        """Completes the knowledge base's ingestion (starting a job if none runs): a new content version."""
        return self._server.state.ingestion.complete(knowledge_base_id)

    def set_acl(self, knowledge_base_id: str, document_id: str, users: list[str] | None) -> dict[str, Any]:
        """Replaces a document's ingested ACL (None: no ACL); retrieval and CheckIngestedDocumentAcl follow it."""
        return self._server.state.ingestion.set_acl(knowledge_base_id, document_id, users)

    def register_guardrail(self, guardrail_id: str, version: str, definition: dict[str, Any]) -> dict[str, Any]:
        """Registers a guardrail (CreateGuardrail-shaped `definition`) under the id and version requests
        name; same as POST /_emulator/guardrails. Registrations survive `reset()` (they are configuration)."""
        return self._server.state.guardrails.register(guardrail_id, version, definition)

    def reset(self) -> None:
        """Clears faults (back to the start-up delay), the request journal, the stream records, ACL
        changes and memory (sessions and long-term records)."""
        self._server.state.faults.configure({"reset": True})
        for index in self._server.state.indexes.values():
            index.reset_acls()
        self._server.state.journal.clear_requests()
        self._server.state.journal.clear_streams()
        self._server.state.memory.clear()

    def account_quota(self) -> dict[str, Any]:
        """The enforced account quota and what it admitted and throttled so far (per_minute None: off)."""
        quota = self._server.state.account_quota
        return quota.snapshot() if quota is not None else {"per_minute": None}

    def requests(self) -> list[dict[str, Any]]:
        return self._server.state.journal.requests()

    def streams(self) -> list[dict[str, Any]]:
        return self._server.state.journal.streams()

    def stop(self) -> None:
        """Stops accepting, ends open streams at their next event, and frees the port."""
        self._server.state.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> EmulatorHandle:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def start_emulator(
    port: int = 0,
    corpus_dir: str | Path | None = None,
    delay_ms: float = DEFAULT_DELAY_MS,
    empty_knowledge_bases: Sequence[str] = (),
    account_rpm: float | None = None,
) -> EmulatorHandle:
    """Loads the corpus, binds 127.0.0.1:`port` (0 picks a free port) and serves on a daemon thread.

    `empty_knowledge_bases`: folder names served as knowledge bases without documents when the
    corpus has no such folder (a tenant just added, before its documents exist). `account_rpm`: the
    account's AgenticRetrieveStream quota to enforce (account_quota.py); None: none."""
    knowledge_bases = load_corpus(Path(corpus_dir) if corpus_dir else DEFAULT_CORPUS)
    served = {kb.folder for kb in knowledge_bases.values()}
    for folder in empty_knowledge_bases:
        if folder not in served:
            knowledge_bases[kb_id_for(folder)] = KnowledgeBase(folder, kb_id_for(folder), folder, "")
    state = EmulatorState(knowledge_bases, delay_ms)
    if account_rpm is not None:
        from local.emulator.account_quota import AccountQuota

        state.account_quota = AccountQuota(account_rpm)
    server = EmulatorServer(port, state)
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name=f"bedrock-emulator-{port}",
        daemon=True,
    )
    thread.start()
    return EmulatorHandle(server, thread)
