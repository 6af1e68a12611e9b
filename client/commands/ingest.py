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
from client.aws_session import environment_region
from client.exit_codes import ExitCode
from client.options import config_option, env_option, load_or_exit, tenant_option
from client.output import OutputFormat, output_option, print_json
from contract.resource_names import ingestion_log_group_name

if TYPE_CHECKING:
    from schema import Project


@click.command()
@env_option
@config_option
@tenant_option("Tenant name (config/tenants/<tenant>.yaml).", required=True)
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
@output_option
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
    output: OutputFormat,
    paths: tuple[Path, ...],
) -> None:
    """Upload PATH... (files or directories) under the source's prefix, then ingest and report.

    Without PATH, only starts a sync of the source (any connector type). Exit status 6 when the
    job fails or any document fails to index (client/exit_codes.py).
    """
    project = load_or_exit(config_dir, env_name)
    as_json = output == "json"
    if status:
        raise SystemExit(_status(project, tenant, alias, as_json))
    if alias is None:
        raise click.UsageError("--kb ALIAS is required (or use --status)")
    target = ingest.resolve_target(project, tenant, alias, source_index, needs_s3=bool(paths))
    uploads = ingest.plan_uploads(paths, target.prefix or "") if paths else []
    if dry_run:
        plan = plan_document(project, target, uploads)
        print_json(plan) if as_json else _print_plan(plan)
        return
    s3, ssm, agent = ingest.make_clients(environment_region(project))
    if not wait:
        job_id = ingest.start_job(agent, ingest.read_deployed(ssm, target), "akb ingest --no-wait")
        if as_json:
            print_json({**_where(target), "jobId": job_id})
        else:
            click.echo(
                f"Ingestion job {job_id} started; follow it with: akb ingest --status --tenant {tenant} --kb {alias}"
            )
        return
    echo = _progress_echo(as_json)
    result = run(
        s3,
        ssm,
        agent,
        target,
        uploads,
        interval=interval,
        timeout=timeout,
        publish=_version_publisher(project, tenant),
        logs_reader=_log_reader(project, tenant),
        echo=echo,
    )
    if as_json:
        print_json({**_where(target), **job_document(result)})
    raise SystemExit(ExitCode.OK if result.ok else ExitCode.CHECKS_FAILED)


def _progress_echo(as_json: bool) -> Callable[[str], None]:
    """Progress lines: on stdout as the result, or on stderr when stdout is the JSON document."""
    return (lambda line: click.echo(line, err=True)) if as_json else click.echo


def _where(target: ingest.Target) -> dict[str, Any]:
    return {
        "environment": target.env_name,
        "tenant": target.tenant,
        "knowledgeBase": target.alias,
        "source": target.source_index,
    }


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
    echo: Callable[[str], None] = click.echo,
) -> ingest.JobResult:
    deployed = ingest.read_deployed(ssm, target)
    if uploads:
        echo(f"Uploading {len(uploads)} file(s) to s3://{deployed.bucket}/{deployed.prefix}")
        ingest.upload_files(s3, deployed, uploads, lambda u: echo(f"  {u.path} -> {u.key}"))
    job_id = ingest.start_job(agent, deployed, f"akb ingest: {len(uploads)} file(s)")
    echo(f"Ingestion job {job_id} (knowledge base {deployed.knowledge_base_id}, data source {deployed.data_source_id})")
    started, last = time.monotonic(), [""]
    started_ms = int(time.time() * 1000) - 60_000  # a minute of slack for clock skew

    def show(job: dict) -> None:
        line = ingest.describe_progress(job, time.monotonic() - started)
        if line.split("(")[0] != last[0].split("(")[0]:  # only when status or counts change
            echo(line)
        last[0] = line

    result = ingest.follow_job(agent, deployed, job_id, on_update=show, interval=interval, timeout=timeout, sleep=sleep)
    from_logs = _failed_from_logs(logs_reader, result, job_id, started_ms, echo)
    result.from_logs = list(from_logs)
    _print_result(result, from_logs, echo)
    if publish is not None and result.status == "COMPLETE":
        # The result cache sees the new content version at once, not at its next poll (docs/cache.md).
        mark = publish(result.job)
        echo(f"Published content version {mark.job_id} to the result cache.")
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
    echo: Callable[[str], None] = click.echo,
) -> list[Any]:
    """The job's failed documents from the ingestion logs (every connector type), when delivery is on."""
    failed = result.job.get("statistics", {}).get("numberOfDocumentsFailed", 0)
    if logs_reader is None or not failed or result.status not in ingest.TERMINAL_STATUSES:
        return []
    documents, note = logs_reader(job_id, started_ms)
    if note:
        echo(f"  ({note})")
    elif len(documents) < failed:
        echo(f"  ({log_reader.LATE_NOTE})")
    return documents


def _log_reader(project: Project, tenant: str) -> Callable[[str, int], tuple[list[Any], str | None]] | None:
    """Reads failed documents from the tenant's ingestion log group; none when delivery is off."""
    if not project.tenants[tenant].ingestion_logs:
        return None
    from client.aws_session import environment_region, session

    logs = session(environment_region(project)).client("logs")
    group = ingestion_log_group_name(project.env_name, tenant)
    return lambda job_id, start_ms: log_reader.failed_documents_from_logs(logs, group, job_id, start_ms)


