"""`akb eval --local`: the emulator and the endpoint in this process, torn down after the run.

Without `--tenant` the endpoint searches every folder of the emulator's corpus (the sample dataset
labels documents in all four); with `--tenant` it runs that tenant's settings from the config, as
`akb local` does. The endpoint is the real app under uvicorn on 127.0.0.1 (a free port) with
the production boto3 client configuration; only its logs are quieted (AKB_LOG_LEVEL, default
WARNING here) and its EMF metric lines dropped, so they do not interleave with the progress bar.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lambdas.endpoint.settings import Retriever, TenantSettings

LOCAL_CALLER = "arn:aws:sts::123456789012:assumed-role/local-developer/akb-eval"
READY_SECONDS = 15


class LocalTargetError(RuntimeError):
    """The local emulator or endpoint could not start; the message says why."""


def corpus_settings(emulator: Any) -> TenantSettings:
    """A tenant whose knowledge bases are every corpus folder (alias = folder, its own description)."""
    descriptions = {kb["folder"]: kb.get("description", "") for kb in _knowledge_bases(emulator)}
    return TenantSettings(
        tenant="sample",
        environment="local",
        retrievers=[
            Retriever(folder, kb_id, descriptions.get(folder) or folder)
            for folder, kb_id in sorted(emulator.knowledge_bases.items())
        ],
    )


def _knowledge_bases(emulator: Any) -> list[dict[str, Any]]:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{emulator.url}/_emulator/knowledgebases", timeout=5) as response:  # noqa: S310
        return json.loads(response.read())


def _boto_client(emulator_url: str) -> Any:
    import boto3
    from botocore.config import Config

    from lambdas.endpoint.upstream import CLIENT_CONFIG

    return boto3.client(
        "bedrock-agent-runtime",
        endpoint_url=emulator_url,
        region_name="us-west-2",
        aws_access_key_id="x",
        aws_secret_access_key="x",  # noqa: S106 - the emulator checks no signature
        config=Config(**CLIENT_CONFIG),
    )


@contextlib.contextmanager
def serve_endpoint(settings: TenantSettings, emulator_url: str) -> Iterator[str]:
    """The endpoint app for `settings`, talking to the emulator, until the block ends; yields its URL."""
    import uvicorn

    from lambdas.endpoint.app import create_app
    from lambdas.endpoint.query import Service

    os.environ.setdefault("AKB_LOG_LEVEL", "WARNING")
    client = _boto_client(emulator_url)
    service = Service(
        settings=settings,
        local_mode=True,
        local_caller_arn=LOCAL_CALLER,
        client_factory=lambda: client,
        write_metrics=lambda line: None,
    )
    config = uvicorn.Config(
        create_app(service), host="127.0.0.1", port=0, log_level="warning", access_log=False, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="akb-eval-endpoint", daemon=True)
    thread.start()
    deadline = time.monotonic() + READY_SECONDS
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise LocalTargetError("the local endpoint did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def local_endpoint(config_dir: Path, env_name: str = "dev", tenant: str | None = None) -> Iterator[str]:
    """Starts the emulator (sample corpus, no delay) and the endpoint; yields the endpoint URL."""
    from local.emulator import CorpusError, kb_id_for, start_emulator

    try:
        emulator = start_emulator(port=0, delay_ms=0)
    except (CorpusError, OSError) as error:
        raise LocalTargetError(f"cannot start the emulator: {error}") from None
    try:
        if tenant is None:
            settings = corpus_settings(emulator)
        else:
            from client.local_settings import LocalSettingsError, tenant_settings
            from schema import ConfigError, load_project

            try:
                settings = tenant_settings(load_project(config_dir, env_name), tenant, kb_id_for,
                                           emulator.knowledge_bases)
            except (ConfigError, LocalSettingsError) as error:
                raise LocalTargetError(str(error)) from None
        with serve_endpoint(settings, emulator.url) as url:
            yield url
    finally:
        emulator.stop()
