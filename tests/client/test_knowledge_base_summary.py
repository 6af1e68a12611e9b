"""client/knowledge_base_summary.py: one shape for the knowledge bases `akb mcp` and `akb playground` describe."""

from __future__ import annotations

import yaml

from client.knowledge_base_summary import KnowledgeBaseSummary, summaries
from client.mcp_tools import ToolCatalogue
from client.playground.endpoint_target import tenant_view
from schema import load_project
from tests.conftest import EXAMPLE_CONFIG


def test_each_knowledge_base_of_the_tenant_file_in_its_order_with_its_sentence():
    project = load_project(EXAMPLE_CONFIG, "dev")
    written = yaml.safe_load((EXAMPLE_CONFIG / "tenants" / "acme.yaml").read_text())["knowledge_bases"]
    expected = tuple(KnowledgeBaseSummary(kb["alias"], kb["description"]) for kb in written)
    assert len(expected) >= 2
    assert summaries(project.tenants["acme"]) == expected
    assert ToolCatalogue.from_tenant("acme", project.tenants["acme"]).knowledge_bases == expected
    assert tenant_view(project, "acme").knowledge_bases == expected
