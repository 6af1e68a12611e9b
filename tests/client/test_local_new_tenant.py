"""`akb local --tenant T --corpus DIR` for a tenant just added: its own documents, an alias without a
folder served empty, its own guardrail, and hints that name the ports actually listened on."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from schema import load_project
from tests.children import REPO
from tests.endpoint_server import iter_frames

TENANT = """\
description: Newco help desk
knowledge_bases:
  - alias: faq
    description: Frequently asked questions about Newco blenders, orders and returns.
    sources: [{type: s3, prefix: faq/}]
  - alias: manuals
    description: Newco product manuals.
    sources: [{type: s3, prefix: manuals/}]
guardrail:
  blocked_message: Newco cannot discuss that.
  denied_topics:
    - name: lawsuits
      definition: Questions about legal disputes and lawsuits involving Newco.
      examples: ['Is Newco being sued?']
user_context: none
"""
RETURNS = """\
# Returns

You can return a Newco blender within 30 days of delivery for a full refund. Keep the receipt.

Refunds reach your card within 5 business days after the blender arrives at our warehouse.
"""


@pytest.fixture
def newco(tmp_path: Path) -> Path:
    """A config directory whose dev environment deploys a tenant the repository has never seen."""
    (tmp_path / "environments").mkdir()
    (tmp_path / "tenants").mkdir()
    dev = (REPO / "config" / "environments" / "dev.yaml").read_text(encoding="utf-8")
    dev = "\n".join("tenants: [newco]" if line.startswith("tenants:") else line for line in dev.splitlines())
    (tmp_path / "environments" / "dev.yaml").write_text(dev + "\n", encoding="utf-8")
    (tmp_path / "tenants" / "newco.yaml").write_text(TENANT, encoding="utf-8")
    (tmp_path / "corpus" / "faq").mkdir(parents=True)
    (tmp_path / "corpus" / "faq" / "returns.md").write_text(RETURNS, encoding="utf-8")
    assert list(load_project(tmp_path, "dev").tenants) == ["newco"]
    return tmp_path


def ask(url: str, question: str) -> list:
    with httpx.stream("POST", f"{url}/v1/query", json={"question": question}, timeout=30) as response:
        assert response.status_code == 200, response.read()
        return list(iter_frames(response))


def test_a_tenant_just_added_runs_locally_with_its_corpus_and_its_guardrail(newco, start_akb_local):
    local = start_akb_local(config=newco, tenant="newco", args=("--corpus", str(newco / "corpus")))
    printed = local.banner
    assert f"knowledge base 'manuals' has no folder {newco / 'corpus' / 'manuals'}: served empty" in printed
    # The emulator the banner names is the one listening (its port was chosen by the system: 0 asked).
    assert httpx.get(f"{local.emulator_url}/_emulator/health", timeout=5).json() == {"status": "ok"}
    assert f"curl -N -X POST {local.url}/v1/query" in printed
    assert f"AKB_LOCAL_URL={local.url} akb ask --local" in printed  # not the default 8080
    assert "knowledge bases: faq, manuals" in printed and "Guardrail         local" in printed

    answered = ask(local.url, "How long do I have to return a blender?")
    done, result = answered[-1].data, next(f.data for f in answered if f.type == "result")
    assert done["stopReason"] == "complete"
    assert result["answer"].startswith("You can return a Newco blender within 30 days of delivery")
    assert {r["knowledgeBase"] for r in result["results"]} == {"faq"}

    blocked = ask(local.url, "Is Newco being sued by a customer?")
    result = next(f.data for f in blocked if f.type == "result")
    warnings = [g for f in blocked if f.type == "trace" for g in f.data.get("guardrail", [])]
    assert result["answer"] == "Newco cannot discuss that." and not result.get("results")
    assert [g["action"] for g in warnings] == ["INTERVENED"]
