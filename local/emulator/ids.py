"""Stable identifiers: the same folder gets the same knowledge base id on every machine and run.

Tenant configs name knowledge bases by alias (= corpus folder name); the endpoint needs real-looking
Bedrock ids. Deriving the id from the folder name alone (not the path) lets any process compute it
without asking the emulator.
"""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ID_LENGTH = 10


def _stable_id(seed: str) -> str:
    number = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:16], "big")
    chars = []
    for _ in range(ID_LENGTH):
        number, digit = divmod(number, len(_ALPHABET))
        chars.append(_ALPHABET[digit])
    return "".join(chars)


def kb_id_for(folder_name: str) -> str:
    """The 10-character Bedrock-style id (`[0-9A-Z]{10}`) the emulator serves folder `folder_name` under."""
    return _stable_id(f"akb-local/knowledge-base/{folder_name}")


def data_source_id_for(folder_name: str) -> str:
    """Real results carry a data source id too; one data source per emulated knowledge base."""
    return _stable_id(f"akb-local/data-source/{folder_name}")


def chunk_id_for(folder_name: str, document_id: str, index: int) -> str:
    """Plain, readable chunk ids: `<kb folder>/<document path>#<n>` (n from 0, in document order)."""
    return f"{folder_name}/{document_id}#{index}"


def source_uri_for(folder_name: str, document_id: str) -> str:
    """Where the document would live if it had been ingested from S3."""
    return f"s3://akb-local-{folder_name}/{document_id}"
