"""`log_kms_key_arn`: does the key's policy let CloudWatch Logs use it for every endpoint log group?

The key is the platform team's and the stacks only import it, so CDK cannot add the grant: if the
key policy lacks it, creating the log group fails mid-deploy. This reads the key policy
(kms:GetKeyPolicy, read-only) and looks for an Allow to `logs.<region>.amazonaws.com` of
GenerateDataKey and Decrypt whose `kms:EncryptionContext:aws:logs:arn` condition (if any) covers
each log group (docs/security.md, "Encrypting the endpoint log group with your key"). Deny
statements and other condition keys are not evaluated: such a statement does not count as proof.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterator
from typing import Any

from client.doctor.checkup import Checkup, partition_of
from client.doctor.findings import Finding, aws_call, fail, ok
from contract.resource_names import endpoint_log_group_name
from policies.log_key import logs_service_principal

LOG_KEY = "log-key"
# What CloudWatch Logs must be able to do with the key to write and read encrypted log events
# (lowercase: IAM action names compare case-insensitively; these are the key's grants, not calls
# the doctor makes, which tests/client/doctor/test_permissions.py collects from quoted names).
NEEDED_ACTIONS = ("kms:generatedatakey", "kms:decrypt")
CONTEXT_KEY = "kms:encryptioncontext:aws:logs:arn"  # condition keys compare case-insensitively
ARN_OPERATORS = ("arnequals", "arnlike", "stringequals", "stringlike")


def check_log_key(c: Checkup) -> Iterator[Finding]:
    key = c.project.environment.log_kms_key_arn
    if not key:
        yield ok(LOG_KEY, "no log_kms_key_arn: CloudWatch Logs encrypts the endpoint logs with its own keys")
        return
    response = aws_call("kms:GetKeyPolicy", c.client("kms").get_key_policy, KeyId=key, PolicyName="default")
    statements = _statements(json.loads(response["Policy"]))
    account = c.configured_account or c.account or "*"
    partition = partition_of(c.region)
    for tenant in c.tenants:
        group = (
            f"arn:{partition}:logs:{c.region}:{account}:log-group:{endpoint_log_group_name(c.project.env_name, tenant)}"
        )
        if any(_allows_logs(statement, c.region, group) for statement in statements):
            yield ok(LOG_KEY, f"{key} lets CloudWatch Logs encrypt {tenant}'s endpoint log group")
        else:
            yield fail(
                LOG_KEY,
                f"the key policy of {key} ({c.env_file}: log_kms_key_arn) does not allow "
                f"{logs_service_principal(c.region)} to use it for {tenant}'s endpoint log group: add the "
                f"statement `akb policy --env {c.project.env_name} --tenant {tenant}` prints under log_group_key",
            )


def _statements(policy: dict[str, Any]) -> list[dict[str, Any]]:
    found = policy.get("Statement", [])
    return found if isinstance(found, list) else [found]


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _allows_logs(statement: dict[str, Any], region: str, log_group_arn: str) -> bool:
    """An Allow to the regional Logs principal, of both needed actions, for this log group."""
    if statement.get("Effect") != "Allow" or "NotAction" in statement or "NotPrincipal" in statement:
        return False
    principal = statement.get("Principal", {})
    services = _as_list(principal.get("Service", [])) if isinstance(principal, dict) else []
    if logs_service_principal(region) not in services:
        return False
    actions = [action.lower() for action in _as_list(statement.get("Action", []))]
    if not all(any(fnmatch.fnmatchcase(needed, action) for action in actions) for needed in NEEDED_ACTIONS):
        return False
    return _condition_covers(statement.get("Condition", {}), log_group_arn)


def _condition_covers(condition: dict[str, Any], log_group_arn: str) -> bool:
    """No condition, or only the log-group encryption context, matching this log group."""
    for operator, keys in condition.items():
        for key, values in keys.items():
            if key.lower() != CONTEXT_KEY or operator.lower() not in ARN_OPERATORS:
                return False  # a condition this check cannot evaluate: not proof
            if not any(fnmatch.fnmatchcase(log_group_arn, str(value)) for value in _as_list(values)):
                return False
    return True
