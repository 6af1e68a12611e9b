"""Checks of deployed stacks: their status, the retrieval instruction's review, the last ingestion jobs.

A tenant whose stack does not exist yet gets one line ("not deployed yet") and nothing else: the
first deploy creates everything. Identifiers come from the SSM parameters the tenant stack
publishes under /akb/<env>/<tenant>/ (cdk_constructs/knowledge_outputs.py), the same ones
`akb ingest` reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from client.doctor.checkup import Checkup
from client.doctor.findings import CallFailed, Finding, aws_call, fail, ok, warn
from contract import resource_names as naming

STACK = "stack"
INSTRUCTION = "instruction"
INGESTION = "ingestion"

# CloudFormation StackStatus values (botocore cloudformation) by what they mean for the next deploy.
HEALTHY_STATUSES = frozenset({"CREATE_COMPLETE", "UPDATE_COMPLETE", "IMPORT_COMPLETE"})
ROLLED_BACK_STATUSES = frozenset({"UPDATE_ROLLBACK_COMPLETE", "IMPORT_ROLLBACK_COMPLETE"})
# Statuses in which the stack's resources exist (so its SSM parameters can be read).
_RESOURCES_EXIST_PREFIXES = ("UPDATE_", "IMPORT_COMPLETE", "IMPORT_ROLLBACK_COMPLETE", "CREATE_COMPLETE")
# bedrock-agent IngestionJobStatus values.
RUNNING_JOB_STATUSES = frozenset({"STARTING", "IN_PROGRESS", "STOPPING"})


def stack_status(c: Checkup, stack_name: str) -> str | None:
    """The stack's status, or None when it does not exist (DescribeStacks answers ValidationError)."""
    try:
        response = aws_call(
            "cloudformation:DescribeStacks", c.client("cloudformation").describe_stacks, StackName=stack_name
        )
    except CallFailed as failure:
        if failure.code == "ValidationError":  # botocore's StackExists waiter reads this as "no such stack"
            return None
        raise
    stacks = response.get("Stacks") or [{}]
    return stacks[0].get("StackStatus")


def status_finding(stack_name: str, status: str | None) -> Finding:
    if status is None:
        return ok(STACK, f"{stack_name}: not deployed yet (cdk deploy creates it)")
    if status in HEALTHY_STATUSES:
        return ok(STACK, f"{stack_name}: {status}")
    if status.endswith("_IN_PROGRESS"):
        return warn(STACK, f"{stack_name}: {status}: wait until it ends before deploying (its events show progress)")
    if status in ROLLED_BACK_STATUSES:
        return warn(STACK, f"{stack_name}: {status}: the last change was rolled back; its events say why")
    if status == "ROLLBACK_COMPLETE":
        return fail(
            STACK, f"{stack_name}: ROLLBACK_COMPLETE: creation failed; read its events, delete it, deploy again"
        )
    if status == "UPDATE_ROLLBACK_FAILED":
        return fail(
            STACK,
            f"{stack_name}: UPDATE_ROLLBACK_FAILED: fix the cause in its events, then continue the "
            "rollback (aws cloudformation continue-update-rollback)",
        )
    return fail(STACK, f"{stack_name}: {status}: read its events and fix the cause before deploying")


def check_platform_stack(c: Checkup) -> Iterator[Finding]:
    """Tenant stacks import the platform stack's alarm topic: it deploys first."""
    name = naming.platform_stack_name(c.project.env_name)
    yield status_finding(name, stack_status(c, name))


def check_tenant_stack(c: Checkup, tenant: str) -> Iterator[Finding]:
    name = naming.tenant_stack_name(c.project.env_name, tenant)
    status = stack_status(c, name)
    c.deployed[tenant] = status is not None and status.startswith(_RESOURCES_EXIST_PREFIXES)
    yield status_finding(name, status)


def deployed_parameters(c: Checkup, tenant: str) -> dict[str, str]:
    """Every /akb/<env>/<tenant>/... parameter (name -> value), read once per tenant."""
    if tenant not in c.parameters:
        client = c.client("ssm")

        def every_page(**kwargs: Any) -> dict[str, str]:
            pages = client.get_paginator("get_parameters_by_path").paginate(**kwargs)
            return {p["Name"]: p["Value"] for page in pages for p in page.get("Parameters", [])}

        path = naming.parameter_name(c.project.env_name, tenant, "").rstrip("/")
        c.parameters[tenant] = aws_call("ssm:GetParametersByPath", every_page, Path=path, Recursive=True)
    return c.parameters[tenant]


def _parameter(c: Checkup, tenant: str, key: str) -> str | None:
    return deployed_parameters(c, tenant).get(naming.parameter_name(c.project.env_name, tenant, key))


def _missing(check: str, c: Checkup, tenant: str, key: str) -> Finding:
    name = naming.parameter_name(c.project.env_name, tenant, key)
    stack = naming.tenant_stack_name(c.project.env_name, tenant)
    return fail(check, f"{name} not found: deploy {stack} with this config (cdk deploy {stack})")


