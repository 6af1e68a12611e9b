"""`<env>-<tenant>`: one tenant's knowledge, guardrail, endpoint and monitoring.

The stack only composes constructs; each construct lives in its own file.
"""

from __future__ import annotations

import aws_cdk as cdk
from constructs import Construct

from schema import Project, Tenant
from schema.alarms import tenant_thresholds
from stacks.log_group import log_group
from stacks.naming import query_folder, resource_prefix
from stacks.observability import TenantObservability
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

        prefix = resource_prefix(project.env_name, tenant_name)
        # The endpoint's log group, created up front so its retention is ours, not Lambda's default.
        self.endpoint_log_group = log_group(
            self, "EndpointLogs", environment=project.environment, name=f"/aws/lambda/{prefix}-endpoint"
        )

        # Dashboard, alarms and saved queries watch the endpoint function; the function comes from the
        # endpoint construct (`self.endpoint.function`), built on its own branch: until it is here,
        # the tenant has no monitoring to attach.
        endpoint = getattr(self, "endpoint", None)
        if endpoint is not None:
            self.observability = TenantObservability(
                self,
                "Observability",
                function=endpoint.function,
                log_group=self.endpoint_log_group,
                tenant=tenant_name,
                name=prefix,
                thresholds=tenant_thresholds(project.environment, self.tenant),
                topic=platform.alarms.topic,
                reserved_concurrency=self.tenant.reserved_concurrency,
                query_folder=query_folder(project.env_name, tenant_name),
            )
