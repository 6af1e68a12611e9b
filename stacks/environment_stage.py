"""One environment as a CDK Pipelines stage: the same stacks `cdk synth -c env=NAME` builds."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from schema import Project
from stacks.app_builder import build_app


class EnvironmentStage(cdk.Stage):
    """The platform and tenant stacks of one environment, deployed into its own account and region."""

    def __init__(self, scope: Construct, construct_id: str, *, project: Project, **kwargs: Any):
        environment = project.environment
        super().__init__(
            scope,
            construct_id,
            env=cdk.Environment(account=environment.account, region=environment.region),
            **kwargs,
        )
        self.project = project
        self.stacks = build_app(self, project)
