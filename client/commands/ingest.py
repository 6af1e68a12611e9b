"""`akb ingest`: upload documents to a knowledge base's S3 source and follow the ingestion job."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client import ingestion as ingest
from client.options import config_option, env_option, load_or_exit

if TYPE_CHECKING:
    from schema import Project


@click.command()
@env_option
@config_option
@click.option("--tenant", required=True, help="Tenant name (config/tenants/<tenant>.yaml).")
@click.option("--kb", "alias", required=True, help="Knowledge base alias.")
@click.option(
    "--source",
    "source_index",
    type=int,
    default=None,
    help="Index of the data source in the alias's `sources` (needed only when it has several).",
)
@click.option("--dry-run", is_flag=True, help="Print the plan; call nothing (works without AWS credentials).")
@click.option("--interval", type=float, default=5.0, show_default=True, help="Seconds between status checks.")
@click.option(
    "--timeout", type=float, default=3600.0, show_default=True, help="Stop following after this many seconds."
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def command(
    env_name: str,
    config_dir: Path,
    tenant: str,
    alias: str,
    source_index: int | None,
    dry_run: bool,
    interval: float,
    timeout: float,
    paths: tuple[Path, ...],
) -> None:
    """Upload PATH... (files or directories) under the source's prefix, then ingest and report.

    Without PATH, only starts a sync of the source (any connector type). Exit status 1 when the
    job fails or any document fails to index.
    """
    project = load_or_exit(config_dir, env_name)
    try:
        target = ingest.resolve_target(project, tenant, alias, source_index, needs_s3=bool(paths))
        uploads = ingest.plan_uploads(paths, target.prefix or "") if paths else []
        if dry_run:
            _print_plan(project, target, uploads)
            return
        s3, ssm, agent = ingest.make_clients(project.environment.region)
        publish = _version_publisher(project, tenant)
        result = run(s3, ssm, agent, target, uploads, interval=interval, timeout=timeout, publish=publish)
    except ingest.IngestError as error:
        for line in str(error).splitlines():  # one line per problem (e.g. per unreadable file)
            click.echo(f"akb ingest: {line}", err=True)
        raise SystemExit(1) from None
    except Exception as error:  # botocore errors: say what failed, never a stack trace
        click.echo(f"akb ingest: {type(error).__name__}: {error}", err=True)
        raise SystemExit(1) from None
    raise SystemExit(0 if result.ok else 1)


def run(
    s3: Any,
    ssm: Any,
    agent: Any,
    target: ingest.Target,
    uploads: list[ingest.Upload],
    *,
    interval: float,
    timeout: float,
    sleep: Callable[[float], None] = time.sleep,
    publish: Callable[[dict[str, Any]], Any] | None = None,
) -> ingest.JobResult:
    deployed = ingest.read_deployed(ssm, target)
    if uploads:
        click.echo(f"Uploading {len(uploads)} file(s) to s3://{deployed.bucket}/{deployed.prefix}")
        ingest.upload_files(s3, deployed, uploads, lambda u: click.echo(f"  {u.path} -> {u.key}"))
    job_id = ingest.start_job(agent, deployed, f"akb ingest: {len(uploads)} file(s)")
    click.echo(
        f"Ingestion job {job_id} (knowledge base {deployed.knowledge_base_id}, data source {deployed.data_source_id})"
    )
    started, last = time.monotonic(), [""]

    def show(job: dict) -> None:
        line = ingest.describe_progress(job, time.monotonic() - started)
        if line.split("(")[0] != last[0].split("(")[0]:  # only when status or counts change
            click.echo(line)
        last[0] = line

    result = ingest.follow_job(agent, deployed, job_id, on_update=show, interval=interval, timeout=timeout, sleep=sleep)
    _print_result(result)
    if publish is not None and result.status == "COMPLETE":
        # The result cache sees the new content version at once, not at its next poll (docs/cache.md).
        mark = publish(result.job)
        click.echo(f"Published content version {mark.job_id} to the result cache.")
    return result


def _version_publisher(project: Any, tenant: str) -> Callable[[dict[str, Any]], Any] | None:
    """For a tenant with a result cache: writes a completed job's version into its cache table."""
    if project.tenants[tenant].cache is None:
        return None
    from client import cache_admin

    store = cache_admin.open_store(project, tenant, local=False)
    return lambda job: cache_admin.publish_job_version(store, tenant, job)


def _print_result(result: ingest.JobResult) -> None:
    click.echo(f"Job {result.status}.")
    for reason in result.job.get("failureReasons", []):
        click.echo(f"  failure: {reason}")
    if result.failed_documents:
        click.echo(f"{len(result.failed_documents)} document(s) not indexed:")
        for document in result.failed_documents:
            click.echo(
                f"  {document.get('status')}  {ingest.document_name(document)}  {document.get('statusReason', '')}"
            )
    if result.note:
        click.echo(f"  ({result.note})")


def _print_plan(project: Project, target: ingest.Target, uploads: list[ingest.Upload]) -> None:
    click.echo(
        f"Plan (dry run; nothing is called) — {project.env_name}/{target.tenant}, knowledge base {target.alias}, "
        f"source {target.source_index} ({target.source_type}), region {project.environment.region}:"
    )
    click.echo("  read SSM parameters:")
    for name in target.parameters.values():
        click.echo(f"    {name}")
    if uploads:
        click.echo(f"  upload {len(uploads)} file(s) to the source's bucket:")
        for upload in uploads:
            click.echo(f"    {upload.path} -> {upload.key}")
    click.echo("  start an ingestion job and follow it until it ends")
