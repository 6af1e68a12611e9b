"""The endpoint log group: retention from the environment, and the customer managed key when named."""

from __future__ import annotations

import pytest

from tests.cdk_constructs.probe import example_project, probe_stack, resources, template_of

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _log_group(**environment_updates) -> dict:
    from cdk_constructs.log_group import log_group

    project = example_project()
    environment = project.environment.model_copy(update=environment_updates)
    stack = probe_stack()
    log_group(stack, "Logs", environment=environment, name="/aws/lambda/akb-dev-acme-endpoint")
    template = template_of(stack)
    (group,) = resources(template, "AWS::Logs::LogGroup").values()
    assert not resources(template, "AWS::KMS::Key"), "the key is imported, never created"
    return group["Properties"]


def test_log_group_is_encrypted_with_the_environments_key_when_it_names_one():
    assert _log_group(log_kms_key_arn=KEY)["KmsKeyId"] == KEY


def test_log_group_uses_cloudwatch_logs_default_encryption_without_a_key():
    assert "KmsKeyId" not in _log_group()
