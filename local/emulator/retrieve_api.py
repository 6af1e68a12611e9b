"""The single-shot Retrieve API over the same indexes, for callers that skip the planner."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from local.emulator.index import KnowledgeBaseIndex
from local.emulator.validation import knowledge_base_id_from

DEFAULT_NUMBER_OF_RESULTS = 5  # the Retrieve API reference's documented default (UNVERIFIED here)


def run_retrieve(body: Mapping[str, Any], kb_identifier: str, indexes: Mapping[str, KnowledgeBaseIndex]) -> dict:
    """A RetrieveResponse for an already validated request."""
    index = indexes[knowledge_base_id_from(kb_identifier)]
    query = body["retrievalQuery"]["text"]
    config = body.get("retrievalConfiguration") or {}
    search = config.get("managedSearchConfiguration") or {}
    guardrail = body.get("guardrailConfiguration")
    response: dict[str, Any] = {"retrievalResults": []}
    if guardrail:
        blocked = bool(re.search(r"\bforbidden\b", query, re.IGNORECASE))
        response["guardrailAction"] = "INTERVENED" if blocked else "NONE"
        if blocked:
            return response
    hits = index.search(
        query,
        search.get("numberOfResults", DEFAULT_NUMBER_OF_RESULTS),
        (body.get("userContext") or {}).get("userId"),
        search.get("filter"),
    )
    response["retrievalResults"] = [
        {
            "content": {"type": "TEXT", "text": hit.chunk.text},
            "location": {"type": "S3", "s3Location": {"uri": hit.metadata["x-amz-bedrock-kb-source-uri"]}},
            "metadata": hit.metadata,
            "score": hit.score,
            "documentId": hit.document.document_id,
        }
        for hit in hits
    ]
    return response
