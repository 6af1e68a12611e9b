"""The emulator's ingestion jobs and ingested ACLs, through unmodified boto3 clients and the control API."""

from __future__ import annotations

import httpx
import pytest
from botocore.exceptions import ClientError

from local.emulator import kb_id_for
from local.emulator.ids import data_source_id_for

DOCS, DOCS_SOURCE = kb_id_for("docs"), data_source_id_for("docs")
COMPLETE = [{"attribute": "STATUS", "operator": "EQ", "values": ["COMPLETE"]}]
NEWEST_FIRST = {"attribute": "STARTED_AT", "order": "DESCENDING"}


@pytest.fixture
def agent(emulator):
    return emulator.client("bedrock-agent")


def test_each_knowledge_base_has_one_data_source_ingested_once_at_start(agent, emulator):
    (source,) = agent.list_data_sources(knowledgeBaseId=DOCS)["dataSourceSummaries"]
    assert (source["dataSourceId"], source["name"], source["status"]) == (DOCS_SOURCE, "docs", "AVAILABLE")
    jobs = agent.list_ingestion_jobs(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE)["ingestionJobSummaries"]
    listed = httpx.get(f"{emulator.url}/_emulator/knowledgebases").json()
    documents = {kb["folder"]: kb["document_count"] for kb in listed}
    assert jobs and jobs[-1]["status"] == "COMPLETE"
    assert jobs[-1]["statistics"]["numberOfDocumentsScanned"] == documents["docs"]


def test_a_started_job_runs_until_the_control_call_completes_it(agent, emulator):
    # The emulator is shared by the session: finish any job another test left running first.
    httpx.post(f"{emulator.url}/_emulator/ingestion/complete", json={"knowledgeBaseId": DOCS})
    job = agent.start_ingestion_job(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, description="test")["ingestionJob"]
    job_id = job["ingestionJobId"]
    assert job["status"] == "IN_PROGRESS"
    listed = agent.list_ingestion_jobs(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, filters=COMPLETE)
    assert job_id not in [j["ingestionJobId"] for j in listed["ingestionJobSummaries"]]
    response = httpx.post(f"{emulator.url}/_emulator/ingestion/complete", json={"knowledgeBaseId": DOCS})
    assert [j["ingestionJobId"] for j in response.json()["completed"]] == [job_id]
    finished = agent.get_ingestion_job(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, ingestionJobId=job_id)
    assert finished["ingestionJob"]["status"] == "COMPLETE"
    newest = agent.list_ingestion_jobs(
        knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, filters=COMPLETE, sortBy=NEWEST_FIRST, maxResults=1
    )["ingestionJobSummaries"]
    assert [j["ingestionJobId"] for j in newest] == [job_id]


def test_unknown_knowledge_bases_data_sources_and_jobs_are_not_found(agent):
    for call in (
        lambda: agent.list_data_sources(knowledgeBaseId="NOSUCHKB00"),
        lambda: agent.list_ingestion_jobs(knowledgeBaseId=DOCS, dataSourceId="NOSUCHDS00"),
        lambda: agent.get_ingestion_job(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, ingestionJobId="NOSUCHJOB0"),
    ):
        with pytest.raises(ClientError) as raised:
            call()
        assert raised.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_ingested_acls_answer_check_and_follow_a_revocation_in_retrieval_too(emulator):
    runtime = emulator.client()

    def access(user, document="internal/roadmap-2025.md"):
        return runtime.check_ingested_document_acl(
            knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, documentId=document, userContext={"userId": user}
        )["hasAccess"]

    assert (access("alice"), access("carol"), access("carol", "overview.md")) == (True, False, True)
    assert access("alice", "s3://akb-local-docs/internal/roadmap-2025.md") is True  # the source URI names it too
    assert access("alice", "no/such/document.md") is False
    found = runtime.retrieve(
        knowledgeBaseId=DOCS, retrievalQuery={"text": "2025 roadmap"}, userContext={"userId": "alice"}
    )["retrievalResults"]
    assert "internal/roadmap-2025.md" in [r["metadata"]["x-amz-bedrock-kb-document-id"] for r in found]
    response = httpx.post(
        f"{emulator.url}/_emulator/acl",
        json={"knowledgeBaseId": DOCS, "documentId": "internal/roadmap-2025.md", "users": ["bob"]},
    )
    assert response.status_code == 200 and access("alice") is False and access("bob") is True
    found = runtime.retrieve(
        knowledgeBaseId=DOCS, retrievalQuery={"text": "2025 roadmap"}, userContext={"userId": "alice"}
    )["retrievalResults"]
    assert "internal/roadmap-2025.md" not in [r["metadata"]["x-amz-bedrock-kb-document-id"] for r in found]
    emulator.reset()
    assert access("alice") is True  # reset restores the corpus's ACL side files


def test_bad_acl_control_bodies_are_rejected(emulator):
    url = f"{emulator.url}/_emulator/acl"
    assert (
        httpx.post(url, json={"knowledgeBaseId": DOCS, "documentId": "overview.md", "users": "bob"}).status_code == 400
    )
    assert httpx.post(url, json={"knowledgeBaseId": DOCS, "documentId": "nope.md", "users": []}).status_code == 404


def test_ingestion_jobs_come_in_pages_and_boto3s_paginator_sees_every_one(agent, emulator):
    for _ in range(3):  # more jobs than one page of 2 holds, whatever other tests left
        agent.start_ingestion_job(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE)
        httpx.post(f"{emulator.url}/_emulator/ingestion/complete", json={"knowledgeBaseId": DOCS})
    everything = agent.list_ingestion_jobs(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, sortBy=NEWEST_FIRST)
    assert "nextToken" not in everything  # all on one page by default
    expected = [j["ingestionJobId"] for j in everything["ingestionJobSummaries"]]
    first = agent.list_ingestion_jobs(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, sortBy=NEWEST_FIRST, maxResults=2)
    assert len(first["ingestionJobSummaries"]) == 2 and first["nextToken"]
    # What the AWS CLI's --page-size does: the paginator's limit key (maxResults) per request.
    paginator = agent.get_paginator("list_ingestion_jobs")
    pages = list(
        paginator.paginate(
            knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, sortBy=NEWEST_FIRST, PaginationConfig={"PageSize": 2}
        )
    )
    assert [j["ingestionJobId"] for page in pages for j in page["ingestionJobSummaries"]] == expected
    assert len(pages) == -(-len(expected) // 2) and all(len(p["ingestionJobSummaries"]) <= 2 for p in pages)
    assert "nextToken" not in pages[-1]


def test_a_page_token_of_another_data_source_is_refused(agent, emulator):
    for _ in range(2):  # two jobs, so a page of one has a next page whatever other tests left
        agent.start_ingestion_job(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE)
        httpx.post(f"{emulator.url}/_emulator/ingestion/complete", json={"knowledgeBaseId": DOCS})
    token = agent.list_ingestion_jobs(knowledgeBaseId=DOCS, dataSourceId=DOCS_SOURCE, maxResults=1)["nextToken"]
    tickets = kb_id_for("tickets")
    with pytest.raises(ClientError) as caught:
        agent.list_ingestion_jobs(knowledgeBaseId=tickets, dataSourceId=data_source_id_for("tickets"), nextToken=token)
    assert caught.value.response["Error"]["Code"] == "ValidationException"
