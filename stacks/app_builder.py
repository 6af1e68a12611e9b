"""Turns a validated Project into stacks on a CDK app: one platform stack, one stack per tenant."""

from __future__ import annotations

import aws_cdk as cdk

from cdk_constructs.nag_checks import enable_nag
from contract.resource_names import platform_stack_name, tenant_stack_name
from features.registry import FEATURES, Features
from schema import Project
from stacks.platform_stack import PlatformStack
from stacks.tenant_stack import TenantStack


def build_app(app: cdk.Stage, project: Project, features: Features = FEATURES) -> dict[str, cdk.Stack]:
    """The environment's stacks on `app`: a CDK App (`cdk synth -c env=...`), or a pipeline's Stage for
    that environment (stacks/environment_stage.py). Stack names are set explicitly, so they are the same
    either way (a Stage would otherwise prefix them) and a team can move from `make deploy` to the
    pipeline without renaming its stacks. `features`: the tenant-feature registry (tests add one)."""
    environment = project.environment
    env = cdk.Environment(account=environment.account, region=environment.region)
    cdk.Tags.of(app).add("akb:environment", project.env_name)
    stacks: dict[str, cdk.Stack] = {}
    platform_name = platform_stack_name(project.env_name)
    platform = PlatformStack(
        app,
        platform_name,
        project=project,
        features=features,
        env=env,
        stack_name=platform_name,
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
            features=features,
            env=env,
            stack_name=name,
            description=f"Agentic retrieval tenant {tenant_name} ({project.env_name}): {tenant.description}",
        )
    if app.node.scope is None:
        # cdk-nag walks the whole construct tree from the app it is registered on. aws-cdk-lib invokes
        # the plugins of the app and of Stages nested in Stages only, never of a Stage inside a Stack
        # (a pipeline's), so the pipeline's app enables it itself (app.py) and covers these stacks.
        enable_nag(app)
    return stacks
