"""Turns a validated Project into stacks on a CDK app: one platform stack, one stack per tenant."""

from __future__ import annotations

import aws_cdk as cdk

from cdk_constructs.nag_checks import enable_nag
from cdk_constructs.resource_names import platform_stack_name, tenant_stack_name
from schema import Project
from stacks.platform_stack import PlatformStack
from stacks.tenant_stack import TenantStack


def build_app(app: cdk.App, project: Project) -> dict[str, cdk.Stack]:
    environment = project.environment
    env = cdk.Environment(account=environment.account, region=environment.region)
    cdk.Tags.of(app).add("akb:environment", project.env_name)
    stacks: dict[str, cdk.Stack] = {}
    platform_name = platform_stack_name(project.env_name)
    platform = PlatformStack(
        app,
        platform_name,
        project=project,
        env=env,
        description=(f"Agentic retrieval platform, environment {project.env_name}: alarm topic and dashboard"),
    )
    stacks[platform_name] = platform
    for tenant_name, tenant in project.tenants.items():
        name = tenant_stack_name(project.env_name, tenant_name)
        stacks[name] = TenantStack(
            app,
            name,
            project=project,
            tenant_name=tenant_name,
            platform=platform,
            env=env,
            description=f"Agentic retrieval tenant {tenant_name} ({project.env_name}): {tenant.description}",
        )
    enable_nag(app)
    return stacks
