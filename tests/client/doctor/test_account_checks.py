"""Credentials, CDK bootstrap, Lambda concurrency and the adapter layer: each check both ways."""

from __future__ import annotations

import json

from client.doctor import account_checks as checks
from client.doctor.checkup import bootstrap_qualifier
from client.doctor.findings import CallFailed, Level
from tests.client.doctor.scenario import ACCOUNT, checkup, project_with

LAYER_ARN = "arn:aws:lambda:us-west-2:753240598075:layer:LambdaAdapterLayerArm64:27"


def _levels(findings) -> list[Level]:
    return [finding.level for finding in findings]


def test_credentials_of_the_configured_account_pass_and_name_the_region(stubs):
    stubs.respond(
        "sts", "get_caller_identity", {"Account": ACCOUNT, "Arn": "arn:aws:iam::123456789012:user/me", "UserId": "AIDA"}
    )
    c = checkup(stubs, account=None)
    [finding] = checks.check_credentials(c)
    assert finding.level is Level.OK
    assert ACCOUNT in finding.message and "us-west-2" in finding.message and "dev.yaml" in finding.message
    assert c.account == ACCOUNT


def test_credentials_of_another_account_fail_blocking_without_printing_that_account(stubs):
    stubs.respond(
        "sts",
        "get_caller_identity",
        {"Account": "999999999999", "Arn": "arn:aws:iam::999999999999:user/x", "UserId": "A"},
    )
    [finding] = checks.check_credentials(checkup(stubs))
    assert finding.level is Level.FAIL and finding.blocking
    assert "999999999999" not in finding.message and ACCOUNT in finding.message


def test_an_environment_without_account_warns_that_nothing_confirms_the_target(stubs):
    stubs.respond(
        "sts",
        "get_caller_identity",
        {"Account": "999999999999", "Arn": "arn:aws:iam::999999999999:user/x", "UserId": "A"},
    )
    c = checkup(stubs, project_with({"account": None}))
    [finding] = checks.check_credentials(c)
    assert finding.level is Level.WARN and "set account:" in finding.message
    assert "999999999999" not in finding.message
    assert c.account == "999999999999"  # later checks compare invokers against it, never print it


def test_bootstrap_version_at_or_above_six_passes(stubs):
    stubs.respond(
        "ssm",
        "get_parameter",
        {"Parameter": {"Name": "/cdk-bootstrap/hnb659fds/version", "Value": "21", "Type": "String"}},
        {"Name": "/cdk-bootstrap/hnb659fds/version"},
    )
    [finding] = checks.check_bootstrap(checkup(stubs))
    assert finding.level is Level.OK and "version 21" in finding.message


def test_missing_bootstrap_fails_with_the_bootstrap_command(stubs):
    stubs.error("ssm", "get_parameter", "ParameterNotFound")
    [finding] = checks.check_bootstrap(checkup(stubs))
    assert finding.level is Level.FAIL
    assert f"npx cdk bootstrap aws://{ACCOUNT}/us-west-2" in finding.message


def test_an_old_bootstrap_version_fails(stubs):
    stubs.respond("ssm", "get_parameter", {"Parameter": {"Name": "n", "Value": "5", "Type": "String"}})
    [finding] = checks.check_bootstrap(checkup(stubs))
    assert finding.level is Level.FAIL and "older than the 6" in finding.message


def test_a_custom_qualifier_from_cdk_json_is_the_parameter_read_and_the_command_printed(stubs, tmp_path):
    cdk_json = tmp_path / "cdk.json"
    cdk_json.write_text(json.dumps({"context": {"@aws-cdk/core:bootstrapQualifier": "akbqual1"}}))
    assert bootstrap_qualifier(cdk_json) == "akbqual1"
    assert bootstrap_qualifier(tmp_path / "missing.json") == "hnb659fds"
    stubs.error("ssm", "get_parameter", "ParameterNotFound", params={"Name": "/cdk-bootstrap/akbqual1/version"})
    [finding] = checks.check_bootstrap(checkup(stubs, qualifier="akbqual1"))
    assert "--qualifier akbqual1" in finding.message
    stubs.assert_all_used()


def _account_settings(stubs, unreserved: int) -> None:
    stubs.respond(
        "lambda",
        "get_account_settings",
        {"AccountLimit": {"ConcurrentExecutions": max(unreserved, 1000), "UnreservedConcurrentExecutions": unreserved}},
    )


