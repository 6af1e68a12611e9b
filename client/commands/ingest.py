"""`akb ingest`: upload documents to a knowledge base's S3 source and follow the ingestion job."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client import ingestion_jobs as ingest
from client import ingestion_log_reader as log_reader
from client.options import config_option, env_option, load_or_exit
from contract.resource_names import ingestion_log_group_name

if TYPE_CHECKING:
    from schema import Project


@click.command()
@env_option
@config_option
@click.option("--tenant", required=True, help="Tenant name (config/tenants/<tenant>.yaml).")
@click.option("--kb", "alias", default=None, help="Knowledge base alias (required unless --status).")
@click.option(
    "--source",
    "source_index",
    type=int,
    default=None,
    help="Index of the data source in the alias's `sources` (needed only when it has several).",
)
@click.option("--dry-run", is_flag=True, help="Print the plan; call nothing (works without AWS credentials).")
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Follow the job to its end and print its statistics and failed documents (from the ingestion logs "
    "when delivery is on); --no-wait prints the job id and returns.",
)
@click.option("--status", is_flag=True, help="Show each data source's last jobs (of --kb, or of every knowledge base).")
@click.option("--interval", type=float, default=5.0, show_default=True, help="Seconds between status checks.")
@click.option(
    "--timeout", type=float, default=3600.0, show_default=True, help="Stop following after this many seconds."
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def command(
    env_name: str,
    config_dir: Path,
    tenant: str,
    alias: str | None,
    source_index: int | None,
    dry_run: bool,
    wait: bool,
    status: bool,
    interval: float,
    timeout: float,
    paths: tuple[Path, ...],
) -> None:
    """Upload PATH... (files or directories) under the source's prefix, then ingest and report.

    Without PATH, only starts a sync of the source (any connector type). Exit status 1 when the
    job fails or any document fails to index.
    """
    project = load_or_exit(config_dir, env_name)
    if status:
        raise SystemExit(_status_or_exit(project, tenant, alias))
    if alias is None:
        click.echo("akb ingest: --kb ALIAS is required (or use --status)", err=True)
        raise SystemExit(2)
    try:
        target = ingest.resolve_target(project, tenant, alias, source_index, needs_s3=bool(paths))
        uploads = ingest.plan_uploads(paths, target.prefix or "") if paths else []
        if dry_run:
            _print_plan(project, target, uploads)
            return
        s3, ssm, agent = ingest.make_clients(project.environment.region)
        if not wait:
            deployed = ingest.read_deployed(ssm, target)
            job_id = ingest.start_job(agent, deployed, "akb ingest --no-wait")
            click.echo(
                f"Ingestion job {job_id} started; follow it with: akb ingest --status --tenant {tenant} --kb {alias}"
            )
            return
        publish = _version_publisher(project, tenant)
        reader = _log_reader(project, tenant)
        result = run(
            s3, ssm, agent, target, uploads, interval=interval, timeout=timeout, publish=publish, logs_reader=reader
        )
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
    logs_reader: Callable[[str, int], tuple[list[Any], str | None]] | None = None,
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
    started_ms = int(time.time() * 1000) - 60_000  # a minute of slack for clock skew

    def show(job: dict) -> None:
        line = ingest.describe_progress(job, time.monotonic() - started)
        if line.split("(")[0] != last[0].split("(")[0]:  # only when status or counts change
            click.echo(line)
        last[0] = line

    result = ingest.follow_job(agent, deployed, job_id, on_update=show, interval=interval, timeout=timeout, sleep=sleep)
    from_logs = _failed_from_logs(logs_reader, result, job_id, started_ms)
    _print_result(result, from_logs)
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


def _failed_from_logs(
    logs_reader: Callable[[str, int], tuple[list[Any], str | None]] | None,
    result: ingest.JobResult,
    job_id: str,
    started_ms: int,
) -> list[Any]:
    """The job's failed documents from the ingestion logs (every connector type), when delivery is on."""
    failed = result.job.get("statistics", {}).get("numberOfDocumentsFailed", 0)
    if logs_reader is None or not failed or result.status not in ingest.TERMINAL_STATUSES:
        return []
    documents, note = logs_reader(job_id, started_ms)
    if note:
        click.echo(f"  ({note})")
    elif len(documents) < failed:
        click.echo(f"  ({log_reader.LATE_NOTE})")
    return documents


def _log_reader(project: Project, tenant: str) -> Callable[[str, int], tuple[list[Any], str | None]] | None:
    """Reads failed documents from the tenant's ingestion log group; none when delivery is off."""
    if not project.tenants[tenant].ingestion_logs:
        return None
    import boto3

    logs = boto3.Session(region_name=project.environment.region).client("logs")
    group = ingestion_log_group_name(project.env_name, tenant)
    return lambda job_id, start_ms: log_reader.failed_documents_from_logs(logs, group, job_id, start_ms)


def _print_result(result: ingest.JobResult, from_logs: Sequence[Any] = ()) -> None:
    click.echo(f"Job {result.status}.  {log_reader.describe_statistics(result.job.get('statistics', {}))}")
    for reason in result.job.get("failureReasons", []):
        click.echo(f"  failure: {reason}")
    if from_logs:
        click.echo(f"{len(from_logs)} document(s) not indexed (from the ingestion logs):")
        for document in from_logs:
            click.echo(f"  {document.status}  {document.document}  {'; '.join(document.reasons)}")
    elif result.failed_documents:
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


def _status_or_exit(project: Project, tenant: str, alias: str | None) -> int:
    """`--status`: each data source's last jobs with their statistics; 1 when the latest job of any
    source failed or left documents unindexed."""
    if tenant not in project.tenants:
        click.echo(f"akb ingest: tenant '{tenant}' is not deployed in environment {project.env_name}", err=True)
        return 2
    kbs = project.tenants[tenant].knowledge_bases
    aliases = [kb.alias for kb in kbs] if alias is None else [alias]
    try:
        _, ssm, agent = ingest.make_clients(project.environment.region)
        targets = [
            ingest.resolve_target(project, tenant, name, index, needs_s3=False)
            for name in aliases
            for index in range(len(next(kb for kb in kbs if kb.alias == name).sources))
        ]
        return print_status(ssm, agent, targets)
    except StopIteration:
        click.echo(f"akb ingest: tenant {tenant} has no knowledge base '{alias}'", err=True)
        return 2
    except ingest.IngestError as error:
        click.echo(f"akb ingest: {error}", err=True)
        return 1
    except Exception as error:  # botocore errors: say what failed, never a stack trace
        click.echo(f"akb ingest: {type(error).__name__}: {error}", err=True)
        return 1


def print_status(ssm: Any, agent: Any, targets: list[ingest.Target]) -> int:
    worst = 0
    for target in targets:
        deployed = ingest.read_deployed(ssm, target)
        click.echo(f"{target.alias} source {target.source_index} ({target.source_type}):")
        jobs = log_reader.last_jobs(agent, deployed.knowledge_base_id, deployed.data_source_id)
        if not jobs:
            click.echo("  no ingestion job yet")
        for position, job in enumerate(jobs):
            started = job.get("startedAt")
            when = started.isoformat(timespec="seconds") if isinstance(started, datetime) else "?"
            stats = log_reader.describe_statistics(job.get("statistics", {}))
            click.echo(f"  {job['ingestionJobId']}  {job['status']:<11} {when}  {stats}")
            failed = job.get("statistics", {}).get("numberOfDocumentsFailed", 0)
            if position == 0 and (job["status"] == "FAILED" or failed):
                worst = 1
    return worst
