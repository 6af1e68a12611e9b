"""`akb policy` prints, and `akb validate` reminds of, the key-policy statement a log key needs."""

from __future__ import annotations

from tests.schema.conftest import config_copy  # noqa: F401 - a writable example config

KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def test_the_printed_key_policy_statement_is_the_one_cloudwatch_logs_documents(config_copy):  # noqa: F811
    from client.commands.policy import review
    from schema import load_project

    config_copy.edit("environments", "dev", lambda e: e.update(log_kms_key_arn=KEY))
    printed = review(load_project(config_copy.root, "dev"), "acme")["log_group_key"]
    statement = printed["key_policy_statement_to_add"]
    assert printed["key_arn"] == KEY
    assert statement["Principal"] == {"Service": "logs.us-west-2.amazonaws.com"}
    assert statement["Action"] == [
        "kms:Encrypt*",
        "kms:Decrypt*",
        "kms:ReEncrypt*",
        "kms:GenerateDataKey*",
        "kms:Describe*",
    ]
    assert statement["Condition"] == {
        "ArnEquals": {
            "kms:EncryptionContext:aws:logs:arn": (
                "arn:aws:logs:us-west-2:123456789012:log-group:/aws/lambda/akb-dev-acme-endpoint"
            )
        }
    }


def test_akb_validate_warns_that_the_key_policy_is_the_owners_to_edit(config_copy):  # noqa: F811
    from click.testing import CliRunner

    from client.cli import main

    config_copy.edit("environments", "dev", lambda e: e.update(log_kms_key_arn=KEY))
    result = CliRunner().invoke(main, ["validate", "--env", "dev", "--config", str(config_copy.root)])
    assert result.exit_code == 0
    assert "warning: log_kms_key_arn" in result.output and "logs.us-west-2.amazonaws.com" in result.output
