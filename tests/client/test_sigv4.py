"""SigV4: the headers the client SENDS equal what botocore's own signer computes for that request.

The request is captured at a stub HTTP server (real socket), then signed again, independently,
with botocore's `SigV4Auth` from what arrived: the method, URL, the body bytes received and the
headers' values. Both sides run under one fixed clock and fixed credentials.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from client import sigv4
from client.endpoint_client import Client
from tests.client.stub_endpoint import Reply, sample_events, sse, stub_endpoint

FIXED = datetime.datetime(2025, 3, 14, 15, 9, 26)
CREDENTIALS = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token-123")


@pytest.fixture
def fixed_clock(monkeypatch):
    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda *a, **k: FIXED)


@pytest.fixture
def captured(fixed_clock):
    """The request the client sent, signed for eu-west-1 with CREDENTIALS at FIXED."""
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(*sample_events())])
        with Client(stub.url, credentials=CREDENTIALS, region="eu-west-1", sign=True) as client:
            client.ask("What is the rate limit?", knowledge_bases=["docs"])
        yield stub.url, stub.requests[0]


def _botocore_headers(url: str, request, signed: tuple[str, ...]) -> dict[str, str]:
    headers = {name: request.headers[name] for name in signed}
    reference = AWSRequest(method="POST", url=url + request.path, data=request.body, headers=headers)
    SigV4Auth(CREDENTIALS, "lambda", "eu-west-1").add_auth(reference)
    return dict(reference.headers.items())


def test_sent_signature_equals_botocores_for_the_received_request(captured):
    url, request = captured
    # The received body's own hash: proves the signed payload is the body that travelled.
    assert request.headers["X-Amz-Content-SHA256"] == hashlib.sha256(request.body).hexdigest()
    expected = _botocore_headers(url, request, ("Content-Type", "Accept", "X-Amz-Content-SHA256"))
    assert request.headers["Authorization"] == expected["Authorization"]
    assert request.headers["X-Amz-Date"] == expected["X-Amz-Date"] == "20250314T150926Z"
    assert request.headers["X-Amz-Security-Token"] == "session-token-123"
    authorization = request.headers["Authorization"]
    assert "Credential=AKIDEXAMPLE/20250314/eu-west-1/lambda/aws4_request" in authorization
    assert (
        "SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token" in authorization
    )


def test_signature_covers_the_body(captured):
    url, request = captured
    tampered = type(request)(
        request.method, request.path, dict(request.headers), request.body.replace(b"rate", b"RATE")
    )
    tampered.headers["X-Amz-Content-SHA256"] = hashlib.sha256(tampered.body).hexdigest()
    expected = _botocore_headers(url, tampered, ("Content-Type", "Accept", "X-Amz-Content-SHA256"))
    assert expected["Authorization"] != request.headers["Authorization"]
    assert json.loads(request.body)["question"] == "What is the rate limit?"


def test_region_comes_from_a_function_url():
    url = "https://abcdefghij0123456789abcdefghij01.lambda-url.eu-central-1.on.aws/"
    assert sigv4.region_from_url(url) == "eu-central-1"
    assert sigv4.region_from_url("https://api.example.com/") is None
    client = Client(url, credentials=CREDENTIALS)
    assert (client.signed, client.region) == (True, "eu-central-1")


def test_other_hosts_need_an_explicit_region():
    with pytest.raises(ValueError, match="pass region="):
        Client("https://api.example.com/", credentials=CREDENTIALS)
    assert Client("https://api.example.com/", region="us-east-2").region == "us-east-2"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://localhost:9000/", "http://[::1]:8080"])
def test_local_urls_are_not_signed(url):
    assert Client(url).signed is False


def test_default_credentials_come_from_the_standard_chain(no_aws_credentials, fixed_clock):
    no_aws_credentials.setenv("AWS_ACCESS_KEY_ID", "AKIAFROMENVIRONMENT")
    no_aws_credentials.setenv("AWS_SECRET_ACCESS_KEY", "secret-from-environment")
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(*sample_events())])
        with Client(stub.url, region="us-west-2", sign=True) as client:
            client.ask("q")
    request = stub.requests[0]
    assert "Credential=AKIAFROMENVIRONMENT/20250314/us-west-2/lambda/aws4_request" in request.headers["Authorization"]
    assert "X-Amz-Security-Token" not in request.headers  # long-term keys carry no token


def test_missing_credentials_raise_a_signing_error_naming_the_fix(no_aws_credentials):
    with (
        Client("https://x.lambda-url.us-west-2.on.aws/") as client,
        pytest.raises(sigv4.SigningError) as caught,
    ):
        list(client.query("q"))
    assert "akb ask --local" in str(caught.value)


def _readme_curl_block() -> str:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    matching = [block for block in blocks if "--aws-sigv4" in block]
    assert len(matching) == 1, "README.md should hold exactly one curl --aws-sigv4 example"
    return matching[0]


def test_readme_curl_example_signs_like_botocore(monkeypatch):
    """The README's curl command, run as written against a local capture server: curl's own SigV4
    must equal botocore's for the request that arrived (curl is a system tool; required here)."""
    assert shutil.which("curl"), "curl is needed to check the README's curl example"
    block = _readme_curl_block()
    credentials = Credentials("AKIDEXAMPLE", "curl-secret", "curl-token")
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(*sample_events())])
        env = {
            **os.environ,
            "AWS_REGION": "us-west-2",
            "AWS_ACCESS_KEY_ID": credentials.access_key,
            "AWS_SECRET_ACCESS_KEY": credentials.secret_key,
            "AWS_SESSION_TOKEN": credentials.token,
            "URL": stub.url,
        }
        run = subprocess.run(["bash", "-c", block], env=env, capture_output=True, text=True, timeout=30)
        assert run.returncode == 0, run.stderr
        assert "event: done" in run.stdout
        request = stub.requests[0]
    headers = {name.lower(): value for name, value in request.headers.items()}
    sent_at = datetime.datetime.strptime(headers["x-amz-date"], "%Y%m%dT%H%M%SZ")
    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda *a, **k: sent_at)
    assert headers["x-amz-content-sha256"] == hashlib.sha256(request.body).hexdigest()
    reference = AWSRequest(
        method="POST",
        url=stub.url + request.path,
        data=request.body,
        headers={
            "content-type": headers["content-type"],
            "x-amz-content-sha256": headers["x-amz-content-sha256"],
        },
    )
    SigV4Auth(credentials, "lambda", "us-west-2").add_auth(reference)
    assert headers["authorization"] == reference.headers["Authorization"]
    assert json.loads(request.body) == {"question": "How do I rotate an API key?"}
