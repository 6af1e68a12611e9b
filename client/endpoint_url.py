"""Finds a deployed tenant's endpoint URL: the SSM parameter its stack publishes.

The tenant stack writes `/akb/<env>/<tenant>/endpoint/url` (cdk_constructs/stack_outputs.py `publish`); the
region comes from the environment's config file, so `--env prod --tenant acme` is enough.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

LOCAL_URL_ENV = "AKB_LOCAL_URL"
DEFAULT_LOCAL_URL = "http://127.0.0.1:8080"
URL_KEY = "endpoint/url"


class UrlResolutionError(Exception):
    """The URL could not be found; the message says what to do."""


def local_url() -> str:
    """Where `akb local` serves the endpoint (AKB_LOCAL_URL overrides the default port)."""
    return os.environ.get(LOCAL_URL_ENV) or DEFAULT_LOCAL_URL


def parameter_name(env_name: str, tenant: str) -> str:
    return f"/akb/{env_name}/{tenant}/{URL_KEY}"


def resolve_url(config_dir: Path, env_name: str, tenant: str, ssm_client: Any = None) -> tuple[str, str]:
    """(url, region) of a deployed tenant. `ssm_client` defaults to boto3's in the env's region.

    Raises UrlResolutionError for an unknown tenant, missing parameter or missing credentials;
    ConfigError (schema) for a bad config.
    """
    from botocore.exceptions import BotoCoreError, ClientError

    from schema import load_project

    project = load_project(config_dir, env_name)
    if tenant not in project.tenants:
        known = ", ".join(project.tenants) or "none"
        raise UrlResolutionError(f"tenant '{tenant}' is not deployed in environment '{env_name}' (tenants: {known})")
    region = project.environment.region
    name = parameter_name(env_name, tenant)
    if ssm_client is None:
        import boto3

        ssm_client = boto3.client("ssm", region_name=region)
    try:
        value = ssm_client.get_parameter(Name=name)["Parameter"]["Value"]
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        if code == "ParameterNotFound":
            raise UrlResolutionError(
                f"{name} not found in {region}: is the stack {env_name}-{tenant} deployed? (or pass --url)"
            ) from None
        raise UrlResolutionError(f"reading {name} in {region} failed: {error}") from None
    except BotoCoreError as error:  # no credentials, no network, ...
        raise UrlResolutionError(f"reading {name} in {region} failed: {error}") from None
    return value, region
