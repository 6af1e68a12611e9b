"""cdk-nag on every synth, and acknowledgements that always carry a reason.

cdk-nag v3 runs as a policy-validation plugin: any unacknowledged AwsSolutions finding fails
synth. An acknowledgement is as narrow as possible: one rule, on one construct, optionally one
finding (`AwsSolutions-IAM5[Resource::*]`), with the reason written next to it.
"""

from __future__ import annotations

from collections.abc import Iterator

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct


def enable_nag(app: cdk.Stage) -> None:
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))


def acknowledge(construct: IConstruct, rule: str, reason: str, *, finding: str | None = None) -> None:
    """Acknowledge `AwsSolutions-<rule>` (optionally one `finding`) on `construct` only."""
    if len(reason.strip()) < 20:
        raise ValueError(f"acknowledging {rule} on {construct.node.path} needs a real reason")
    # cdk-nag v3 names findings `AwsSolutions::AwsSolutions-<rule>[<finding>]` in its report.
    rule_id = f"AwsSolutions::AwsSolutions-{rule}" + (f"[{finding}]" if finding else "")
    cdk.Validations.of(construct).acknowledge(cdk.Acknowledgment(id=rule_id, reason=reason))


def acknowledge_wildcards(construct: IConstruct, policy: dict, reasons: dict[str, str]) -> None:
    """IAM5 on a role, finding by finding: each wildcard resource of `policy` with the reason its
    statement (by Sid) needs it. A wildcard without an entry in `reasons` is a synth error."""
    found: dict[str, list[str]] = {}
    for statement, finding in wildcard_findings(construct, policy):
        if not finding.startswith("Resource::"):
            continue
        reason = reasons.get(statement["Sid"])
        if reason is None:
            raise ValueError(
                f"{construct.node.path}: statement {statement['Sid']} has wildcard resource {finding}; "
                "give it a reason next to its policy builder or scope it"
            )
        found.setdefault(finding, []).append(reason)
    for finding, why in found.items():
        acknowledge(construct, "IAM5", "; ".join(dict.fromkeys(why)), finding=finding)


def wildcard_findings(construct: IConstruct, policy: dict) -> Iterator[tuple[dict, str]]:
    """(statement, finding) for each wildcard action and resource of the resolved `policy`, named as
    cdk-nag's IAM5 names them: `Action::s3:List*`, `Resource::arn:<AWS::Partition>:...:*`."""
    for statement in policy.get("Statement", []):
        for action in _as_list(statement.get("Action")):
            if "*" in action:
                yield statement, f"Action::{action}"
        for resource in _as_list(statement.get("Resource")):
            finding = "Resource::" + finding_text(construct, resource)
            if "*" in finding:
                yield statement, finding


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else [] if value is None else [value]


def finding_text(scope: IConstruct, value: str) -> str:
    """How cdk-nag prints a (possibly tokenized) value in a finding: `arn:<AWS::Partition>:...:<LogGroupF00>:*`."""
    return _render(cdk.Stack.of(scope).resolve(value))


def _render(resolved: object) -> str:
    if isinstance(resolved, str):
        return resolved.replace("${", "<").replace("}", ">")  # Fn::Sub's `${X}` prints as `<X>`
    if isinstance(resolved, dict) and "Fn::Sub" in resolved:
        return _render(resolved["Fn::Sub"])
    if isinstance(resolved, dict) and "Fn::Join" in resolved:
        separator, parts = resolved["Fn::Join"]
        return separator.join(_render(part) for part in parts)
    if isinstance(resolved, dict) and "Ref" in resolved:
        return f"<{resolved['Ref']}>"
    if isinstance(resolved, dict) and "Fn::GetAtt" in resolved:
        return f"<{'.'.join(resolved['Fn::GetAtt'])}>"
    raise ValueError(f"cannot render {resolved!r} the way cdk-nag names findings")
