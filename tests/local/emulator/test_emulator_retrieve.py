"""The Retrieve API through boto3's client.retrieve."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from local.emulator import kb_id_for


def retrieve(client, query: str, folder: str = "docs", **extra):
    return client.retrieve(knowledgeBaseId=kb_id_for(folder), retrievalQuery={"text": query}, **extra)


def test_retrieve_returns_scored_chunks_with_location_and_metadata(bedrock):
    results = retrieve(bedrock, "BulkExport row limit")["retrievalResults"]
    assert 0 < len(results) <= 5
    top = results[0]
    assert top["location"] == {
        "type": "S3",
        "s3Location": {"uri": "s3://akb-local-docs/skyledger/bulk-export.md"},
    }
    assert top["metadata"]["x-amz-bedrock-kb-document-id"] == "skyledger/bulk-export.md"
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


def test_number_of_results_and_filter_are_honoured(bedrock):
    config = {
        "managedSearchConfiguration": {
            "numberOfResults": 2,
            "filter": {"equals": {"key": "product", "value": "signalbox"}},
        }
    }
    results = retrieve(bedrock, "retry", retrievalConfiguration=config)["retrievalResults"]
    assert 0 < len(results) <= 2 and {r["metadata"]["product"] for r in results} == {"signalbox"}


def test_vector_search_configuration_is_rejected_on_a_managed_knowledge_base(bedrock):
    with pytest.raises(ClientError) as caught:
        retrieve(bedrock, "retry", retrievalConfiguration={"vectorSearchConfiguration": {"numberOfResults": 2}})
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert "managedSearchConfiguration" in caught.value.response["Error"]["Message"]


def test_knowledge_base_arn_is_accepted(bedrock):
    arn = f"arn:aws:bedrock:us-west-2:123456789012:knowledge-base/{kb_id_for('tickets')}"
    results = bedrock.retrieve(knowledgeBaseId=arn, retrievalQuery={"text": "TCK-1183"})["retrievalResults"]
    assert results[0]["documentId"] == "TCK-1183.md"


@pytest.mark.parametrize(("user", "visible"), [(None, False), ("carol", True)])
def test_acl_applies_to_retrieve(bedrock, user, visible):
    extra = {"userContext": {"userId": user}} if user else {}
    results = retrieve(bedrock, "Initech refund dispute", "tickets", **extra)["retrievalResults"]
    assert ("TCK-1334.md" in {r["documentId"] for r in results}) is visible


def test_unknown_knowledge_base_is_not_found(bedrock):
    with pytest.raises(ClientError) as caught:
        bedrock.retrieve(knowledgeBaseId="ZZZZZZZZZZ", retrievalQuery={"text": "x"})
    assert caught.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_guardrail_intervention_returns_nothing(bedrock, emulator):
    emulator.register_guardrail("abc", "DRAFT", {"wordPolicyConfig": {"wordsConfig": [{"text": "forbidden"}]}})
    guardrail = {"guardrailId": "abc", "guardrailVersion": "DRAFT"}
    response = retrieve(bedrock, "a forbidden question about exports", guardrailConfiguration=guardrail)
    assert (response["guardrailAction"], response["retrievalResults"]) == ("INTERVENED", [])
    assert retrieve(bedrock, "exports", guardrailConfiguration=guardrail)["guardrailAction"] == "NONE"


def test_throttling_applies_to_retrieve_too(bedrock, emulator):
    emulator.set_faults(throttle_before=1)
    with pytest.raises(ClientError) as caught:
        retrieve(bedrock, "exports")
    assert caught.value.response["Error"]["Code"] == "ThrottlingException"


def test_more_results_than_a_page_holds_come_with_next_token_and_the_paginator_sees_all(bedrock):
    from local.emulator.corpus import load_corpus
    from local.emulator.index import KnowledgeBaseIndex
    from local.emulator.retrieve_api import RETRIEVE_PAGE_SIZE

    config = {"managedSearchConfiguration": {"numberOfResults": 25}}
    first = retrieve(bedrock, "export limit retry webhook plan", retrievalConfiguration=config)
    assert len(first["retrievalResults"]) == RETRIEVE_PAGE_SIZE and first["nextToken"]
    paginator = bedrock.get_paginator("retrieve")
    pages = list(
        paginator.paginate(
            knowledgeBaseId=kb_id_for("docs"),
            retrievalQuery={"text": "export limit retry webhook plan"},
            retrievalConfiguration=config,
        )
    )
    chunks = [r["metadata"]["x-amz-bedrock-kb-chunk-id"] for page in pages for r in page["retrievalResults"]]
    docs = next(kb for kb in load_corpus().values() if kb.folder == "docs")
    matching = len(KnowledgeBaseIndex(docs).search("export limit retry webhook plan", 25))
    assert matching > 2 * RETRIEVE_PAGE_SIZE  # the query needs three pages
    assert len(pages) == 3 and len(chunks) == len(set(chunks)) == matching and "nextToken" not in pages[-1]
    scores = [r["score"] for page in pages for r in page["retrievalResults"]]
    assert scores == sorted(scores, reverse=True)  # one ranking, cut into pages
    with pytest.raises(ClientError) as caught:  # a token is good once
        retrieve(bedrock, "export limit retry webhook plan", nextToken=first["nextToken"])
        retrieve(bedrock, "export limit retry webhook plan", nextToken=first["nextToken"])
    assert caught.value.response["Error"]["Code"] == "ValidationException"
