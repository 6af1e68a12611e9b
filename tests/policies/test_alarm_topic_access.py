"""The alarm topic's statements admit CloudWatch for this environment's alarms and nothing wider."""

from __future__ import annotations

from policies.alarm_topic_access import (
    CLOUDWATCH_SERVICE,
    alarm_key_statement,
    alarm_publish_statement,
    alarm_source_conditions,
)

CONDITIONS = alarm_source_conditions("aws", "eu-west-1", "111122223333", "akb-dev")


def test_conditions_pin_the_account_and_the_environments_alarm_names():
    assert CONDITIONS == {
        "StringEquals": {"aws:SourceAccount": "111122223333"},
        "ArnLike": {"aws:SourceArn": "arn:aws:cloudwatch:eu-west-1:111122223333:alarm:akb-dev-*"},
    }


def test_partition_reaches_the_alarm_arn():
    conditions = alarm_source_conditions("aws-cn", "cn-north-1", "111122223333", "akb-prod")
    assert conditions["ArnLike"]["aws:SourceArn"].startswith("arn:aws-cn:cloudwatch:cn-north-1:")


def test_publish_statement_allows_only_sns_publish_on_the_topic_for_cloudwatch():
    statement = alarm_publish_statement("arn:aws:sns:eu-west-1:111122223333:alarms", CONDITIONS)
    assert statement["Effect"] == "Allow" and statement["Action"] == "sns:Publish"
    assert statement["Principal"] == {"Service": CLOUDWATCH_SERVICE}
    assert statement["Resource"] == "arn:aws:sns:eu-west-1:111122223333:alarms"
    assert statement["Condition"] is CONDITIONS


def test_key_statement_lets_cloudwatch_encrypt_under_the_same_conditions():
    statement = alarm_key_statement(CONDITIONS)
    assert set(statement["Action"]) == {"kms:Decrypt", "kms:GenerateDataKey*"}
    assert statement["Principal"] == {"Service": CLOUDWATCH_SERVICE}
    assert statement["Condition"] is CONDITIONS
