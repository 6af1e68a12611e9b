"""Issue 21 in the emulator, through the unmodified boto3 client: pages, an image, code execution,
retrieval metadata."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from local.emulator import kb_id_for
from local.emulator.corpus import CorpusError, load_knowledge_base
from tests.local.emulator_helpers import finished, request, result, retriever, run, traces

PAGED = "Summarize BulkExport and list all its limits"


def paged_request(**extra):
    body = request(PAGED, **extra)
    body["retrievers"] = [retriever("docs", maxNumberOfResults=1), retriever("tickets", maxNumberOfResults=1)]
    return body


def test_results_beyond_max_results_come_as_later_pages_each_within_the_caps(bedrock):
    first = result(run(bedrock, **paged_request()))
    seen = [r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in first["results"]]
    token = first["nextToken"]
    pages = 1
    while token:
        events = run(bedrock, **paged_request(nextToken=token))
        page = result(events)
        assert not traces(events)  # a page is a result, not a new plan
        per_kb = [r["sourceRetriever"]["identifier"] for r in page["results"]]
        assert all(per_kb.count(kb) <= 1 for kb in per_kb)
        seen += [r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in page["results"]]
        token, pages = page.get("nextToken"), pages + 1
    assert pages > 1 and len(seen) == len(set(seen))


def test_a_token_is_good_once_and_only_for_the_user_it_was_issued_to(bedrock):
    token = result(run(bedrock, **paged_request(userContext={"userId": "alice"})))["nextToken"]
    with pytest.raises(ClientError) as error:
        run(bedrock, **paged_request(userContext={"userId": "bob"}, nextToken=token))
    assert "nextToken" in str(error.value)
    run(bedrock, **paged_request(userContext={"userId": "alice"}, nextToken=token))
    with pytest.raises(ClientError):
        run(bedrock, **paged_request(userContext={"userId": "alice"}, nextToken=token))


def test_the_sample_image_is_found_by_its_text_alternative_and_returned_as_bytes(bedrock):
    events = run(bedrock, **request("topology diagram ingest relay", folders=("docs",)))
    images = [r for r in result(events)["results"] if r["content"]["mimeType"] == "image/png"]
    (image,) = images
    assert image["content"]["byteContent"].startswith(b"\x89PNG")  # botocore decodes the blob
    assert "text" not in image["content"]
    assert image["metadata"]["x-amz-bedrock-kb-document-id"] == "diagrams/sync-topology.png"


def test_an_image_without_a_text_alternative_is_a_corpus_error_naming_the_file(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "chart.png").write_bytes(b"\x89PNG")
    with pytest.raises(CorpusError, match=r"chart\.png.*chart\.png\.alt\.txt"):
        load_knowledge_base(tmp_path / "kb")


def test_arithmetic_questions_get_a_code_execution_step_over_retrieved_documents(bedrock):
    events = run(bedrock, **request("What is the total monthly price of the Starter and Pro plans?"))
    (step,) = finished(events, "CodeExecution")
    documents = step["actions"][0]["codeExecution"]["documents"]
    assert documents and all(
        d["sourceRetriever"]["identifier"] in {kb_id_for("docs"), kb_id_for("tickets")} for d in documents
    )
    assert not finished(run(bedrock, **request("How long are exports kept?")), "CodeExecution")


def test_retrieval_steps_name_the_sources_they_read(bedrock):
    events = run(bedrock, **request("How long are exports kept?", folders=("docs",)))
    for step in finished(events, "Retrieval") + finished(events, "SpeculativeRetrieval"):
        assert step["retrievalMetadata"] == [{"identifier": kb_id_for("docs"), "retrievalType": "BedrockKnowledgeBase"}]
