"""Small stacks for construct tests that need a variant of the example config (no nag, no app synth)."""

from __future__ import annotations

import dataclasses

import aws_cdk as cdk
from aws_cdk.assertions import Template

from stacks.platform_stack import PlatformStack
from stacks.tenant_stack import TenantStack
from tests.conftest import example_project
from tests.synth import cdk_json_context

ENV = cdk.Environment(account="123456789012", region="us-west-2")


def probe_stack() -> cdk.Stack:
    return cdk.Stack(cdk.App(context=cdk_json_context()), "Probe", env=ENV)


def tenant_stack(tenant: str, env_name: str = "dev", **tenant_updates) -> TenantStack:
    """The example tenant's stack with some top-level tenant fields replaced (already-validated values)."""
    project = example_project(env_name)
    changed = project.tenants[tenant].model_copy(update=tenant_updates)
    project = dataclasses.replace(project, tenants={**project.tenants, tenant: changed})
    app = cdk.App(context=cdk_json_context())
    platform = PlatformStack(app, "Platform", project=project, env=ENV)
    return TenantStack(app, f"{env_name}-{tenant}", project=project, tenant_name=tenant, platform=platform, env=ENV)


def template_of(stack: cdk.Stack) -> Template:
    return Template.from_stack(stack)


def resources(template: Template, resource_type: str) -> dict[str, dict]:
    return template.find_resources(resource_type)
