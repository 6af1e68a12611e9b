"""The playground server without a browser: the real app under uvicorn (inprocess.py) in front of the
session's REAL endpoint and emulator, or a stub endpoint where an edge must be scripted (signing,
broken streams)."""

from __future__ import annotations

import datetime

import httpx
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from client.endpoint_client import Client
from client.playground.endpoint_target import Target
from client.render import incomplete_warning, partial_line
from contract.events import DoneEvent
from local.emulator import DEFAULT_CORPUS
from tests.children import wait_until
from tests.client.playground.inprocess import frames, headers, serving
from tests.client.stub_endpoint import Reply, sample_events, sse, stub_endpoint

CREDENTIALS = Credentials("AKIDEXAMPLEPLAYGROUND", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYPLAYGROUND", "session-token-pg")
FIXED = datetime.datetime(2025, 3, 14, 15, 9, 26)


@pytest.fixture
def local_playground(endpoint, emulator):
    """The playground over the session's endpoint, with whole documents from the emulator's corpus."""
    emulator.reset()
    target = Target(endpoint.url, None, False, "--url", corpus_root=DEFAULT_CORPUS)
    with Client(endpoint.url) as client, serving(target, client) as playground:
        yield playground
    emulator.reset()


def test_the_endpoints_events_reach_the_page_as_the_endpoint_sent_them(local_playground, endpoint):
    relayed = frames(local_playground, {"question": "How do I rotate an API key without downtime?"})
    with httpx.stream(
        "POST", f"{endpoint.url}/v1/query", json={"question": "How do I rotate an API key without downtime?"}
    ) as direct:
        from tests.endpoint_server import iter_frames

        expected = [frame.type for frame in iter_frames(direct)]
    assert [kind for kind, _ in relayed] == expected
    assert expected[0] == "trace" and expected[-2:] == ["result", "done"]
    done = DoneEvent(**relayed[-1][1])
    assert done.stopReason == "complete" and done.requestId


def test_a_budget_limited_answer_carries_akb_asks_warning(local_playground):
    relayed = frames(
        local_playground,
        {"question": "How do I rotate an API key, and what are the rate limits?", "maxAgentIteration": 1},
    )
    kinds = [kind for kind, _ in relayed]
    assert kinds[-2:] == ["done", "notes"]
    done = DoneEvent(**relayed[-2][1])
    assert done.stopReason == "iteration_limit"
    assert relayed[-1][1] == {"notes": [incomplete_warning(done), partial_line(done)]}


def test_a_refusal_before_streaming_is_one_failure_frame_with_the_endpoints_code(local_playground):
    relayed = frames(local_playground, {"question": "Too many iterations?", "maxAgentIteration": 99})
    assert len(relayed) == 1 and relayed[0][0] == "failure"
    failure = relayed[0][1]
    assert (failure["stage"], failure["status"], failure["code"]) == ("refused", 400, "limit_exceeded")
    assert "3" in failure["message"]  # the endpoint names the tenant's cap


def test_the_page_going_away_stops_the_endpoints_upstream_call(local_playground, emulator):
    emulator.set_faults(delay_ms=100)
    with httpx.stream(
        "POST",
        f"{local_playground.origin}/api/query",
        json={"question": "How do I rotate an API key?"},
        headers=headers(local_playground),
        timeout=30,
    ) as response:
        next(response.iter_lines())  # the first frame has arrived; now the tab closes
    closed = wait_until(lambda: [s for s in emulator.streams() if s["finished"]], "the emulator's stream to finish")
    assert closed[-1]["closed_by_client"] is True and closed[-1]["events_sent"] < 10


def test_whole_documents_only_for_what_an_answer_returned(local_playground):
    def document(kb: str, document_id: str) -> httpx.Response:
        return httpx.get(
            f"{local_playground.origin}/api/document",
            params={"kb": kb, "id": document_id},
            headers=headers(local_playground),
            timeout=10,
        )

    before = document("docs", "api/authentication.md")
    assert (before.status_code, before.json()["error"]["code"]) == (404, "document_not_returned")
    relayed = frames(local_playground, {"question": "How do I rotate an API key?"})
    result = next(data for kind, data in relayed if kind == "result")
    returned = {(item["knowledgeBase"], item.get("documentId")) for item in result["results"]}
    assert ("docs", "api/authentication.md") in returned
    after = document("docs", "api/authentication.md")
    assert after.status_code == 200
    assert after.json()["text"] == (DEFAULT_CORPUS / "docs" / "api" / "authentication.md").read_text()
    assert document("docs", "../tickets/TCK-1183.md").status_code == 404  # never returned: never read


@pytest.mark.parametrize(
    "body, content_type, status, code",
    [
        (b'{"question": 3}', "application/json", 400, "invalid_playground_request"),
        (b'{"question": "q", "caller": "me"}', "application/json", 400, "invalid_playground_request"),
        (b'{"question": "q", "maxAgentIteration": "2"}', "application/json", 400, "invalid_playground_request"),
        (b"question=q", "application/json", 400, "invalid_json"),
        (b'{"question": "q"}', "text/plain", 415, "unsupported_media_type"),
        (b"[" * 100_000, "application/json", 400, "invalid_json"),
    ],
)
def test_the_query_route_checks_json_types_before_asking(local_playground, body, content_type, status, code):
    response = httpx.post(
        f"{local_playground.origin}/api/query",
        content=body,
        headers={**headers(local_playground), "content-type": content_type},
        timeout=10,
    )
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    assert "Traceback" not in response.text


def test_a_broken_stream_and_an_unreachable_endpoint_are_failure_frames():
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(*sample_events()[:3])])  # no done: the connection just ends
        with Client(stub.url) as client, serving(Target(stub.url, None, False, "--url"), client) as playground:
            relayed = frames(playground, {"question": "q"})
    assert [kind for kind, _ in relayed] == ["trace", "trace", "trace", "failure"]
    assert relayed[-1][1]["code"] == "stream_interrupted" and relayed[-1][1]["retryable"] is True
    gone = stub.url  # stopped: nothing listens there any more
    with Client(gone) as client, serving(Target(gone, None, False, "--url"), client) as playground:
        relayed = frames(playground, {"question": "q"})
    assert relayed == [("failure", relayed[0][1])] and relayed[0][1]["stage"] == "unreachable"


