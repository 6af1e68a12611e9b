"""Issue 21 end to end: the endpoint over real HTTP in front of the emulator (real boto3 stream):
paginated results, an image result, a CodeExecution step, and nextToken validation."""

from __future__ import annotations

import base64
import json

import httpx

from tests.endpoint_server import iter_frames
from tests.lambdas.endpoint.conftest import sent_bodies

PAGED = {"question": "Summarize BulkExport and list all its limits", "maxResults": 1}


def ask(endpoint, body):
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, timeout=30) as response:
        if response.status_code != 200:
            return response.status_code, json.loads(response.read())
        return 200, list(iter_frames(response))


def of_type(frames, kind):
    return [frame.data for frame in frames if frame.type == kind]


def test_done_carries_the_next_token_and_sending_it_back_fetches_the_next_page(endpoint, emulator):
    status, first = ask(endpoint, PAGED)
    assert status == 200
    token = of_type(first, "done")[0]["nextToken"]
    first_ids = {r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in of_type(first, "result")[0]["results"]}
    status, second = ask(endpoint, {**PAGED, "nextToken": token})
    assert status == 200 and of_type(second, "done")[0]["stopReason"] == "complete"
    assert sent_bodies(emulator)[-1]["nextToken"] == token.rsplit(".", 1)[0]  # Bedrock gets its own token back
    second_ids = {r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in of_type(second, "result")[0]["results"]}
    assert second_ids and not second_ids & first_ids  # a new page, not the first one again


def test_a_used_or_made_up_next_token_is_a_clear_400(endpoint):
    status, body = ask(endpoint, {**PAGED, "nextToken": "made-up"})
    assert (status, body["error"]["code"]) == (400, "invalid_next_token")
    assert "nextToken" in body["error"]["message"]


def test_next_token_is_checked_at_the_edge(endpoint):
    status, body = ask(endpoint, {**PAGED, "nextToken": "has space"})
    assert status == 400 and "nextToken" in body["error"]["message"]
    status, body = ask(endpoint, {**PAGED, "nextToken": "t", "mode": "retrieve"})
    assert status == 400 and "only fetched with mode 'agentic'" in body["error"]["message"]


def test_an_image_result_reaches_the_client_with_its_type_and_bytes(endpoint):
    status, frames = ask(endpoint, {"question": "topology diagram ingest relay", "knowledgeBases": ["docs"]})
    assert status == 200
    images = [r for r in of_type(frames, "result")[0]["results"] if r.get("contentType") == "IMAGE"]
    assert images, "the sample corpus's diagram should be found"
    (image,) = images
    assert image["mimeType"] == "image/png" and image["documentId"] == "diagrams/sync-topology.png"
    assert base64.b64decode(image["byteContent"]).startswith(b"\x89PNG") and image["byteSize"] < 16 * 1024


def test_an_arithmetic_question_shows_a_code_execution_step(endpoint):
    status, frames = ask(endpoint, {"question": "What is the total monthly price of the Starter and Pro plans?"})
    assert status == 200
    steps = [t for t in of_type(frames, "trace") if t["step"] == "CodeExecution" and t["status"] == "SUCCEEDED"]
    assert steps and steps[0]["codeExecutions"][0]["documents"]
    assert all("/" in document for document in steps[0]["codeExecutions"][0]["documents"])  # alias/document
