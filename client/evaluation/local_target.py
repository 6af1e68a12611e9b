"""`akb eval --local`: the emulator (in this process) and the endpoint (a child process), torn down
after the run.

Without `--tenant` the endpoint searches every folder of the emulator's corpus (the sample dataset
labels documents in all four); with `--tenant` it runs that tenant's settings from the config, as
`akb local` does. The endpoint starts the way Lambda and `akb local` start it (lambdas/run.sh,
settings in AKB_TENANT_SETTINGS, boto3 pointed at the emulator), on a free 127.0.0.1 port; its
logs and metric lines go to `<out>/endpoint.log`, not over the progress bar.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from contract.settings import Retriever, TenantSettings


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


def _aliases(config_dir: Path, env_name: str, tenant: str | None) -> list[str]:
    """The tenant's knowledge-base aliases ([] without a tenant, or when the config cannot say)."""
    if tenant is None:
        return []
    from schema import ConfigError, load_project

    try:
        project = load_project(config_dir, env_name)
    except ConfigError:
        return []  # reported with its file and field when the settings are built
    config = project.tenants.get(tenant)
    return [kb.alias for kb in config.knowledge_bases] if config is not None else []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serve_endpoint(settings: TenantSettings, emulator: Any, log_path: Path) -> Iterator[str]:
    """The endpoint for `settings` as a child process through lambdas/run.sh (what Lambda runs, and
    `akb local`), talking to the emulator, until the block ends; yields its URL. Its logs and EMF
    lines go to `log_path`."""
    from client.commands.local import RUN_SH, endpoint_environment
    from client.local_processes import stop, wait_ready
    from client.local_settings import default_caller

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    # The caller `akb local` uses: one the tenant vouches for, so a tenant whose documents carry ACLs
    # (user_context: caller) answers instead of refusing every question as user_identity_unverified.
    env = endpoint_environment(settings, port, emulator.env, default_caller(settings))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        child = subprocess.Popen([str(RUN_SH)], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        if not wait_ready(url, child):
            raise LocalTargetError(f"the local endpoint did not become ready on {url}: see {log_path}")
        yield url
    finally:
        stop(child)


@contextlib.contextmanager
def local_endpoint(
    config_dir: Path, log_path: Path, env_name: str = "dev", tenant: str | None = None, corpus_dir: Path | None = None
) -> Iterator[str]:
    """Starts the emulator (the sample corpus or `corpus_dir`, no delay; a tenant's alias without a
    folder served empty) and the endpoint; yields the endpoint URL."""
    from local.emulator import CorpusError, kb_id_for, start_emulator

    try:
        emulator = start_emulator(
            port=0, corpus_dir=corpus_dir, delay_ms=0, empty_knowledge_bases=_aliases(config_dir, env_name, tenant)
        )
    except (CorpusError, OSError) as error:
        raise LocalTargetError(f"cannot start the emulator: {error}") from None
    try:
        if tenant is None:
            settings = corpus_settings(emulator)
        else:
            from client.local_guardrail import register_tenant_guardrail
            from client.local_settings import LocalSettingsError, tenant_settings
            from schema import ConfigError, load_project

            try:
                project = load_project(config_dir, env_name)
                # The evaluation's emulator is its own, with no account quota to share: fair sharing off, so a
                # burst of questions is measured, not refused (docs/quota.md; a deployed gate shares the quota).
                settings = replace(tenant_settings(project, tenant, kb_id_for, emulator.knowledge_bases), quota=None)
                guardrail = project.tenants[tenant].guardrail
                register_tenant_guardrail(emulator, guardrail, settings.guardrail_id, settings.guardrail_version)
            except (ConfigError, LocalSettingsError, ValueError) as error:
                raise LocalTargetError(str(error)) from None
        from client.local_agent import local_agent

        with (
            serve_endpoint(settings, emulator, log_path) as url,
            local_agent(url, emulator.url, settings.tenant, settings, 20_000),
        ):
            yield url  # and the tenant's agent on the emulator, for `--modes agent` (agent_mode.py)
    finally:
        emulator.stop()
