"""`akb cache stats|flush`: look into a tenant's result cache, or empty it (all, or one knowledge base's entries).

`--output json`: stats prints `{"environment", "tenant", "entries", "expired", "bytes",
"byKnowledgeBase", "counters", "hitRate", "versions"}`, flush `{"environment", "tenant",
"knowledgeBase", "removed"}` (docs/client.md). Errors go through the one error path (exit 1 for a
tenant without a cache, 3 when AWS refuses).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from client import cache_admin
from client.failures import Failure
from client.options import config_option, env_option, load_or_exit, tenant_option
from client.output import OutputFormat, output_option, print_json
from lambdas.endpoint.cache.store import CacheStore, StoreStats

_tenant = tenant_option("Tenant name (config/tenants/<tenant>.yaml).", required=True)
_local = click.option(
    "--local", is_flag=True, help="The SQLite file `akb local` uses instead of the deployed DynamoDB table."
)


def _store(config_dir: Path, env_name: str, tenant: str, local: bool) -> CacheStore:
    return cache_admin.open_store(load_or_exit(config_dir, env_name), tenant, local=local)


@click.group()
def command() -> None:
    """The tenant's result cache (docs/cache.md)."""


def _hit_rate(counters: dict[str, int]) -> float | None:
    looked_up = counters["hits"] + counters["misses"]
    return counters["hits"] / looked_up if looked_up else None


def stats_document(env_name: str, tenant: str, found: StoreStats) -> dict[str, Any]:
    return {
        "environment": env_name,
        "tenant": tenant,
        "entries": found.entries,
        "expired": found.expired,
        "bytes": found.bytes,
        "byKnowledgeBase": dict(sorted(found.by_knowledge_base.items())),
        "counters": found.counters,
        "hitRate": _hit_rate(found.counters),
        "versions": [
            {
                "knowledgeBaseId": mark.knowledge_base_id,
                "dataSourceId": mark.data_source_id,
                "jobId": mark.job_id,
                "updatedAt": mark.updated_at,
            }
            for mark in found.versions
        ],
    }


@command.command()
@env_option
@config_option
@_tenant
@_local
@output_option
def stats(env_name: str, config_dir: Path, tenant: str, local: bool, output: OutputFormat) -> None:
    """Entries (live, expired, size, per knowledge base), counters and published content versions."""
    found = _store(config_dir, env_name, tenant, local).stats(tenant)
    if output == "json":
        print_json(stats_document(env_name, tenant, found))
        return
    counters = found.counters
    rate = _hit_rate(counters)
    click.echo(f"Result cache of {env_name}/{tenant}")
    click.echo(f"  entries        {found.entries} live, {found.expired} expired, {found.bytes} bytes")
    for alias, count in sorted(found.by_knowledge_base.items()):
        click.echo(f"    {alias:<12} {count}")
    shown = "-" if rate is None else f"{100 * rate:.1f}%"
    click.echo(f"  hit rate       {shown} ({counters['hits']} hits, {counters['misses']} misses)")
    for name in ("bypass", "stale_rejected", "acl_denied", "stored"):
        click.echo(f"  {name:<14} {counters[name]}")
    for mark in found.versions:
        click.echo(
            f"  published      {mark.knowledge_base_id}/{mark.data_source_id}: job {mark.job_id} "
            f"at {mark.updated_at:.0f}"
        )


@command.command()
@env_option
@config_option
@_tenant
@click.option("--kb", "alias", default=None, help="Only entries that searched this knowledge base (alias).")
@_local
@output_option
def flush(env_name: str, config_dir: Path, tenant: str, alias: str | None, local: bool, output: OutputFormat) -> None:
    """Deletes the tenant's entries (or only those of --kb); the next requests go to the source."""
    project = load_or_exit(config_dir, env_name)
    if alias is not None and tenant in project.tenants:
        aliases = [kb.alias for kb in project.tenants[tenant].knowledge_bases]
        if alias not in aliases:
            raise Failure(f"tenant {tenant} has no knowledge base '{alias}' (aliases: {', '.join(aliases)})")
    store = cache_admin.open_store(project, tenant, local=local)
    removed = store.flush(tenant, alias)
    if output == "json":
        print_json({"environment": env_name, "tenant": tenant, "knowledgeBase": alias, "removed": removed})
        return
    click.echo(
        f"Flushed {removed} entr{'y' if removed == 1 else 'ies'} of {env_name}/{tenant}"
        + (f" ({alias})" if alias else "")
    )