def _print_result(
    result: ingest.JobResult, from_logs: Sequence[Any] = (), echo: Callable[[str], None] = click.echo
) -> None:
    echo(f"Job {result.status}.  {log_reader.describe_statistics(result.job.get('statistics', {}))}")
    for reason in result.job.get("failureReasons", []):
        echo(f"  failure: {reason}")
    if from_logs:
        echo(f"{len(from_logs)} document(s) not indexed (from the ingestion logs):")
        for document in from_logs:
            echo(f"  {document.status}  {document.document}  {'; '.join(document.reasons)}")
    elif result.failed_documents:
        echo(f"{len(result.failed_documents)} document(s) not indexed:")
        for document in result.failed_documents:
            echo(f"  {document.get('status')}  {ingest.document_name(document)}  {document.get('statusReason', '')}")
    if result.note:
        echo(f"  ({result.note})")


def plan_document(project: Project, target: ingest.Target, uploads: list[ingest.Upload]) -> dict[str, Any]:
    """`--dry-run`: what would be read, uploaded and started (docs/client.md has the JSON shape)."""
    return {
        "dryRun": True,
        **_where(target),
        "type": target.source_type,
        "region": project.environment.region,
        "parameters": list(target.parameters.values()),
        "uploads": [{"path": str(upload.path), "key": upload.key} for upload in uploads],
    }


def _print_plan(plan: dict[str, Any]) -> None:
    click.echo(
        f"Plan (dry run; nothing is called) — {plan['environment']}/{plan['tenant']}, knowledge base "
        f"{plan['knowledgeBase']}, source {plan['source']} ({plan['type']}), region {plan['region']}:"
    )
    click.echo("  read SSM parameters:")
    for name in plan["parameters"]:
        click.echo(f"    {name}")
    if plan["uploads"]:
        click.echo(f"  upload {len(plan['uploads'])} file(s) to the source's bucket:")
        for upload in plan["uploads"]:
            click.echo(f"    {upload['path']} -> {upload['key']}")
    click.echo("  start an ingestion job and follow it until it ends")


def job_document(result: ingest.JobResult) -> dict[str, Any]:
    """A followed job as JSON: its id, status, statistics, failure reasons and unindexed documents."""
    job = result.job
    if result.from_logs:
        failed = [{"document": d.document, "status": d.status, "reasons": list(d.reasons)} for d in result.from_logs]
    else:
        failed = [
            {"document": ingest.document_name(d), "status": d.get("status"), "reasons": [d.get("statusReason", "")]}
            for d in result.failed_documents
        ]
    return {
        "jobId": job.get("ingestionJobId"),
        "status": result.status,
        "ok": result.ok,
        "statistics": job.get("statistics", {}),
        "failureReasons": job.get("failureReasons", []),
        "failedDocuments": failed,
        "note": result.note,
    }


def _status(project: Project, tenant: str, alias: str | None, as_json: bool) -> int:
    """`--status`: each data source's last jobs with their statistics; CHECKS_FAILED when the latest job
    of any source failed or left documents unindexed."""
    if tenant not in project.tenants:
        raise ingest.IngestError(f"tenant '{tenant}' is not deployed in environment {project.env_name}")
    kbs = project.tenants[tenant].knowledge_bases
    if alias is not None and alias not in [kb.alias for kb in kbs]:
        raise ingest.IngestError(f"tenant {tenant} has no knowledge base '{alias}'")
    targets = [
        ingest.resolve_target(project, tenant, kb.alias, index, needs_s3=False)
        for kb in kbs
        if alias is None or kb.alias == alias
        for index in range(len(kb.sources))
    ]
    _, ssm, agent = ingest.make_clients(environment_region(project))
    if not as_json:
        return print_status(ssm, agent, targets)
    sources = collect_status(ssm, agent, targets)
    print_json({"environment": project.env_name, "tenant": tenant, "sources": sources})
    return _status_code(sources)


def collect_status(ssm: Any, agent: Any, targets: list[ingest.Target]) -> list[dict[str, Any]]:
    """Each source with its last jobs, newest first."""
    sources = []
    for target in targets:
        deployed = ingest.read_deployed(ssm, target)
        jobs = log_reader.last_jobs(agent, deployed.knowledge_base_id, deployed.data_source_id)
        sources.append(
            {
                "knowledgeBase": target.alias,
                "source": target.source_index,
                "type": target.source_type,
                "jobs": [
                    {
                        "jobId": job["ingestionJobId"],
                        "status": job["status"],
                        "startedAt": _when(job.get("startedAt")),
                        "statistics": job.get("statistics", {}),
                    }
                    for job in jobs
                ],
            }
        )
    return sources


def _when(started: Any) -> str | None:
    return started.isoformat(timespec="seconds") if isinstance(started, datetime) else None


def _status_code(sources: list[dict[str, Any]]) -> int:
    for source in sources:
        latest = source["jobs"][0] if source["jobs"] else None
        if latest and (latest["status"] == "FAILED" or latest["statistics"].get("numberOfDocumentsFailed", 0)):
            return ExitCode.CHECKS_FAILED
    return ExitCode.OK


def print_status(ssm: Any, agent: Any, targets: list[ingest.Target]) -> int:
    sources = collect_status(ssm, agent, targets)
    for source in sources:
        click.echo(f"{source['knowledgeBase']} source {source['source']} ({source['type']}):")
        if not source["jobs"]:
            click.echo("  no ingestion job yet")
        for job in source["jobs"]:
            stats = log_reader.describe_statistics(job["statistics"])
            click.echo(f"  {job['jobId']}  {job['status']:<11} {job['startedAt'] or '?'}  {stats}")
    return _status_code(sources)
