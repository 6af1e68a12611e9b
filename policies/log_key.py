"""The key-policy statement a customer managed KMS key needs before it can encrypt a log group.

The key named by `log_kms_key_arn` belongs to the platform team; the stacks only import it, so this
statement is printed (`akb policy`) and documented (docs/security.md) for them to add to the key
policy, not attached by CDK. Shape from the CloudWatch Logs user guide, "Encrypt log data in
CloudWatch Logs using AWS Key Management Service", step 2
(https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html): the regional
service principal, the five action groups, and the encryption-context condition that pins the key
to the one log group.
"""

from __future__ import annotations

from policies.document import Statement

# Actions the CloudWatch Logs page lists for the service principal (wildcards are AWS's own).
LOGS_KEY_ACTIONS = ("kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*")


def logs_service_principal(region: str) -> str:
    return f"logs.{region}.amazonaws.com"


def log_group_key_statement(region: str, log_group_arn: str) -> Statement:
    """Lets CloudWatch Logs in `region` use the key for `log_group_arn` only.

    `Resource: "*"` in a key policy means "this key" (a key policy is attached to one key).
    """
    return {
        "Sid": "AllowCloudWatchLogsToEncryptTheEndpointLogGroup",
        "Effect": "Allow",
        "Principal": {"Service": logs_service_principal(region)},
        "Action": list(LOGS_KEY_ACTIONS),
        "Resource": "*",
        "Condition": {"ArnEquals": {"kms:EncryptionContext:aws:logs:arn": log_group_arn}},
    }
