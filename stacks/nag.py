"""cdk-nag on every synth, and acknowledgements that always carry a reason.

cdk-nag v3 runs as a policy-validation plugin: any unacknowledged AwsSolutions finding fails
synth. An acknowledgement is as narrow as possible: one rule, on one construct, optionally one
finding (`AwsSolutions-IAM5[Resource::*]`), with the reason written next to it.
"""

from __future__ import annotations

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct


def enable_nag(app: cdk.App) -> None:
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))


def acknowledge(construct: IConstruct, rule: str, reason: str, *, finding: str | None = None) -> None:
    """Acknowledge `AwsSolutions-<rule>` (optionally one `finding`) on `construct` only."""
    if len(reason.strip()) < 20:
        raise ValueError(f"acknowledging {rule} on {construct.node.path} needs a real reason")
    # cdk-nag v3 names findings `AwsSolutions::AwsSolutions-<rule>[<finding>]` in its report.
    rule_id = f"AwsSolutions::AwsSolutions-{rule}" + (f"[{finding}]" if finding else "")
    cdk.Validations.of(construct).acknowledge(cdk.Acknowledgment(id=rule_id, reason=reason))
