"""`akb cache stats|flush`: look into a tenant's result cache, or empty it (all, or one knowledge base's entries)."""

from __future__ import annotations

from pathlib import Path

import click

from client import cache_admin
from client.options import config_option, env_option, load_or_exit
from lambdas.endpoint.cache.store import CacheStore

_tenant = click.option("--tenant", required=True, help="Tenant name (config/tenants/<tenant>.yaml).")
_local = click.option(
    "--local", is_flag=True, help="The SQLite file `akb local` uses instead of the deployed DynamoDB table."
)


def _store(config_dir: Path, env_name: str, tenant: str, local: bool) -> CacheStore:
    project = load_or_exit(config_dir, env_name)
    try:
        return cache_admin.open_store(project, tenant, local=local)
    except cache_admin.CacheAdminError as error:
        click.echo(f"akb cache: {error}", err=True)
        raise SystemExit(1) from None


def _fail(error: Exception) -> None:
    click.echo(f"akb cache: {type(error).__name__}: {error}", err=True)
    raise SystemExit(1) from None


@click.group()
def command() -> None:
    """The tenant's result cache (docs/cache.md)."""


@command.command()
@env_option
@config_option
@_tenant
@_local
def stats(env_name: str, config_dir: Path, tenant: str, local: bool) -> None:
    """Entries (live, expired, size, per knowledge base), counters and published content versions."""
    store = _store(config_dir, env_name, tenant, local)
    try:
        found = store.stats(tenant)
    except Exception as error:  # botocore / sqlite errors: say what failed, never a stack trace
        _fail(error)
        return
    counters = found.counters
    looked_up = counters["hits"] + counters["misses"]
    rate = f"{100 * counters['hits'] / looked_up:.1f}%" if looked_up else "-"
    click.echo(f"Result cache of {env_name}/{tenant}")
    click.echo(f"  entries        {found.entries} live, {found.expired} expired, {found.bytes} bytes")
    for alias, count in sorted(found.by_knowledge_base.items()):
        click.echo(f"    {alias:<12} {count}")
    click.echo(f"  hit rate       {rate} ({counters['hits']} hits, {counters['misses']} misses)")
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
def flush(env_name: str, config_dir: Path, tenant: str, alias: str | None, local: bool) -> None:
    """Deletes the tenant's entries (or only those of --kb); the next requests go to the source."""
    project = load_or_exit(config_dir, env_name)
    if alias is not None and tenant in project.tenants:
        aliases = [kb.alias for kb in project.tenants[tenant].knowledge_bases]
        if alias not in aliases:
            click.echo(
                f"akb cache: tenant {tenant} has no knowledge base '{alias}' (aliases: {', '.join(aliases)})", err=True
            )
            raise SystemExit(1)
    store = _store(config_dir, env_name, tenant, local)
    try:
        removed = store.flush(tenant, alias)
    except Exception as error:
        _fail(error)
        return
    click.echo(
        f"Flushed {removed} entr{'y' if removed == 1 else 'ies'} of {env_name}/{tenant}"
        + (f" ({alias})" if alias else "")
    )
