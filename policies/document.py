"""The shape of an IAM policy document, built in one place so every builder emits the same form."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Statement = dict[str, Any]
PolicyDocument = dict[str, Any]


def allow(
    sid: str, actions: Sequence[str], resources: Sequence[str] | str, condition: dict[str, Any] | None = None
) -> Statement:
    """One Allow statement; `resources` may be `"*"` only where the caller says why (in `sid`)."""
    if not sid.isalnum():
        raise ValueError(f"Sid '{sid}' must be alphanumeric (IAM allows [A-Za-z0-9] only)")
    if not actions:
        raise ValueError(f"statement {sid} has no actions")
    resource_list = [resources] if isinstance(resources, str) else list(dict.fromkeys(resources))
    if not resource_list:
        raise ValueError(f"statement {sid} has no resources")
    statement: Statement = {
        "Sid": sid,
        "Effect": "Allow",
        "Action": sorted(set(actions)) if len(actions) > 1 else actions[0],
        "Resource": resource_list if len(resource_list) > 1 else resource_list[0],
    }
    if condition:
        statement["Condition"] = condition
    return statement


def document(statements: Sequence[Statement]) -> PolicyDocument:
    return {"Version": "2012-10-17", "Statement": list(statements)}
