"""Uploads documents to a knowledge base's S3 source and follows the ingestion job to its end.

Every identifier comes from the SSM parameters the tenant stack publishes (`/akb/<env>/<tenant>/`,
keys in contract/resource_names.py), so the command needs only the env, tenant and alias. Clients are plain
boto3; tests drive them with botocore's Stubber (there is no AWS account here).
"""

from __future__ import annotations

import mimetypes
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract import resource_names as naming
from schema import Project
from schema.knowledge import S3Source

TERMINAL_STATUSES = ("COMPLETE", "FAILED", "STOPPED")
# Document statuses that mean "not (fully) searchable" (bedrock-agent DocumentStatus).
FAILED_DOCUMENT_STATUSES = ("FAILED", "PARTIALLY_INDEXED", "METADATA_PARTIALLY_INDEXED", "METADATA_UPDATE_FAILED")


class IngestError(Exception):
    """Something the user can fix; `str()` says what (never a stack trace)."""


@dataclass(frozen=True)
class Target:
    """One data source of one knowledge base, as the config describes it."""

    env_name: str
    tenant: str
    alias: str
    source_index: int
    source_type: str
    prefix: str | None  # s3 sources only

    def parameter(self, key: str) -> str:
        return naming.parameter_name(self.env_name, self.tenant, key)

    @property
    def parameters(self) -> dict[str, str]:
        """What to read from SSM: field -> parameter name."""
        names = {
            "knowledge_base_id": self.parameter(naming.knowledge_base_key(self.alias, "id")),
            "data_source_id": self.parameter(naming.data_source_key(self.alias, self.source_index, "id")),
        }
        if self.source_type == "s3":
            names["bucket"] = self.parameter(naming.data_source_key(self.alias, self.source_index, "bucket"))
            names["prefix"] = self.parameter(naming.data_source_key(self.alias, self.source_index, "prefix"))
        return names


@dataclass(frozen=True)
class Deployed:
    knowledge_base_id: str
    data_source_id: str
    bucket: str | None = None
    prefix: str | None = None


@dataclass(frozen=True)
class Upload:
    path: Path
    key: str


@dataclass
class JobResult:
    job: dict[str, Any]
    failed_documents: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None  # why failed documents could not be listed, when they could not

    @property
    def status(self) -> str:
        return self.job.get("status", "UNKNOWN")

    @property
    def ok(self) -> bool:
        failed = self.job.get("statistics", {}).get("numberOfDocumentsFailed", 0)
        return self.status == "COMPLETE" and not failed and not self.failed_documents


def resolve_target(project: Project, tenant: str, alias: str, source_index: int | None, *, needs_s3: bool) -> Target:
    """The data source to ingest into; `source_index` may be omitted when the choice is obvious."""
    if tenant not in project.tenants:
        raise IngestError(
            f"tenant '{tenant}' is not deployed in environment {project.env_name} "
            f"(its tenants: {', '.join(project.tenants)})"
        )
    kbs = {kb.alias: kb for kb in project.tenants[tenant].knowledge_bases}
    if alias not in kbs:
        raise IngestError(f"tenant {tenant} has no knowledge base '{alias}' (aliases: {', '.join(kbs)})")
    sources = kbs[alias].sources
    candidates = [i for i, s in enumerate(sources) if isinstance(s, S3Source) or not needs_s3]
    if source_index is None:
        if len(candidates) != 1:
            listing = ", ".join(f"{i}: {s.type}" for i, s in enumerate(sources))
            what = "s3 sources" if needs_s3 else "sources"
            if not candidates:
                raise IngestError(
                    f"knowledge base {alias} has no s3 source to upload to ({listing}); its connectors "
                    "read their own systems — run without PATH to start a sync"
                )
            raise IngestError(f"knowledge base {alias} has several {what} ({listing}); choose one with --source N")
        source_index = candidates[0]
    if not 0 <= source_index < len(sources):
        raise IngestError(f"knowledge base {alias} has {len(sources)} sources; --source must be 0-{len(sources) - 1}")
    if source_index not in candidates:
        raise IngestError(
            f"source {source_index} of {alias} is {sources[source_index].type}, not s3: files cannot be uploaded to it"
        )
    source = sources[source_index]
    return Target(
        env_name=project.env_name,
        tenant=tenant,
        alias=alias,
        source_index=source_index,
        source_type=source.type,
        prefix=source.prefix if isinstance(source, S3Source) else None,
    )


def plan_uploads(paths: Sequence[Path], prefix: str) -> list[Upload]:
    """Files keep their name; a directory's files keep their path below it. Dotfiles are skipped.

    Every file is opened and its first byte read while planning, so `--dry-run` reports what the
    upload would fail on (permissions, a broken symbolic link, an I/O error) — one line per file —
    instead of planning it. Permission bits alone prove nothing: root reads a chmod 000 file.
    """
    uploads: list[Upload] = []
    unreadable: list[str] = []
    for path in paths:
        if path.is_file():
            uploads.append(Upload(path, prefix + path.name))
        elif path.is_dir():
            for file in sorted(path.rglob("*")):
                relative = file.relative_to(path)
                if any(part.startswith(".") for part in relative.parts):
                    continue
                if file.is_file():
                    uploads.append(Upload(file, prefix + relative.as_posix()))
                elif file.is_symlink() and not file.exists():
                    unreadable.append(f"{file}: cannot read (broken symbolic link to {file.readlink()})")
        else:
            raise IngestError(f"{path}: no such file or directory")
    for upload in uploads:
        if (problem := _unreadable(upload.path)) is not None:
            unreadable.append(f"{upload.path}: cannot read ({problem})")
    if unreadable:
        raise IngestError("\n".join(unreadable))
    keys: dict[str, Path] = {}
    for upload in uploads:
        if upload.key in keys:
            raise IngestError(f"{upload.path} and {keys[upload.key]} would both be uploaded as {upload.key}")
        keys[upload.key] = upload.path
    if not uploads and paths:
        raise IngestError("no files to upload (directories were empty or held only dotfiles)")
    return uploads


