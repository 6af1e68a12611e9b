"""Finds a deployed tenant's endpoint URL: the SSM parameter its stack publishes.

The tenant stack writes `/akb/<env>/<tenant>/endpoint/url` (cdk_constructs/stack_outputs.py `publish`); the
region comes from the environment's config file, so `--env prod --tenant acme` is enough.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from client.exit_codes import SetupError

LOCAL_URL_ENV = "AKB_LOCAL_URL"
DEFAULT_LOCAL_URL = "http://127.0.0.1:8080"
URL_KEY = "endpoint/url"


class UrlResolutionError(SetupError):
    """The URL could not be found; the message says what to do."""


def local_url() -> str:
    """Where `akb local` serves the endpoint (AKB_LOCAL_URL overrides the default port)."""
    return os.environ.get(LOCAL_URL_ENV) or DEFAULT_LOCAL_URL


def parameter_name(env_name: str, tenant: str) -> str:
    return f"/akb/{env_name}/{tenant}/{URL_KEY}"


def resolve_url(config_dir: Path, env_name: str, tenant: str, ssm_client: Any = None) -> tuple[str, str]:
    """(url, region) of a deployed tenant. `ssm_client` defaults to boto3's in the env's region.

    Raises UrlResolutionError for an unknown tenant or a missing parameter, ConfigError (schema) for
    a bad config; botocore's own errors (no credentials, access denied, no network) propagate for the
    one error path (client/failures.py) to name.
    """
    from botocore.exceptions import ClientError

    from client import aws_session
    from schema import load_project

    project = load_project(config_dir, env_name)
    if tenant not in project.tenants:
        known = ", ".join(project.tenants) or "none"
        raise UrlResolutionError(f"tenant '{tenant}' is not deployed in environment '{env_name}' (tenants: {known})")
    region = aws_session.environment_region(project)
    name = parameter_name(env_name, tenant)
    if ssm_client is None:
        ssm_client = aws_session.client("ssm", region)
    try:
        value = ssm_client.get_parameter(Name=name)["Parameter"]["Value"]
    except ClientError as error:
        if error.response.get("Error", {}).get("Code", "") != "ParameterNotFound":
            raise
        raise UrlResolutionError(
            f"{name} not found in {region}: is the stack {env_name}-{tenant} deployed? (or pass --url)"
        ) from None
    return value, region