def check_retrieval_instruction(c: Checkup, tenant: str) -> Iterator[Finding]:
    """Bedrock reviews an instruction after create; until it is ACTIVE, requests that name it fail."""
    if not c.deployed.get(tenant) or c.project.tenants[tenant].retrieval.instruction is None:
        return
    instruction_id = _parameter(c, tenant, naming.INSTRUCTION_ID_KEY)
    if instruction_id is None:
        yield _missing(INSTRUCTION, c, tenant, naming.INSTRUCTION_ID_KEY)
        return
    try:
        found = aws_call(
            "bedrock:GetRetrievalInstruction",
            c.client("bedrock-agent").get_retrieval_instruction,
            retrievalInstructionId=instruction_id,
        )
    except CallFailed as failure:
        if not failure.not_found:
            raise
        yield fail(
            INSTRUCTION,
            f"{tenant}: instruction {instruction_id} not found (deleted outside CloudFormation?): "
            "deploy the tenant stack again",
        )
        return
    yield instruction_finding(c, tenant, found)


def instruction_finding(c: Checkup, tenant: str, found: dict[str, Any]) -> Finding:
    status, last = found.get("status"), found.get("lastTransitionStatus")
    where = f"{tenant}: instruction {found.get('retrievalInstructionId')}"
    reasons = "; ".join(
        f"{reason.get('fieldName', 'review')}: {reason.get('code')} {c.redact(str(reason.get('message', '')))}".strip()
        for reason in found.get("lastTransitionStatusReasons") or []
    )
    fix = f"revise retrieval.instruction in {c.tenant_file(tenant)} and deploy"
    if status == "ACTIVE" and last in ("UPDATE_FAILED",):
        return warn(
            INSTRUCTION,
            f"{where} ACTIVE, but the last update was rejected ({reasons}): requests use the previous content; {fix}",
        )
    if status == "ACTIVE":
        note = (
            ": an update is under review, requests use the previous content until it passes"
            if last == "UPDATING"
            else ""
        )
        return ok(INSTRUCTION, f"{where} ACTIVE{note}")
    if last == "CREATE_FAILED":
        return fail(INSTRUCTION, f"{where} rejected by Bedrock's review ({reasons}): every request fails; {fix}")
    if last == "CREATING":
        return warn(
            INSTRUCTION,
            f"{where} {status}, under review: requests fail until it is ACTIVE; run akb doctor again in a few minutes",
        )
    return fail(INSTRUCTION, f"{where} {status} (last change {last}): requests that name it fail until it is ACTIVE")


def check_ingestion(c: Checkup, tenant: str) -> Iterator[Finding]:
    """Each data source's last ingestion job: a knowledge base that was never ingested answers nothing."""
    if not c.deployed.get(tenant):
        return
    for kb in c.project.tenants[tenant].knowledge_bases:
        kb_key = naming.knowledge_base_key(kb.alias, "id")
        for index, source in enumerate(kb.sources):
            ds_key = naming.data_source_key(kb.alias, index, "id")
            kb_id, ds_id = _parameter(c, tenant, kb_key), _parameter(c, tenant, ds_key)
            if kb_id is None or ds_id is None:
                yield _missing(INGESTION, c, tenant, kb_key if kb_id is None else ds_key)
                continue
            where = f"{tenant}/{kb.alias} source {index} ({source.type})"
            yield job_finding(c, tenant, where, kb.alias, index, _last_job(c, kb_id, ds_id))


def _last_job(c: Checkup, kb_id: str, ds_id: str) -> dict[str, Any] | None:
    response = aws_call(
        "bedrock:ListIngestionJobs",
        c.client("bedrock-agent").list_ingestion_jobs,
        knowledgeBaseId=kb_id,
        dataSourceId=ds_id,
        sortBy={"attribute": "STARTED_AT", "order": "DESCENDING"},
        maxResults=1,
    )
    jobs = response.get("ingestionJobSummaries") or []
    return jobs[0] if jobs else None


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if isinstance(value, datetime) else "at an unknown time"


def job_finding(c: Checkup, tenant: str, where: str, alias: str, index: int, job: dict[str, Any] | None) -> Finding:
    rerun = f"akb ingest --env {c.project.env_name} --tenant {tenant} --kb {alias} --source {index}"
    if job is None:
        return warn(INGESTION, f"{where}: never ingested, so it answers nothing: run {rerun}")
    status, stats = job.get("status"), job.get("statistics") or {}
    started = _when(job.get("startedAt"))
    if status == "COMPLETE":
        failed = stats.get("numberOfDocumentsFailed", 0)
        indexed = stats.get("numberOfNewDocumentsIndexed", 0) + stats.get("numberOfModifiedDocumentsIndexed", 0)
        if failed:
            return warn(
                INGESTION,
                f"{where}: last job (started {started}) COMPLETE with {failed} failed documents: "
                f"run {rerun} to list them",
            )
        return ok(INGESTION, f"{where}: last job (started {started}) COMPLETE, {indexed} indexed")
    if status in RUNNING_JOB_STATUSES:
        return warn(INGESTION, f"{where}: job {status} since {started}: answers may miss documents until it ends")
    if status == "STOPPED":
        return warn(INGESTION, f"{where}: last job (started {started}) STOPPED before the end: run {rerun}")
    return fail(
        INGESTION,
        f"{where}: last job (started {started}) {status}: its failure reasons are in "
        f"aws bedrock-agent get-ingestion-job; fix them and run {rerun}",
    )
