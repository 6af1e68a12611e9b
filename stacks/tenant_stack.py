"""`<env>-<tenant>`: one tenant's knowledge, guardrail, endpoint and monitoring.

The stack only composes constructs; each construct lives in its own file.
"""

from __future__ import annotations

import aws_cdk as cdk
from constructs import Construct

from schema import Project, Tenant
from stacks.log_group import log_group
from stacks.naming import endpoint_log_group_name
from stacks.platform_stack import PlatformStack


class TenantStack(cdk.Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        project: Project,
        tenant_name: str,
        platform: PlatformStack,
        **kwargs,
    ):
        super().__init__(scope, construct_id, **kwargs)
        self.project = project
        self.tenant_name = tenant_name
        self.tenant: Tenant = project.tenants[tenant_name]
        self.add_stack_dependency(platform)
        cdk.Tags.of(self).add("akb:tenant", tenant_name)

        # The endpoint's log group, created up front so its retention is ours, not Lambda's default.
        self.endpoint_log_group = log_group(
            self, "EndpointLogs", environment=project.environment,
            name=endpoint_log_group_name(project.env_name, tenant_name),
        )