def test_concurrency_passes_when_the_reservation_leaves_a_hundred_unreserved(stubs):
    _account_settings(stubs, 110)
    stubs.error(
        "lambda",
        "get_function_concurrency",
        "ResourceNotFoundException",
        status=404,
        params={"FunctionName": "akb-dev-acme-endpoint"},
    )
    [finding] = checks.check_concurrency(checkup(stubs))
    assert finding.level is Level.OK and "acme 10" in finding.message and "needs 10 more" in finding.message


def test_concurrency_fails_on_a_new_account_with_a_low_limit(stubs):
    _account_settings(stubs, 10)  # an account with a low concurrency limit
    stubs.error("lambda", "get_function_concurrency", "ResourceNotFoundException", status=404)
    [finding] = checks.check_concurrency(checkup(stubs))
    assert finding.level is Level.FAIL
    assert "Lambda keeps 100 unreserved" in finding.message and "Concurrent executions" in finding.message


def test_a_redeploy_needs_only_what_the_function_does_not_reserve_yet(stubs):
    _account_settings(stubs, 100)  # the function's 10 are already subtracted from the unreserved pool
    stubs.respond("lambda", "get_function_concurrency", {"ReservedConcurrentExecutions": 10})
    [finding] = checks.check_concurrency(checkup(stubs))
    assert finding.level is Level.OK and "needs 0 more" in finding.message


def test_concurrency_without_reservations_only_reads_the_account_settings(stubs):
    _account_settings(stubs, 10)
    project = project_with(acme={"reserved_concurrency": None})
    [finding] = checks.check_concurrency(checkup(stubs, project))
    assert finding.level is Level.OK and "no tenant sets reserved_concurrency" in finding.message
    stubs.assert_all_used()


def test_the_adapter_layer_version_in_config_is_looked_up_by_arn(stubs):
    stubs.respond(
        "lambda",
        "get_layer_version_by_arn",
        {"LayerVersionArn": LAYER_ARN, "Version": 27, "CompatibleArchitectures": ["arm64"]},
        {"Arn": LAYER_ARN},
    )
    [finding] = checks.check_web_adapter_layer(checkup(stubs))
    assert finding.level is Level.OK and "LambdaAdapterLayerArm64:27" in finding.message


def test_an_adapter_layer_version_missing_in_the_region_fails_naming_the_setting(stubs):
    stubs.error("lambda", "get_layer_version_by_arn", "ResourceNotFoundException", status=404)
    [finding] = checks.check_web_adapter_layer(checkup(stubs))
    assert finding.level is Level.FAIL and "web_adapter_layer_version" in finding.message


def test_an_adapter_layer_for_another_architecture_fails(stubs):
    stubs.respond("lambda", "get_layer_version_by_arn", {"Version": 27, "CompatibleArchitectures": ["x86_64"]})
    [finding] = checks.check_web_adapter_layer(checkup(stubs))
    assert finding.level is Level.FAIL and "arm64" in finding.message


def test_access_denied_propagates_as_a_failure_naming_the_action(stubs):
    stubs.error(
        "lambda",
        "get_account_settings",
        "AccessDeniedException",
        status=403,
        message="User: arn:aws:iam::999999999999:user/x is not authorized",
    )
    try:
        list(checks.check_concurrency(checkup(stubs)))
    except CallFailed as failure:
        assert failure.action == "lambda:GetAccountSettings" and failure.code == "AccessDeniedException"
    else:
        raise AssertionError("expected CallFailed")


def test_an_unanswered_identity_call_blocks_every_other_check(stubs):
    stubs.error("sts", "get_caller_identity", "InternalFailure", status=500)
    [finding] = checks.check_credentials(checkup(stubs, account=None))
    assert finding.level is Level.FAIL and finding.blocking and "InternalFailure" in finding.message


def test_the_layer_arn_follows_the_regions_partition(stubs):
    arn = "arn:aws-cn:lambda:cn-north-1:753240598075:layer:LambdaAdapterLayerArm64:27"
    stubs.respond("lambda", "get_layer_version_by_arn", {"CompatibleArchitectures": ["arm64"]}, {"Arn": arn})
    [finding] = checks.check_web_adapter_layer(checkup(stubs, project_with({"region": "cn-north-1"})))
    assert finding.level is Level.OK and "cn-north-1" in finding.message
    stubs.assert_all_used()
