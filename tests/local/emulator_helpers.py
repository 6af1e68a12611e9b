"""Request builders and stream readers shared by the emulator's tests."""

from __future__ import annotations

from typing import Any

from local.emulator import kb_id_for

DESCRIPTIONS = {
    "docs": "Public product documentation and API reference.",
    "tickets": "Closed customer support tickets and runbooks.",
    "handbook": "Engineering handbook, architecture decision records and on-call guides.",
    "wiki": "Team wiki pages about services, owners and incidents.",
}
MULTI_HOP = "Which team owns the feature behind the error in ticket TCK-1183, and which version fixed it?"


def retriever(folder: str, description: str | None = None, **overrides: Any) -> dict[str, Any]:
    kb: dict[str, Any] = {"knowledgeBaseId": kb_id_for(folder)}
    if overrides:
        kb["retrievalOverrides"] = overrides
    out: dict[str, Any] = {"configuration": {"knowledgeBase": kb}}
    description = DESCRIPTIONS.get(folder) if description is None else description
    if description:
        out["description"] = description
    return out


def request(
    question: str, folders: tuple[str, ...] = ("docs", "tickets"), max_iterations: int = 3, **extra: Any
) -> dict[str, Any]:
    """Keyword arguments for agentic_retrieve_stream with the tenant-style descriptions."""
    return {
        "messages": [{"role": "user", "content": {"text": question}}],
        "retrievers": [retriever(f) for f in folders],
        "agenticRetrieveConfiguration": {
            "foundationModelType": "MANAGED",
            "maxAgentIteration": max_iterations,
        },
        **extra,
    }


def run(client: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """All events of one stream, parsed by botocore."""
    return list(client.agentic_retrieve_stream(**kwargs)["stream"])


def traces(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["traceEvent"]["attributes"] for e in events if "traceEvent" in e]


def finished(events: list[dict[str, Any]], step: str) -> list[dict[str, Any]]:
    """The SUCCEEDED/FAILED trace of each `step`."""
    return [t for t in traces(events) if t["step"] == step and t["status"] != "IN_PROGRESS"]


def result(events: list[dict[str, Any]]) -> dict[str, Any]:
    (last,) = [e["result"] for e in events if "result" in e]
    return last
