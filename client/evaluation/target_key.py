"""What an evaluation's records were measured against, as one string: resumed records must match it.

`akb eval` resumes from `<out>/records.jsonl`; a record is reused only when its question's labels
(the item's fingerprint), its target and the tenant's retrieval settings are the ones of this run.
The key names the target (local emulator, a deployed tenant, a URL) and carries a hash of every
setting that changes what retrieval returns: the environment's planner and reranking, the tenant's
`retrieval` and `routing` blocks, its knowledge bases and their descriptions (routing reads
them), and its guardrail. Locally without a tenant, the sample corpus's folders and descriptors.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

HASH_CHARS = 12


def _digest(data: Any) -> str:
    raw = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()[:HASH_CHARS]


def retrieval_settings_hash(project: Any, tenant: str) -> str:
    """A hash of what shapes retrieval for `tenant` in `project` (a loaded schema.Project)."""
    config = project.tenants[tenant]
    environment = project.environment
    return _digest(
        {
            "planner": environment.planner.model_dump(mode="json"),
            "reranking": environment.reranking.model_dump(mode="json"),
            "retrieval": config.retrieval.model_dump(mode="json"),
            "routing": config.routing.model_dump(mode="json"),
            "knowledgeBases": [(kb.alias, kb.description) for kb in config.knowledge_bases],
            "guardrail": config.guardrail.model_dump(mode="json") if config.guardrail else None,
        }
    )


def corpus_hash(root: Path) -> str:
    """A hash of a corpus's knowledge bases: folder names and their descriptors."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    descriptors = {
        p.name: (p / "knowledge_base.json").read_text(encoding="utf-8")
        for p in folders
        if (p / "knowledge_base.json").exists()
    }
    return _digest({"folders": [p.name for p in folders], "descriptors": descriptors})


def target_key(kind: str, name: str, settings_hash: str | None = None) -> str:
    """`local:acme@1a2b3c4d5e6f`, `deployed:prod/acme@...`, `url:https://...` (no settings known)."""
    return f"{kind}:{name}" + (f"@{settings_hash}" if settings_hash else "")
