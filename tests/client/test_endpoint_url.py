"""URL resolution from the stack's SSM parameter, with botocore's Stubber standing in for SSM
(no AWS account here: the Stubber checks the request shape against SSM's real service model)."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

from client.endpoint_url import UrlResolutionError, local_url, resolve_url

CONFIG = Path(__file__).resolve().parents[2] / "config"
URL = "https://abcdefghij0123456789abcdefghij01.lambda-url.us-west-2.on.aws/"


@pytest.fixture
def ssm():
    client = boto3.client("ssm", region_name="us-west-2", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def test_url_comes_from_the_tenants_parameter_in_the_environments_region(ssm):
    client, stubber = ssm
    stubber.add_response(
        "get_parameter",
        {"Parameter": {"Name": "/akb/dev/acme/endpoint/url", "Type": "String", "Value": URL}},
        {"Name": "/akb/dev/acme/endpoint/url"},
    )
    assert resolve_url(CONFIG, "dev", "acme", ssm_client=client) == (URL, "us-west-2")


def test_missing_parameter_says_the_stack_may_not_be_deployed(ssm):
    client, stubber = ssm
    stubber.add_client_error("get_parameter", "ParameterNotFound", http_status_code=400)
    with pytest.raises(UrlResolutionError, match="is the stack dev-globex deployed"):
        resolve_url(CONFIG, "dev", "globex", ssm_client=client)


def test_unknown_tenant_is_reported_without_calling_ssm(ssm):
    client, _ = ssm
    with pytest.raises(UrlResolutionError, match="tenant 'initech' is not deployed in environment 'dev'"):
        resolve_url(CONFIG, "dev", "initech", ssm_client=client)


def test_local_url_defaults_to_port_8080_and_follows_the_environment(monkeypatch):
    monkeypatch.delenv("AKB_LOCAL_URL", raising=False)
    assert local_url() == "http://127.0.0.1:8080"
    monkeypatch.setenv("AKB_LOCAL_URL", "http://127.0.0.1:9999")
    assert local_url() == "http://127.0.0.1:9999"
