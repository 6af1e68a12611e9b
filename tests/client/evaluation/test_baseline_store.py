"""Where the gate keeps its baseline, and the figures it puts: real boto3 clients against moto's SSM and CloudWatch
(a stand-in for AWS: no account here), and the local file store."""

from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from client.evaluation.baseline_store import (
    STANDARD_TIER_BYTES,
    BaselineError,
    FileBaselineStore,
    SsmBaselineStore,
    encode,
)
from client.evaluation.gate import BY_NAME as FIGURES
from client.evaluation.gate import GateResult, check_figure
from client.evaluation.gate_metrics import metric_data, put_figures
from contract import metric_names as names
from schema.quality_config import Quality

REGION = "us-east-1"
RECORD = {"version": 1, "goldenSet": "abc", "modes": {"agentic": {"Recall5": 0.9}}}


@pytest.fixture
def aws(monkeypatch):
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    with mock_aws():
        yield


def test_the_ssm_store_reads_nothing_before_a_promotion_then_what_was_promoted(aws):
    ssm = boto3.client("ssm", region_name=REGION)
    store = SsmBaselineStore(ssm, "prod", "acme")
    assert store.name == "/akb/prod/acme/quality/baseline"
    assert store.load() is None
    store.save(RECORD)
    store.save({**RECORD, "goldenSet": "def"})  # a later promotion overwrites
    assert store.load() == {**RECORD, "goldenSet": "def"}
    parameter = ssm.get_parameter(Name=store.name)["Parameter"]
    assert parameter["Type"] == "String" and parameter["Version"] == 2
    history = ssm.get_parameter_history(Name=store.name)["Parameters"]
    assert [entry["Tier"] for entry in history] == ["Standard", "Standard"]  # earlier baselines stay as history


def test_a_baseline_over_the_standard_tier_is_refused_not_moved_to_the_advanced_tier(aws):
    store = SsmBaselineStore(boto3.client("ssm", region_name=REGION), "prod", "acme")
    big = {**RECORD, "padding": "x" * STANDARD_TIER_BYTES}
    with pytest.raises(BaselineError, match="over the standard tier's 4096"):
        store.save(big)
    assert store.load() is None


def test_a_stored_value_that_is_not_a_baseline_is_named_not_crashed_on(aws):
    ssm = boto3.client("ssm", region_name=REGION)
    ssm.put_parameter(Name="/akb/prod/acme/quality/baseline", Value="{oops", Type="String")
    with pytest.raises(BaselineError, match="SSM parameter /akb/prod/acme/quality/baseline is not JSON"):
        SsmBaselineStore(ssm, "prod", "acme").load()


def test_the_file_store_round_trips_and_creates_its_folder(tmp_path):
    store = FileBaselineStore(tmp_path / "baselines" / "local-dev-acme.json")
    assert store.load() is None
    store.save(RECORD)
    assert store.load() == RECORD
    assert json.loads((tmp_path / "baselines" / "local-dev-acme.json").read_text()) == RECORD
    assert len(encode(RECORD).encode()) < 200


def gate_result() -> GateResult:
    quality = Quality.model_validate({"golden_set": "q/a.jsonl", "thresholds": {"min_recall_at_5": 0.95}})
    checks = (
        check_figure("agentic", FIGURES[names.QUALITY_RECALL_AT_5], 0.9, None, quality),
        check_figure("agentic", FIGURES[names.QUALITY_COST_PER_QUESTION], None, None, quality),
        check_figure("auto", FIGURES[names.QUALITY_MRR], 0.8, None, quality),
    )
    return GateResult(checks, {"agentic": 0, "auto": 0}, "abc")


def test_the_figures_go_to_the_gates_namespace_per_environment_tenant_and_mode(aws):
    cloudwatch = boto3.client("cloudwatch", region_name=REGION)
    assert put_figures(cloudwatch, gate_result(), "prod", "acme") is None
    listed = cloudwatch.list_metrics(Namespace=names.QUALITY_NAMESPACE)["Metrics"]
    series = {(metric["MetricName"], tuple((d["Name"], d["Value"]) for d in metric["Dimensions"])) for metric in listed}
    agentic = (("Environment", "prod"), ("Tenant", "acme"), ("Mode", "agentic"))
    auto = (("Environment", "prod"), ("Tenant", "acme"), ("Mode", "auto"))
    # the unmeasured cost is not put; GateFailed once per mode (agentic failed its threshold)
    assert series == {("Recall5", agentic), ("MRR", auto), ("GateFailed", agentic), ("GateFailed", auto)}
    failed = {
        tuple(d["Value"] for d in m["Dimensions"])[-1]: m["Value"]
        for m in metric_data(gate_result(), "p", "a")
        if m["MetricName"] == names.QUALITY_GATE_FAILED
    }
    assert failed == {"agentic": 1.0, "auto": 0.0}


def test_a_refused_put_is_reported_by_its_code_only(aws, monkeypatch):
    cloudwatch = boto3.client("cloudwatch", region_name=REGION)
    from botocore.stub import Stubber

    with Stubber(cloudwatch) as stub:
        stub.add_client_error("put_metric_data", "AccessDenied", "User: arn:aws:sts::123456789012:x is not authorized")
        problem = put_figures(cloudwatch, gate_result(), "prod", "acme")
    assert problem == "PutMetricData failed: AccessDenied"
