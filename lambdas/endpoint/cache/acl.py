"""The access re-check before a hit is served: may this caller still see every document it shows?

A cached answer was computed for this caller's scope, but permissions change without a content
version changing (or before the endpoint's next version read). So, for knowledge bases whose
documents carry ACLs, a hit is served only after bedrock-agent-runtime CheckIngestedDocumentAcl
(knowledgeBaseId, dataSourceId, documentId, userContext.userId) -> hasAccess (botocore model;
ledger) said yes for every document the entry shows. One `false`, one error, or a document the
entry cannot name (no data source id or document id in its metadata) sends the request to the
source instead: a wrong denial costs one upstream call, a wrong allow leaks a document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from lambdas.endpoint.cache.entry import DocumentRef

MAX_PARALLEL_CHECKS = 8


@dataclass(frozen=True)
class AclVerdict:
    allowed: bool
    checked: int
    denied: int
    errors: int


def _check(client: Any, knowledge_base_id: str, ref: DocumentRef, user_id: str) -> bool:
    if not ref.data_source_id or not ref.document_id:
        raise ValueError("the entry does not name the document's data source and id")
    response = client.check_ingested_document_acl(
        knowledgeBaseId=knowledge_base_id,
        dataSourceId=ref.data_source_id,
        documentId=ref.document_id,
        userContext={"userId": user_id},
    )
    return response.get("hasAccess") is True


def recheck(
    client: Any,
    documents: Sequence[DocumentRef],
    user_id: str,
    knowledge_base_ids: Mapping[str, str],  # alias -> id, only the knowledge bases that carry ACLs
) -> AclVerdict:
    """Checks every document of an ACL'd knowledge base in parallel; allowed only if all say yes."""
    refs = [ref for ref in documents if ref.knowledge_base in knowledge_base_ids]
    if not refs:
        return AclVerdict(True, 0, 0, 0)
    denied = errors = 0
    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_CHECKS, len(refs)), thread_name_prefix="akb-acl") as pool:
        futures = [pool.submit(_check, client, knowledge_base_ids[ref.knowledge_base], ref, user_id) for ref in refs]
        for future in futures:
            try:
                denied += 0 if future.result() else 1
            except Exception:  # throttled, denied, not found, unnamed: never a reason to serve
                errors += 1
    return AclVerdict(denied == 0 and errors == 0, len(refs), denied, errors)
