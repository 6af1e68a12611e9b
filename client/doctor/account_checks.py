"""Account-level checks: is this account and region ready for the environment's first `cdk deploy`?

One function per check, each read-only; each yields findings and lets an unexpected AWS failure
propagate as `CallFailed` (the runner turns it into a FAIL line naming the missing permission).
Sources of every value used here: docs/facts-and-decisions.md, "Ledger".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from client.doctor.checkup import Checkup, partition_of
from client.doctor.findings import CallFailed, Finding, aws_call, fail, from_failure, ok, warn
from contract import resource_names as naming

CREDENTIALS = "credentials"
BOOTSTRAP = "cdk-bootstrap"
CONCURRENCY = "lambda-concurrency"
ADAPTER_LAYER = "web-adapter-layer"

# aws-cdk-lib 2.275 DefaultStackSynthesizer MIN_BOOTSTRAP_STACK_VERSION: templates assert at least this.
MIN_BOOTSTRAP_VERSION = 6
# "leave at least 100 simultaneous executions unreserved" (botocore lambda PutFunctionConcurrency;
# Lambda developer guide, configuration-concurrency).
MIN_UNRESERVED_CONCURRENCY = 100
ARCHITECTURE = "arm64"  # the endpoint function's architecture (cdk_constructs/streaming_endpoint.py)


def check_credentials(c: Checkup) -> Iterator[Finding]:
    """Whose credentials these are: the account must be the one the environment file names."""
    try:
        identity = aws_call("sts:GetCallerIdentity", c.client("sts").get_caller_identity)
    except CallFailed as failure:  # unconfirmed account: every later answer could be another account's
        yield dataclasses.replace(from_failure(CREDENTIALS, failure, c.region), blocking=True)
        return
    c.account = identity.get("Account")
    configured = c.configured_account
    region = f"region {c.region}"
    if configured is None:
        yield warn(
            CREDENTIALS,
            f"{c.env_file} sets no account, so nothing confirms these credentials reach the intended one: "
            f"set account: to the target's 12-digit id; {region}",
        )
    elif c.account != configured:
        yield fail(
            CREDENTIALS,
            f"the credentials belong to another account than {configured} ({c.env_file}): "
            f"use credentials (profile, SSO session) for {configured}",
            blocking=True,
        )
    else:
        yield ok(CREDENTIALS, f"account {configured} matches {c.env_file}; {region}")


def _bootstrap_command(c: Checkup) -> str:
    account = c.configured_account or "ACCOUNT"
    qualifier = "" if c.qualifier == "hnb659fds" else f" --qualifier {c.qualifier}"
    return f"npx cdk bootstrap aws://{account}/{c.region}{qualifier}"


def check_bootstrap(c: Checkup) -> Iterator[Finding]:
    """`cdk deploy` needs the bootstrap stack; its version lives in an SSM parameter."""
    name = f"/cdk-bootstrap/{c.qualifier}/version"
    try:
        response = aws_call("ssm:GetParameter", c.client("ssm").get_parameter, Name=name)
    except CallFailed as failure:
        if not failure.not_found:
            raise
        yield fail(BOOTSTRAP, f"{name} not found: {c.region} is not bootstrapped; run {_bootstrap_command(c)}")
        return
    value = str(response.get("Parameter", {}).get("Value", ""))
    if not value.isdigit():
        yield fail(BOOTSTRAP, f"{name} holds {value!r}, not a version number: run {_bootstrap_command(c)}")
    elif int(value) < MIN_BOOTSTRAP_VERSION:
        yield fail(
            BOOTSTRAP,
            f"bootstrap version {value} is older than the {MIN_BOOTSTRAP_VERSION} aws-cdk-lib requires: "
            f"run {_bootstrap_command(c)}",
        )
    else:
        yield ok(BOOTSTRAP, f"version {value} (qualifier {c.qualifier}; {MIN_BOOTSTRAP_VERSION} or later needed)")


def _current_reservation(c: Checkup, tenant: str) -> int:
    """What the tenant's function already reserves (0 before its first deploy): a redeploy needs only the rest."""
    name = naming.endpoint_function_name(c.project.env_name, tenant)
    try:
        response = aws_call(
            "lambda:GetFunctionConcurrency", c.client("lambda").get_function_concurrency, FunctionName=name
        )
    except CallFailed as failure:
        if failure.not_found:
            return 0
        raise
    return int(response.get("ReservedConcurrentExecutions") or 0)


def check_concurrency(c: Checkup) -> Iterator[Finding]:
    """New accounts can have a low concurrency limit; reserving more than it allows fails the deploy."""
    settings = aws_call("lambda:GetAccountSettings", c.client("lambda").get_account_settings)
    unreserved = settings.get("AccountLimit", {}).get("UnreservedConcurrentExecutions")
    if unreserved is None:
        yield fail(CONCURRENCY, "Lambda reported no UnreservedConcurrentExecutions: run akb doctor again")
        return
    wanted = {t: c.project.tenants[t].reserved_concurrency or 0 for t in c.tenants}
    wanted = {tenant: count for tenant, count in wanted.items() if count}
    if not wanted:
        yield ok(CONCURRENCY, f"no tenant sets reserved_concurrency; {unreserved} unreserved in the account")
        return
    more = sum(max(0, count - _current_reservation(c, tenant)) for tenant, count in wanted.items())
    asked = ", ".join(f"{tenant} {count}" for tenant, count in wanted.items())
    reservable = max(0, unreserved - MIN_UNRESERVED_CONCURRENCY)
    if more <= reservable:
        yield ok(
            CONCURRENCY,
            f"reserved_concurrency ({asked}) needs {more} more; {reservable} can be reserved "
            f"({unreserved} unreserved, Lambda keeps {MIN_UNRESERVED_CONCURRENCY})",
        )
    else:
        yield fail(
            CONCURRENCY,
            f"reserved_concurrency ({asked}) needs {more} more but only {reservable} can be reserved "
            f"({unreserved} unreserved; Lambda keeps {MIN_UNRESERVED_CONCURRENCY} unreserved): request a higher "
            "'Concurrent executions' quota (Service Quotas, AWS Lambda) or lower reserved_concurrency",
        )


def check_web_adapter_layer(c: Checkup) -> Iterator[Finding]:
    """The endpoint runs behind the Lambda Web Adapter layer version pinned in config; it must exist here."""
    version = c.project.environment.endpoint.web_adapter_layer_version
    arn = naming.web_adapter_layer_arn(partition_of(c.region), c.region, version)
    try:
        layer = aws_call("lambda:GetLayerVersion", c.client("lambda").get_layer_version_by_arn, Arn=arn)
    except CallFailed as failure:
        if not failure.not_found:
            raise
        yield fail(
            ADAPTER_LAYER,
            f"{arn} does not exist: set endpoint.web_adapter_layer_version in {c.env_file} to a version the "
            "adapter's README lists for this region",
        )
        return
    architectures = layer.get("CompatibleArchitectures") or []
    if architectures and ARCHITECTURE not in architectures:
        yield fail(ADAPTER_LAYER, f"{arn} is not built for {ARCHITECTURE} (it lists {', '.join(architectures)})")
    else:
        yield ok(ADAPTER_LAYER, f"{naming.WEB_ADAPTER_LAYER}:{version} exists in {c.region}")
