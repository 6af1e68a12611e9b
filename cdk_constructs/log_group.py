"""Log groups with the environment's retention, removal policy and (optionally) customer managed key.

With `log_kms_key_arn` the log group is encrypted with that key (`KmsKeyId`). The key is the
user's and only imported here, so this project cannot edit its key policy: the statement CloudWatch
Logs needs (`policies/log_key.py`) is documented in docs/security.md and printed by `akb policy`,
and `akb validate` reminds of it. https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html
"""

from __future__ import annotations

from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from cdk_constructs.removal import removal_policy
from schema import Environment

# schema.environment.LOG_RETENTION_DAYS -> the CDK enum (whose values are names, not day counts).
RETENTION: dict[int, logs.RetentionDays] = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    5: logs.RetentionDays.FIVE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    120: logs.RetentionDays.FOUR_MONTHS,
    150: logs.RetentionDays.FIVE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    400: logs.RetentionDays.THIRTEEN_MONTHS,
    545: logs.RetentionDays.EIGHTEEN_MONTHS,
    731: logs.RetentionDays.TWO_YEARS,
    1096: logs.RetentionDays.THREE_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    2192: logs.RetentionDays.SIX_YEARS,
    2557: logs.RetentionDays.SEVEN_YEARS,
    2922: logs.RetentionDays.EIGHT_YEARS,
    3288: logs.RetentionDays.NINE_YEARS,
    3653: logs.RetentionDays.TEN_YEARS,
}


def log_group(scope: Construct, construct_id: str, *, environment: Environment, name: str) -> logs.LogGroup:
    """A named log group, so its ARN (and the IAM statements that use it) is known before deploy."""
    key = (
        kms.Key.from_key_arn(scope, f"{construct_id}Key", environment.log_kms_key_arn)
        if environment.log_kms_key_arn
        else None
    )
    return logs.LogGroup(
        scope,
        construct_id,
        log_group_name=name,
        retention=RETENTION[environment.log_retention_days],
        removal_policy=removal_policy(environment),
        encryption_key=key,
    )


def log_group_arn(group: logs.ILogGroup) -> str:
    """`arn:<partition>:logs:<region>:<account>:log-group:<name>` (no `:*`), as IAM statements name it."""
    return Stack.of(group).format_arn(
        service="logs",
        resource="log-group",
        resource_name=group.log_group_name,
        arn_format=ArnFormat.COLON_RESOURCE_NAME,
    )
