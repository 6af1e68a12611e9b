"""The tenant's `routing:` block reaches the endpoint's settings, deployed and local alike."""

from __future__ import annotations

import shutil

from client.local_settings import tenant_settings as local_tenant_settings
from contract.resource_refs import KnowledgeBaseRef
from contract.settings import RoutingSettings, TenantSettings
from features.endpoint_settings import tenant_settings
from schema import load_project
from tests.conftest import EXAMPLE_CONFIG

ROUTING_BLOCK = """
routing:
  default_mode: auto
  rrf_k: 20
  max_words_for_retrieve: 8
  comparison_to_agentic: false
"""


def _project(tmp_path):
    config = tmp_path / "config"
    shutil.copytree(EXAMPLE_CONFIG, config)
    with (config / "tenants" / "acme.yaml").open("a") as tenant_file:
        tenant_file.write(ROUTING_BLOCK)
    return load_project(config, "dev")


def _refs(project):
    return [
        KnowledgeBaseRef(
            alias=kb.alias,
            description=kb.description,
            knowledge_base_id=f"KB{n:08d}",
            knowledge_base_arn=f"arn:aws:bedrock:us-west-2:123456789012:knowledge-base/KB{n:08d}",
        )
        for n, kb in enumerate(project.tenants["acme"].knowledge_bases)
    ]


def test_the_stack_renders_the_routing_block_into_the_settings(tmp_path):
    project = _project(tmp_path)
    settings = tenant_settings(project, "acme", knowledge_bases=_refs(project))
    expected = RoutingSettings(default_mode="auto", rrf_k=20, max_words_for_retrieve=8, comparison_to_agentic=False)
    assert settings.routing == expected
    assert TenantSettings.from_json(settings.to_json()).routing == expected  # survives AKB_TENANT_SETTINGS


def test_akb_local_renders_the_same_routing(tmp_path):
    project = _project(tmp_path)
    settings = local_tenant_settings(project, "acme", lambda alias: f"ID{alias.upper():>8}"[:10])
    assert settings.routing.default_mode == "auto" and settings.routing.rrf_k == 20


def test_without_a_routing_block_the_default_mode_stays_agentic():
    project = load_project(EXAMPLE_CONFIG, "dev")
    settings = tenant_settings(project, "acme", knowledge_bases=_refs(project))
    assert settings.routing == RoutingSettings() and settings.routing.default_mode == "agentic"
