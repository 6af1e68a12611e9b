"""Checks of what the configuration names in the account: models, invoker principals, the Bedrock quota.

Read-only, one function per check, like account_checks.py. Model checks prove a model or
inference profile exists and is visible to the caller in the region; they do not invoke it (that
would cost money and is not read-only).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from client.doctor.checkup import Checkup
from client.doctor.findings import CallFailed, Finding, aws_call, fail, ok, warn

MODELS = "models"
INVOKERS = "invokers"
QUOTA = "bedrock-quota"

# bedrock (botocore) InferenceType: ON_DEMAND | PROVISIONED; FoundationModelLifecycleStatus: ACTIVE | LEGACY.
ON_DEMAND = "ON_DEMAND"
LEGACY = "LEGACY"
# A Bedrock quota whose name contains this (case-insensitive) is reported by the quota check.
QUOTA_NAME_FRAGMENT = "agentic"
QUOTA_SERVICE_CODE = "bedrock"


def configured_models(c: Checkup) -> dict[str, list[str]]:
    """model ARN -> who uses it (planner, reranker, <tenant>/<alias> embedding); MANAGED types name none."""
    environment = c.project.environment
    users: dict[str, list[str]] = {}
    if environment.planner.type == "CUSTOM" and environment.planner.model_arn:
        users.setdefault(environment.planner.model_arn, []).append("planner")
    if environment.reranking.type == "CUSTOM" and environment.reranking.model_arn:
        users.setdefault(environment.reranking.model_arn, []).append("reranker")
    for tenant in c.tenants:
        for kb in c.project.tenants[tenant].knowledge_bases:
            if kb.embedding.type == "CUSTOM" and kb.embedding.model_arn:
                users.setdefault(kb.embedding.model_arn, []).append(f"{tenant}/{kb.alias} embedding")
    return users


def check_models(c: Checkup) -> Iterator[Finding]:
    """Each CUSTOM planner, reranker and embedding model must exist in the region and be visible."""
    models = configured_models(c)
    if not models:
        yield ok(MODELS, "planner, reranker and embeddings are MANAGED: Bedrock chooses the models, nothing to check")
        return
    for arn, users in models.items():
        yield from _check_model(c, arn, ", ".join(users))


def _check_model(c: Checkup, arn: str, users: str) -> Iterator[Finding]:
    resource = arn.split(":", 5)[-1]
    kind, _, identifier = resource.partition("/")
    try:
        if kind == "foundation-model":
            yield _foundation_model(c, arn, identifier, users)
        elif kind in ("inference-profile", "application-inference-profile"):
            yield _inference_profile(c, arn, users)
        else:
            yield warn(
                MODELS,
                f"{arn} ({users}): a {kind} is not checked (doctor checks foundation models and inference profiles)",
            )
    except CallFailed as failure:
        if not failure.not_found:
            raise
        yield fail(
            MODELS, f"{arn} ({users}) not found in {c.region}: check the ARN and that the model is offered there"
        )


def _foundation_model(c: Checkup, arn: str, model_id: str, users: str) -> Finding:
    details = aws_call(
        "bedrock:GetFoundationModel", c.client("bedrock").get_foundation_model, modelIdentifier=model_id
    ).get("modelDetails", {})
    lifecycle = details.get("modelLifecycle", {}).get("status")
    inference = details.get("inferenceTypesSupported") or []
    if inference and ON_DEMAND not in inference:
        return warn(
            MODELS,
            f"{arn} ({users}) lists no ON_DEMAND inference ({', '.join(inference)}): use an inference profile "
            "ARN for it, or another model",
        )
    if lifecycle == LEGACY:
        return warn(MODELS, f"{arn} ({users}) is LEGACY: plan the move to an ACTIVE model before its end of life")
    return ok(MODELS, f"{arn} ({users}) available ({lifecycle or 'lifecycle not reported'})")


def _inference_profile(c: Checkup, arn: str, users: str) -> Finding:
    profile = aws_call(
        "bedrock:GetInferenceProfile", c.client("bedrock").get_inference_profile, inferenceProfileIdentifier=arn
    )
    status = profile.get("status")
    if status != "ACTIVE":
        return fail(MODELS, f"{arn} ({users}) is {status}, not ACTIVE")
    return ok(MODELS, f"{arn} ({users}) ACTIVE")


# IAM principal kind -> (IAM action, client method, name parameter, response key)
_PRINCIPAL_LOOKUP = {
    "role": ("iam:GetRole", "get_role", "RoleName", "Role"),
    "user": ("iam:GetUser", "get_user", "UserName", "User"),
}


def check_invokers(c: Checkup) -> Iterator[Finding]:
    """Each same-account invoker must exist (the endpoint's permissions and policy name it) at that path."""
    invokers = [
        (tenant, index, invoker.arn)
        for tenant in c.tenants
        for index, invoker in enumerate(c.project.tenants[tenant].invokers)
    ]
    if not invokers:
        yield warn(INVOKERS, "no tenant lists invokers: nobody can call the endpoints until invokers: names someone")
        return
    for tenant, index, arn in invokers:
        yield _check_invoker(c, tenant, index, arn)


def _check_invoker(c: Checkup, tenant: str, index: int, arn: str) -> Finding:
    where = f"{tenant} invokers[{index}]"
    account, resource = arn.split(":", 5)[4:]
    kind, _, path_and_name = resource.partition("/")
    if account != c.account:
        return warn(INVOKERS, f"{arn} ({where}) is in another account: not checked (doctor reads only this one)")
    action, method, parameter, key = _PRINCIPAL_LOOKUP[kind]
    try:
        found: dict[str, Any] = aws_call(
            action, getattr(c.client("iam"), method), **{parameter: path_and_name.split("/")[-1]}
        )
    except CallFailed as failure:
        if not failure.not_found:
            raise
        return fail(
            INVOKERS,
            f"{arn} ({where}) does not exist: create it before deploying, or fix the ARN in {c.tenant_file(tenant)}",
        )
    if found.get(key, {}).get("Arn") != arn:
        return fail(INVOKERS, f"{arn} ({where}): a {kind} of that name exists under another path; fix the ARN")
    return ok(INVOKERS, f"{arn} ({where}) exists")


def _agentic_quotas(c: Checkup, action: str, operation: str) -> list[dict[str, Any]]:
    client = c.client("service-quotas")

    def every_page(**kwargs: Any) -> list[dict[str, Any]]:
        pages = client.get_paginator(operation).paginate(**kwargs)
        return [quota for page in pages for quota in page.get("Quotas", [])]

    quotas = aws_call(action, every_page, ServiceCode=QUOTA_SERVICE_CODE, PaginationConfig={"PageSize": 100})
    return [q for q in quotas if QUOTA_NAME_FRAGMENT in str(q.get("QuotaName", "")).lower()]


def check_quota(c: Checkup) -> Iterator[Finding]:
    """The account's AgenticRetrieveStream quota (its code is not published: found by name, UNVERIFIED in the
    ledger): each Bedrock quota that mentions agentic retrieval, its applied value against the config."""
    quotas = _agentic_quotas(c, "servicequotas:ListServiceQuotas", "list_service_quotas")
    if not quotas:  # ListServiceQuotas leaves out quotas whose applied value is not available
        quotas = _agentic_quotas(c, "servicequotas:ListAWSDefaultServiceQuotas", "list_aws_default_service_quotas")
    if not quotas:
        yield warn(
            QUOTA,
            f"no Amazon Bedrock quota in {c.region} mentions agentic retrieval: look for AgenticRetrieveStream in "
            "the Service Quotas console (documented default: 300 requests per minute, adjustable)",
        )
        return
    for quota in quotas:
        yield _quota_finding(c, quota)


def _quota_finding(c: Checkup, quota: dict[str, Any]) -> Finding:
    """The applied value against `quota.agentic_requests_per_minute` (and, with fair sharing on, against
    the guarantees it is divided into)."""
    described = f"{quota.get('QuotaName')} ({quota.get('QuotaCode')})"
    value = quota.get("Value")
    if not isinstance(value, int | float):
        return warn(QUOTA, f"{described}: Service Quotas reported no value; compare it in the console")
    configured = c.project.environment.quota.agentic_requests_per_minute
    shares = _shares_line(c)
    if int(value) != configured:
        return warn(
            QUOTA,
            f"{described} = {value:g}, but {c.env_file} says quota.agentic_requests_per_minute: {configured}: set "
            f"it to {int(value)} so fair sharing divides the real quota and the dashboard and alarms compare "
            f"against it{shares}",
        )
    return ok(QUOTA, f"{described} = {value:g}; matches quota.agentic_requests_per_minute{shares}")


def _shares_line(c: Checkup) -> str:
    """`; guaranteed: acme 120, globex 180 (fair sharing on)` — the numbers the endpoints enforce."""
    from schema.quota_shares import tenant_shares

    environment = c.project.environment
    shares = tenant_shares(environment, c.project.tenants)
    listed = ", ".join(f"{name} {share.guaranteed:g}" for name, share in shares.items())
    state = "on" if environment.quota.fair_share else "off: not enforced"
    return f"; guaranteed per minute: {listed} (fair sharing {state})" if listed else ""
