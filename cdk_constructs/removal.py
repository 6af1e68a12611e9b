"""The environment's `removal_policy` as a CDK RemovalPolicy."""

from __future__ import annotations

from aws_cdk import RemovalPolicy

from schema import Environment


def removal_policy(environment: Environment) -> RemovalPolicy:
    return RemovalPolicy.DESTROY if environment.removal_policy == "destroy" else RemovalPolicy.RETAIN
