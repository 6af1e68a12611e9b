"""`akb verify` as a whole: lines or one JSON document, exit 0 / 1 / 2; the real endpoint answers the canary,
every AWS read goes through botocore's Stubber."""

from __future__ import annotations

import json

from click.testing import CliRunner

from client.cli import main
from client.commands.verify import verify
from policies.alarm_topic_access import alarm_key_statement, alarm_publish_statement
from tests.client.doctor.scenario import ACCOUNT, project_with
from tests.client.verify.conftest import parameter, verification
from tests.client.verify.test_alarm_checks import CONDITIONS, TOPIC, _alarms, _key, _topic
from tests.client.verify.test_metric_checks import _data, _listed


def _script(stubs, endpoint_url: str, *, alarms: bool = True) -> None:
    stubs.respond(
        "sts", "get_caller_identity", {"Account": ACCOUNT, "Arn": "arn:aws:iam::123456789012:role/v", "UserId": "x"}
    )
    parameter(stubs, "acme", "endpoint/url", endpoint_url)
    parameter(stubs, "acme", "endpoint/function-url", None)
    _listed(stubs)
    _data(stubs, ["q0"])
    _alarms(stubs, [TOPIC] if alarms else [])
    if alarms:
        _topic(stubs, [alarm_publish_statement(TOPIC, CONDITIONS)])
        _key(stubs, [alarm_key_statement(CONDITIONS)])


def _run(stubs, endpoint, *, as_json: bool, **script) -> tuple[int, list[str]]:
    _script(stubs, endpoint.url, **script)
    v = verification(stubs, project=project_with(acme={"ingestion_logs": False}))
    lines: list[str] = []
    status = verify(v, lines.append, as_json=as_json)
    stubs.assert_all_used()
    return status, lines


def test_a_working_deploy_exits_0_with_one_line_per_check(stubs, endpoint, emulator):
    emulator.reset()
    status, lines = _run(stubs, endpoint, as_json=False)
    assert status == 0, lines
    assert lines[0].startswith("akb verify: environment dev")
    assert [line.split()[:2] for line in lines[1:-1]][:3] == [
        ["OK", "credentials"],
        ["OK", "acme/door:endpoint"],
        ["OK", "acme/kb-policy"],
    ]
    assert lines[-1] == "0 FAIL, 2 WARN, 6 OK"  # WARN: no Bedrock datapoint listed


def test_json_output_is_one_document_and_a_fail_exits_1(stubs, endpoint, emulator):
    emulator.reset()
    status, lines = _run(stubs, endpoint, as_json=True, alarms=False)
    [document] = [json.loads(line) for line in lines]
    assert status == 1 and document["exit"] == 1
    assert document["summary"]["FAIL"] == 1
    failed = [f for f in document["findings"] if f["level"] == "FAIL"]
    assert [f["check"] for f in failed] == ["alarm-actions"]


def test_rejected_credentials_exit_2(stubs):
    stubs.error("sts", "get_caller_identity", "ExpiredToken")
    lines: list[str] = []
    assert verify(verification(stubs), lines.append, as_json=True) == 2
    assert json.loads(lines[0])["exit"] == 2


def test_an_unknown_tenant_is_a_usage_error():
    result = CliRunner().invoke(main, ["verify", "--env", "dev", "--tenant", "nobody"])
    assert result.exit_code == 2 and "akb verify: tenant 'nobody' is not deployed" in result.output
