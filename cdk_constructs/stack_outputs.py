"""Publishes a tenant's identifiers as stack outputs and SSM parameters under /akb/<env>/<tenant>/."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from contract.resource_names import parameter_name


def publish(scope: Construct, env_name: str, tenant: str, key: str, value: str, description: str) -> None:
    """One value, two places: a CfnOutput for humans and CI, an SSM parameter for `akb` commands."""
    construct_id = "".join(part.capitalize() for part in key.replace("/", "-").split("-"))
    cdk.CfnOutput(scope, construct_id, value=value, description=description)
    ssm.StringParameter(
        scope,
        f"{construct_id}Parameter",
        parameter_name=parameter_name(env_name, tenant, key),
        string_value=value,
        description=description,
    )