def _unreadable(path: Path) -> str | None:
    try:
        with path.open("rb") as file:
            file.read(1)
    except OSError as error:
        return error.strerror or type(error).__name__
    return None


def read_deployed(ssm: Any, target: Target) -> Deployed:
    names = target.parameters
    response = ssm.get_parameters(Names=list(names.values()))
    values = {p["Name"]: p["Value"] for p in response.get("Parameters", [])}
    missing = [name for name in names.values() if name not in values]
    if missing:
        raise IngestError(
            f"not found in SSM: {', '.join(missing)} — is stack "
            f"{naming.tenant_stack_name(target.env_name, target.tenant)} deployed in this account and region?"
        )
    deployed = Deployed(**{field_name: values[name] for field_name, name in names.items()})
    if target.prefix is not None and deployed.prefix != target.prefix:
        raise IngestError(
            f"the config says prefix {target.prefix!r} but the deployed source reads {deployed.prefix!r}: "
            "deploy the stack first (or ingest with the config that was deployed)"
        )
    return deployed


def upload_files(s3: Any, deployed: Deployed, uploads: list[Upload], on_upload: Callable[[Upload], None]) -> None:
    """One PutObject per file: knowledge-base documents are at most 50 MB, far below its 5 GB limit."""
    for upload in uploads:
        content_type = mimetypes.guess_type(upload.path.name)[0] or "application/octet-stream"
        with upload.path.open("rb") as body:
            s3.put_object(Bucket=deployed.bucket, Key=upload.key, Body=body, ContentType=content_type)
        on_upload(upload)


def start_job(agent: Any, deployed: Deployed, description: str) -> str:
    response = agent.start_ingestion_job(
        knowledgeBaseId=deployed.knowledge_base_id,
        dataSourceId=deployed.data_source_id,
        clientToken=str(uuid.uuid4()),  # 36 characters; the API wants 33-256
        description=description[:200],
    )
    return response["ingestionJob"]["ingestionJobId"]


def follow_job(
    agent: Any,
    deployed: Deployed,
    job_id: str,
    *,
    on_update: Callable[[dict[str, Any]], None],
    interval: float = 5.0,
    timeout: float = 3600.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> JobResult:
    """Polls GetIngestionJob until the job ends (or `timeout`), then lists failed documents."""
    deadline = clock() + timeout
    while True:
        job = agent.get_ingestion_job(
            knowledgeBaseId=deployed.knowledge_base_id, dataSourceId=deployed.data_source_id, ingestionJobId=job_id
        )["ingestionJob"]
        on_update(job)
        if job.get("status") in TERMINAL_STATUSES:
            break
        if clock() >= deadline:
            return JobResult(job, note=f"still {job.get('status')} after {timeout:.0f}s; it keeps running in Bedrock")
        sleep(interval)
    result = JobResult(job)
    if job.get("statistics", {}).get("numberOfDocumentsFailed", 0):
        result.failed_documents, result.note = failed_documents(agent, deployed)
    return result


def failed_documents(agent: Any, deployed: Deployed, limit: int = 100) -> tuple[list[dict[str, Any]], str | None]:
    """Documents of the data source that are not (fully) indexed, with the service's reason.

    ListKnowledgeBaseDocuments is documented for S3 and custom sources; for other connectors the
    job's failureReasons and statistics are all there is.
    """
    from botocore.exceptions import ClientError

    found: list[dict[str, Any]] = []
    try:
        pages = agent.get_paginator("list_knowledge_base_documents").paginate(
            knowledgeBaseId=deployed.knowledge_base_id, dataSourceId=deployed.data_source_id
        )
        for page in pages:
            found += [d for d in page.get("documentDetails", []) if d.get("status") in FAILED_DOCUMENT_STATUSES]
            if len(found) >= limit:
                return found[:limit], f"showing the first {limit} failed documents"
    except ClientError as error:
        return (
            found,
            f"failed documents could not be listed ({error.response['Error'].get('Code')}): see failureReasons",
        )
    return found, None


def document_name(document: dict[str, Any]) -> str:
    identifier = document.get("identifier", {})
    return identifier.get("s3", {}).get("uri") or identifier.get("custom", {}).get("id") or "?"


def describe_progress(job: dict[str, Any], elapsed: float) -> str:
    stats = job.get("statistics", {})
    counts = "  ".join(
        f"{label} {stats.get(key, 0)}"
        for label, key in (
            ("scanned", "numberOfDocumentsScanned"),
            ("new", "numberOfNewDocumentsIndexed"),
            ("modified", "numberOfModifiedDocumentsIndexed"),
            ("deleted", "numberOfDocumentsDeleted"),
            ("failed", "numberOfDocumentsFailed"),
        )
    )
    return f"  {job.get('status', '?'):<11} {counts}  ({elapsed:.0f}s)"


def make_clients(region: str) -> tuple[Any, Any, Any]:
    """(s3, ssm, bedrock-agent) for the environment's region; endpoints follow AWS_ENDPOINT_URL_*."""
    import boto3

    session = boto3.Session(region_name=region)
    return session.client("s3"), session.client("ssm"), session.client("bedrock-agent")
