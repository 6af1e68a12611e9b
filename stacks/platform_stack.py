"""`<env>-platform`: what every tenant of an environment shares (alarm topic, environment dashboard)."""

from __future__ import annotations

import aws_cdk as cdk
from constructs import Construct

from schema import Project
from stacks.alarm_topic import AlarmTopic
from stacks.removal import removal_policy


class PlatformStack(cdk.Stack):
    def __init__(self, scope: Construct, construct_id: str, *, project: Project, **kwargs):
        super().__init__(scope, construct_id, **kwargs)
        environment = project.environment
        self.alarms = AlarmTopic(
            self, "Alarms", emails=environment.alarms.emails, removal_policy=removal_policy(environment)
        )
