"""`akb cost`: the GetMetricData request it sends and the dollars it derives, through botocore's Stubber
on real boto3 clients (a stand-in: no AWS account here; request and response shapes are validated
against the cloudwatch and ssm service models)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from botocore.stub import Stubber
from click.testing import CliRunner

from client import cost_report
from client.cli import main
from schema import load_project
from tests.client.aws_stubs import shared_session
from tests.conftest import EXAMPLE_CONFIG

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DAY = 86400


@pytest.fixture
def stubbed():
    session = shared_session()
    clients = {name: session.client(name) for name in ("cloudwatch", "ssm")}
    stubbers = {name: Stubber(client) for name, client in clients.items()}
    for stubber in stubbers.values():
        stubber.activate()
    yield clients, stubbers
    for stubber in stubbers.values():
        stubber.assert_no_pending_responses()
        stubber.deactivate()


def _ssm_answer(stubbers, names_to_values: dict[str, str], wanted: list[str]) -> None:
    stubbers["ssm"].add_response(
        "get_parameters",
        {"Parameters": [{"Name": n, "Value": v, "Type": "String"} for n, v in names_to_values.items()]},
        {"Names": wanted},
    )


def test_cost_of_a_cached_tenant_splits_agentic_retrieve_storage_lambda_and_savings(stubbed):
    clients, stubbers = stubbed
    project = load_project(EXAMPLE_CONFIG, "dev")
    docs_param, tickets_param = "/akb/dev/acme/kb/docs/id", "/akb/dev/acme/kb/tickets/id"
    _ssm_answer(stubbers, {docs_param: "KBDOCS0001"}, [docs_param, tickets_param])  # tickets not deployed yet
    window = 30 * DAY
    expected_queries = cost_report.tenant_queries(project, 0, "acme", ["KBDOCS0001"], window)
    values = {
        "t0_requests": 1000.0,
        "t0_iterations": 2000.0,
        "t0_cost": 6.0,  # 1000 agentic calls x $4/1000 + 2000 iterations x $1/1000
        "t0_duration": 3_600_000.0,  # ms
        "t0_invocations": 1000.0,
        "t0_hits": 250.0,
        "t0_size0": 2.0,  # GB
    }
    stubbers["cloudwatch"].add_response(
        "get_metric_data",
        {"MetricDataResults": [{"Id": k, "Values": [v], "StatusCode": "Complete"} for k, v in values.items()]},
        {
            "MetricDataQueries": expected_queries,
            "StartTime": NOW - timedelta(seconds=window),
            "EndTime": NOW,
        },
    )
    [row] = cost_report.report(
        project, ["acme"], cloudwatch=clients["cloudwatch"], ssm=clients["ssm"], window_seconds=window, now=NOW
    )
    assert row.requests == 1000 and row.iterations == 2000
    assert row.retrieve_usd == pytest.approx(2.0)
    assert row.agentic_usd == pytest.approx(4.0)
    assert row.storage_usd == pytest.approx(2.0 * 5.0)  # 2 GB x $5 per GB-month x 1 month
    # 3600 s x 1 GB (1024 MB) x $0.0000133334 + 1000 / 1e6 x $0.20
    assert row.lambda_usd == pytest.approx(3600 * 0.0000133334 + 0.0002)
    assert row.cache_savings_usd == pytest.approx(250 * 6.0 / 750)
    assert row.total_usd == pytest.approx(4.0 + 2.0 + 10.0 + row.lambda_usd)


def test_tenant_without_cache_reports_no_savings_and_zero_when_idle(stubbed):
    clients, stubbers = stubbed
    project = load_project(EXAMPLE_CONFIG, "dev")
    wanted = ["/akb/dev/globex/kb/handbook/id", "/akb/dev/globex/kb/wiki/id"]
    _ssm_answer(stubbers, {}, wanted)
    stubbers["cloudwatch"].add_response("get_metric_data", {"MetricDataResults": []})
    [row] = cost_report.report(
        project, ["globex"], cloudwatch=clients["cloudwatch"], ssm=clients["ssm"], window_seconds=DAY, now=NOW
    )
    assert row.cache_savings_usd is None
    assert row.total_usd == 0 and row.requests == 0


def test_results_spread_over_pages_are_added_up(stubbed):
    clients, stubbers = stubbed
    queries = [cost_report._stat("t0_requests", "AgenticRetrieval", "Requests", {"Tenant": "acme"}, "Sum", 3600)]
    page = {"MetricDataResults": [{"Id": "t0_requests", "Values": [3.0]}], "NextToken": "next"}
    stubbers["cloudwatch"].add_response("get_metric_data", page)
    stubbers["cloudwatch"].add_response(
        "get_metric_data",
        {"MetricDataResults": [{"Id": "t0_requests", "Values": [4.0]}]},
        {"MetricDataQueries": queries, "StartTime": NOW, "EndTime": NOW, "NextToken": "next"},
    )
    assert cost_report.fetch_values(clients["cloudwatch"], queries, NOW, NOW) == {"t0_requests": 7.0}


def test_csv_has_one_row_per_tenant_with_total():
    row = cost_report.TenantCost("acme", 10, 20, 0.04, 0.02, 1.5, 0.1, None)
    text = cost_report.as_csv([row])
    header, line = text.splitlines()
    assert header.split(",")[-2:] == ["total_usd", "cache_savings_usd"]
    assert line.startswith("acme,10,20,0.04,0.02,1.5,0.1,1.66,")


@pytest.mark.parametrize("since", ["30", "0d", "500d", "1m", "d30", ""])
def test_bad_since_is_rejected_with_the_allowed_form(since):
    with pytest.raises(cost_report.CostError, match="--since"):
        cost_report.parse_since(since)


def test_since_units():
    assert cost_report.parse_since("12h") == 12 * 3600
    assert cost_report.parse_since("2w") == 14 * DAY


def test_cli_unknown_tenant_is_a_setup_failure_without_calling_aws():
    result = CliRunner().invoke(main, ["cost", "--env", "dev", "--config", str(EXAMPLE_CONFIG), "--tenant", "nobody"])
    assert result.exit_code == 1
    assert "tenant 'nobody' is not deployed in environment dev" in result.output
    assert "Traceback" not in result.output


def test_cli_bad_since_is_a_usage_error():
    result = CliRunner().invoke(main, ["cost", "--config", str(EXAMPLE_CONFIG), "--since", "forever"])
    assert result.exit_code == 2 and "--since 'forever'" in result.output
