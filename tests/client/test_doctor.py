"""`akb doctor`: the runner, the exit statuses and the usage errors, end to end over stubbed clients.

The AWS calls are answered by botocore's Stubber on real boto3 clients (tests/client/doctor/
conftest.py); the CLI tests run the real command through click.
"""

from __future__ import annotations

from datetime import UTC, datetime

from click.testing import CliRunner

from client.cli import main
from client.commands import doctor
from tests.client.aws_stubs import Stubs
from tests.client.doctor.scenario import ACCOUNT
from tests.conftest import EXAMPLE_CONFIG
from tests.schema.conftest import config_copy  # noqa: F401 - fixture

NOW = datetime(2026, 1, 1, tzinfo=UTC)
PROFILE = "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-lite-v1:0"
QUOTA = {
    "QuotaName": "Maximum AgenticRetrieveStream requests per minute, per account",
    "QuotaCode": "L-1",
    "Value": 300.0,
}


def _role() -> dict:
    return {
        "Role": {
            "Path": "/",
            "RoleName": "acme-app",
            "RoleId": "AROAEXAMPLEEXAMPLE1",
            "Arn": f"arn:aws:iam::{ACCOUNT}:role/acme-app",
            "CreateDate": NOW,
        }
    }


def _profile() -> dict:
    return {
        "inferenceProfileName": "n",
        "inferenceProfileArn": PROFILE,
        "inferenceProfileId": "us.amazon.nova-lite-v1:0",
        "models": [{"modelArn": PROFILE}],
        "status": "ACTIVE",
        "type": "SYSTEM_DEFINED",
    }


def _platform(status: str) -> dict:
    return {"Stacks": [{"StackName": "dev-platform", "StackStatus": status, "CreationTime": NOW}]}


def script(stubs: Stubs, **replaced) -> Stubs:
    """Queues the answers of a ready account for dev/acme's first deploy; `replaced` swaps single steps."""
    steps = {
        "identity": lambda: stubs.respond("sts", "get_caller_identity", {"Account": ACCOUNT}),
        "bootstrap": lambda: stubs.respond("ssm", "get_parameter", {"Parameter": {"Value": "21"}}),
        "settings": lambda: stubs.respond(
            "lambda", "get_account_settings", {"AccountLimit": {"UnreservedConcurrentExecutions": 1000}}
        ),
        "reservation": lambda: stubs.error(
            "lambda", "get_function_concurrency", "ResourceNotFoundException", status=404
        ),
        "layer": lambda: stubs.respond("lambda", "get_layer_version_by_arn", {"CompatibleArchitectures": ["arm64"]}),
        "planner": lambda: stubs.respond("bedrock", "get_inference_profile", _profile()),
        "invoker": lambda: stubs.respond("iam", "get_role", _role()),
        "quota": lambda: stubs.respond("service-quotas", "list_service_quotas", {"Quotas": [QUOTA]}),
        "platform": lambda: stubs.respond("cloudformation", "describe_stacks", _platform("CREATE_COMPLETE")),
        "tenant": lambda: stubs.error("cloudformation", "describe_stacks", "ValidationError"),
    }
    for name, step in {**steps, **replaced}.items():
        if step is not None:
            step()
        assert name in steps, name
    return stubs


def _diagnose(stubs: Stubs, tenant: str | None = "acme") -> tuple[int, list[str]]:
    lines: list[str] = []
    checkup = doctor.checkup_or_exit(EXAMPLE_CONFIG, "dev", tenant, clients=stubs)
    status = doctor.diagnose(checkup, lines.append)
    return status, lines


def test_a_ready_account_exits_0_with_one_ok_line_per_check(stubs):
    status, lines = _diagnose(script(stubs))
    assert status == 0, "\n".join(lines)
    assert lines[0].startswith(f"akb doctor: environment dev (account {ACCOUNT}, region us-west-2), tenants acme")
    checks = [line.split()[1] for line in lines[1:-1]]
    assert checks == [
        "credentials",
        "cdk-bootstrap",
        "lambda-concurrency",
        "web-adapter-layer",
        "models",
        "invokers",
        "bedrock-quota",
        "log-key",
        "stack",
        "stack",
    ]
    assert all(line.startswith("OK ") for line in lines[1:-1])
    assert lines[-1] == "0 FAIL, 0 WARN, 10 OK"
    stubs.assert_all_used()


