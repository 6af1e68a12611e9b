"""The single-shot Retrieve API over the same indexes, for callers that skip the planner.

Pages: a response holds at most RETRIEVE_PAGE_SIZE results; when `numberOfResults` asks for more,
the response carries `nextToken` and a request with it gets the next page (botocore's Retrieve
paginator follows it: input and output token `nextToken`, result key `retrievalResults`). The page
size is the emulator's choice (the service's is UNVERIFIED in the ledger). A token is good once,
for the user and knowledge base it was issued to.

Guardrail (`guardrailConfiguration`): a blocked query returns no results; a result whose text the
guardrail blocks on output is withheld; either makes `guardrailAction` INTERVENED (guardrails.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from local.emulator.guardrails import GuardrailPolicy
from local.emulator.index import Hit, KnowledgeBaseIndex
from local.emulator.pages import Pages
from local.emulator.service_errors import ServiceError
from local.emulator.validation import knowledge_base_id_from

DEFAULT_NUMBER_OF_RESULTS = 5  # the Retrieve API reference's documented default (UNVERIFIED here)
RETRIEVE_PAGE_SIZE = 10  # results per response; more are paged with nextToken (the emulator's choice)


def _wire(hit: Hit) -> dict[str, Any]:
    return {
        "content": {"type": "TEXT", "text": hit.chunk.text},
        "location": {"type": "S3", "s3Location": {"uri": hit.metadata["x-amz-bedrock-kb-source-uri"]}},
        "metadata": hit.metadata,
        "score": hit.score,
        "documentId": hit.document.document_id,
    }


def _paged(hits: Sequence[Hit], kb_id: str, user_id: str | None, pages: Pages) -> dict[str, Any]:
    """The first page of `hits`, with a token for the rest."""
    response: dict[str, Any] = {"retrievalResults": [_wire(h) for h in hits[:RETRIEVE_PAGE_SIZE]]}
    token = pages.issue(user_id, hits[RETRIEVE_PAGE_SIZE:], {kb_id: RETRIEVE_PAGE_SIZE})
    if token:
        response["nextToken"] = token
    return response


def _owed(token: str, kb_id: str, user_id: str | None, pages: Pages) -> list[Hit]:
    page = pages.take(token, user_id)
    if dict(page.caps).keys() != {kb_id}:
        raise ServiceError("ValidationException", "The provided nextToken is not valid or has expired")
    return list(page.items)


def run_retrieve(
    body: Mapping[str, Any],
    kb_identifier: str,
    indexes: Mapping[str, KnowledgeBaseIndex],
    pages: Pages | None = None,
    guardrail: GuardrailPolicy | None = None,
) -> dict:
    """A RetrieveResponse for an already validated request."""
    pages = pages or Pages()
    kb_id = knowledge_base_id_from(kb_identifier)
    user_id = (body.get("userContext") or {}).get("userId")
    query = body["retrievalQuery"]["text"]
    if body.get("nextToken"):
        hits = _owed(body["nextToken"], kb_id, user_id, pages)
    elif guardrail is not None and guardrail.check(query, "INPUT").intervened:
        return {"retrievalResults": [], "guardrailAction": "INTERVENED"}
    else:
        search = (body.get("retrievalConfiguration") or {}).get("managedSearchConfiguration") or {}
        limit = search.get("numberOfResults", DEFAULT_NUMBER_OF_RESULTS)
        hits = indexes[kb_id].search(query, limit, user_id, search.get("filter"))
    if guardrail is None and not body.get("guardrailConfiguration"):
        return _paged(hits, kb_id, user_id, pages)
    allowed = [h for h in hits if guardrail is None or not guardrail.check(h.chunk.text, "OUTPUT").intervened]
    response = _paged(allowed, kb_id, user_id, pages)
    response["guardrailAction"] = "INTERVENED" if len(allowed) < len(hits) else "NONE"
    return response
