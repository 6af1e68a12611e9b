"""Client signing for both front doors (issue 19): `lambda` for function URLs, `execute-api` for the API's
execute-api URL and for custom domains (given a region); each checked against botocore's own signer."""

from __future__ import annotations

import datetime
import hashlib

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from click.testing import CliRunner

from client import sigv4
from client.cli import main as cli
from client.endpoint_client import Client
from tests.client.stub_endpoint import Reply, sample_events, sse, stub_endpoint

FIXED = datetime.datetime(2026, 12, 1, 9, 30, 0)
CREDENTIALS = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "token-19")
API_URL = "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/api/"
PRIVATE_URL = "https://a1b2c3d4e5-vpce-0123456789abcdef0.execute-api.eu-west-1.vpce.amazonaws.com/api/"
FUNCTION_URL = "https://abcdefghij0123456789abcdefghij01.lambda-url.eu-central-1.on.aws/"


@pytest.fixture
def fixed_clock(monkeypatch):
    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda *a, **k: FIXED)


@pytest.mark.parametrize(
    ("url", "service", "region"),
    [
        (FUNCTION_URL, "lambda", "eu-central-1"),
        (API_URL, "execute-api", "eu-west-1"),
        (PRIVATE_URL, "execute-api", "eu-west-1"),
        ("https://search.example.com/", "execute-api", None),
    ],
)
def test_the_service_and_region_come_from_the_url(url, service, region):
    assert (sigv4.service_for(url), sigv4.region_from_url(url)) == (service, region)


def test_a_custom_domain_signs_for_execute_api_in_the_region_given():
    client = Client("https://search.example.com/", credentials=CREDENTIALS, region="eu-west-1")
    assert (client.signed, client.service, client.region) == (True, "execute-api", "eu-west-1")


@pytest.mark.parametrize("url", [API_URL, FUNCTION_URL])
def test_sign_equals_botocores_signer_for_each_front_door(fixed_clock, url):
    body = b'{"question":"q"}'
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    signed = sigv4.sign("POST", url + "v1/query", headers, body, CREDENTIALS, sigv4.region_from_url(url) or "")
    reference = AWSRequest(
        method="POST",
        url=url + "v1/query",
        data=body,
        headers={**headers, "X-Amz-Content-SHA256": hashlib.sha256(body).hexdigest()},
    )
    SigV4Auth(CREDENTIALS, sigv4.service_for(url), sigv4.region_from_url(url)).add_auth(reference)
    assert signed["Authorization"] == reference.headers["Authorization"]
    assert f"/{sigv4.service_for(url)}/aws4_request" in signed["Authorization"]


def test_the_request_sent_to_an_api_is_signed_for_execute_api_over_its_stage_path(fixed_clock):
    """The bytes that arrive (real socket, stub server) re-signed by botocore for execute-api match."""
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(*sample_events())])
        base = stub.url + "/api"
        with Client(base, credentials=CREDENTIALS, region="eu-west-1", sign=True, service="execute-api") as client:
            client.ask("What is the rate limit?")
        request = stub.requests[0]
    assert request.path == "/api/v1/query"
    signed = ("Content-Type", "Accept", "X-Amz-Content-SHA256")
    reference = AWSRequest(
        method="POST", url=stub.url + request.path, data=request.body, headers={n: request.headers[n] for n in signed}
    )
    SigV4Auth(CREDENTIALS, "execute-api", "eu-west-1").add_auth(reference)
    assert request.headers["Authorization"] == reference.headers["Authorization"]
    assert "Credential=AKIDEXAMPLE/20261201/eu-west-1/execute-api/aws4_request" in request.headers["Authorization"]


def test_akb_ask_with_a_custom_domain_and_no_region_says_to_pass_region(no_aws_credentials):
    no_aws_credentials.delenv("AWS_REGION", raising=False)
    no_aws_credentials.delenv("AWS_DEFAULT_REGION", raising=False)
    result = CliRunner().invoke(cli, ["ask", "q", "--url", "https://search.example.com/"])
    assert result.exit_code == 1 and "pass --region" in result.output and "Traceback" not in result.output