def test_warnings_alone_still_exit_0(stubs):
    status, lines = _diagnose(
        script(
            stubs,
            quota=lambda: stubs.respond(
                "service-quotas", "list_service_quotas", {"Quotas": [{**QUOTA, "Value": 600.0}]}
            ),
            platform=lambda: stubs.respond("cloudformation", "describe_stacks", _platform("UPDATE_IN_PROGRESS")),
        )
    )
    assert status == 0, "\n".join(lines)
    assert lines[-1] == "0 FAIL, 2 WARN, 8 OK"


def test_one_failed_check_exits_1_and_the_other_checks_still_run(stubs):
    status, lines = _diagnose(script(stubs, bootstrap=lambda: stubs.error("ssm", "get_parameter", "ParameterNotFound")))
    assert status == 1
    assert lines[-1] == "1 FAIL, 0 WARN, 9 OK"
    stubs.assert_all_used()


def test_access_denied_becomes_a_fail_line_naming_the_permission(stubs):
    message = "User: arn:aws:iam::999999999999:user/x is not authorized"
    status, lines = _diagnose(
        script(
            stubs,
            quota=lambda: stubs.error(
                "service-quotas", "list_service_quotas", "AccessDeniedException", status=403, message=message
            ),
        )
    )
    assert status == 1
    [line] = [line for line in lines if line.startswith("FAIL")]
    assert "bedrock-quota" in line and "servicequotas:ListServiceQuotas" in line and "999999999999" not in line


def test_credentials_of_another_account_stop_every_other_check(stubs):
    other = {"Account": "999999999999"}
    status, lines = _diagnose(script(stubs, identity=lambda: stubs.respond("sts", "get_caller_identity", other)))
    assert status == 1
    assert [line.split()[1] for line in lines[1:-1]] == ["credentials", "doctor"]
    assert "remaining checks skipped" in lines[-2]
    assert not any("999999999999" in line for line in lines)


def test_rejected_credentials_exit_2_with_one_line(stubs):
    status, lines = _diagnose(
        script(stubs, identity=lambda: stubs.error("sts", "get_caller_identity", "ExpiredToken", status=403))
    )
    assert status == 2
    assert lines[-1].startswith("akb doctor: AWS rejected the credentials (ExpiredToken)")


def test_no_credentials_exit_2_with_one_line_and_no_traceback(no_aws_credentials):
    result = CliRunner().invoke(main, ["doctor", "--env", "dev"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "akb doctor: no AWS credentials found: set a profile (AWS_PROFILE), run aws sso login, or export keys"
    ]


def test_an_unknown_environment_is_a_usage_error(no_aws_credentials):
    # Config errors come first: credentials are not needed to find them.
    result = CliRunner().invoke(main, ["doctor", "--env", "qa"])
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert "environment 'qa' not found; available: dev, prod" in line and "Traceback" not in result.output


def test_an_unknown_tenant_is_a_usage_error(no_aws_credentials):
    result = CliRunner().invoke(main, ["doctor", "--env", "prod", "--tenant", "globex"])
    assert result.exit_code == 2
    assert (
        result.output.strip() == "akb doctor: tenant 'globex' is not deployed in environment prod (its tenants: acme)"
    )


def test_an_invalid_config_is_a_usage_error_naming_the_field(config_copy, no_aws_credentials):  # noqa: F811
    config_copy.edit("tenants", "globex", lambda t: t.update(user_context="everyone"))
    result = CliRunner().invoke(main, ["doctor", "--config", str(config_copy.root)])
    assert result.exit_code == 2
    assert "globex.yaml: user_context" in result.output and "Traceback" not in result.output


def test_tenant_checks_run_for_every_tenant_unless_one_is_chosen(stubs):
    checkup = doctor.checkup_or_exit(EXAMPLE_CONFIG, "dev", None, clients=stubs)
    names = [name for name, _ in doctor.planned_checks(checkup)]
    assert names.count("ingestion") == 2 and checkup.tenants == ("acme", "globex")