@pytest.fixture
def fixed_clock(monkeypatch):
    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda *a, **k: FIXED)


def test_the_server_signs_and_the_page_never_sees_the_credentials(fixed_clock):
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(*sample_events())])
        signed = Client(stub.url, credentials=CREDENTIALS, region="eu-west-1", sign=True)
        target = Target(stub.url, "eu-west-1", True, "--url")
        with signed, serving(target, signed) as playground:
            seen = httpx.get(playground.page, timeout=10).text
            seen += httpx.get(f"{playground.origin}/api/tenant", headers=headers(playground), timeout=10).text
            relayed = frames(playground, {"question": "What is the rate limit?", "knowledgeBases": ["docs"]})
            seen += repr(relayed)
    request = stub.requests[0]
    reference = AWSRequest(
        method="POST",
        url=stub.url + request.path,
        data=request.body,
        headers={name: request.headers[name] for name in ("Content-Type", "Accept", "X-Amz-Content-SHA256")},
    )
    SigV4Auth(CREDENTIALS, "lambda", "eu-west-1").add_auth(reference)
    assert request.headers["Authorization"] == reference.headers["Authorization"]  # botocore's signature
    assert request.headers["X-Amz-Security-Token"] == CREDENTIALS.token
    assert [kind for kind, _ in relayed][-1] == "done"
    for secret in (CREDENTIALS.access_key, CREDENTIALS.secret_key, CREDENTIALS.token, "Authorization"):
        assert secret not in seen


def test_the_tenant_description_comes_from_the_config_and_holds_no_secret():
    from client.playground.endpoint_target import tenant_view
    from schema import load_project

    project = load_project("config", "dev")
    view = tenant_view(project, "acme")
    page = Target("https://abc.lambda-url.us-west-2.on.aws/", "us-west-2", True, "deployed", view).page_json()
    assert page["knowledgeBases"] == [
        {"alias": kb.alias, "description": kb.description} for kb in project.tenants["acme"].knowledge_bases
    ]
    assert (page["maxAgentIteration"], page["conversations"], page["wholeDocuments"]) == (3, True, False)
    assert set(page) == {
        "url", "signed", "region", "source", "tenant", "environment", "description", "knowledgeBases",
        "maxAgentIteration", "maxResults", "generateResponse", "defaultMode", "modes", "conversations", "cache",
        "plannerType", "wholeDocuments",
    }  # fmt: skip


def test_the_page_references_only_files_it_ships():
    import re
    from pathlib import Path

    static = Path(__file__).resolve().parents[3] / "client" / "playground" / "static"
    shipped = {path.name for path in static.iterdir()}
    page = (static / "index.html").read_text()
    assert not re.search(r"""(src|href)=["']https?:""", page)  # nothing from the internet
    referenced = set(re.findall(r"/static/([\w.-]+)", page))
    for module in static.glob("*.js"):
        referenced |= set(re.findall(r"""from ["']\./([\w.-]+)["']""", module.read_text()))
        assert "http://" not in module.read_text() and "https://" not in module.read_text()
    assert referenced and referenced <= shipped
