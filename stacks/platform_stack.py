"""`<env>-platform`: what every tenant of an environment shares (alarm topic, environment dashboard, and
what the tenant features build once per environment: features/registry.py `build_environment_parts`)."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from cdk_constructs.removal import removal_policy
from contract.resource_names import resource_prefix
from features.registry import FEATURES, Features, build_environment_parts
from features.tenant_feature import EnvironmentBuild
from monitoring.alarm_topic import AlarmTopic
from monitoring.alarms import BedrockAccountAlarms
from monitoring.environment_dashboard import EnvironmentDashboard
from monitoring.tenant_observability import RUNBOOK
from schema import Project
from schema.alarm_config import account_thresholds


class PlatformStack(cdk.Stack):
    def __init__(
        self, scope: Construct, construct_id: str, *, project: Project, features: Features = FEATURES, **kwargs: Any
    ):
        """`features`: the registry (features/registry.py); tests pass their own to add one."""
        super().__init__(scope, construct_id, **kwargs)
        environment = project.environment
        prefix = resource_prefix(project.env_name)
        self.alarms = AlarmTopic(
            self,
            "Alarms",
            emails=environment.alarms.emails,
            alarm_name_prefix=prefix,
            removal_policy=removal_policy(environment),
        )
        thresholds = account_thresholds(environment, project.tenants.values())
        self.bedrock_alarms = BedrockAccountAlarms(
            self,
            "BedrockAlarms",
            name_prefix=prefix,
            thresholds=thresholds,
            tenants=list(project.tenants),
            topic=self.alarms.topic,
            runbook_url=RUNBOOK,
        )
        self.dashboard = EnvironmentDashboard(
            self,
            "Dashboard",
            dashboard_name=prefix,
            tenants=list(project.tenants),
            thresholds=thresholds,
            tenant_dashboard_names={tenant: resource_prefix(project.env_name, tenant) for tenant in project.tenants},
            alarms=list(self.bedrock_alarms.alarms.values()),
            index_storage_price_per_gb_month=environment.pricing.index_storage_per_gb_month_usd,
        )
        # Per environment, for the features some tenant has (a shared table); tenant stacks read them.
        build = EnvironmentBuild(self, project, dashboard=self.dashboard.dashboard, alarm_topic=self.alarms.topic)
        self.feature_parts = build_environment_parts(build, features)
