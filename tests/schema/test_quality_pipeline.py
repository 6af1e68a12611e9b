"""What the pipeline's quality gate needs of a stage: the environment's gate role where tenants have `quality:`;
the gated tenants with the session names the gate asks as."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project
from schema.pipeline import load_pipeline
from schema.quality_pipeline import GatedTenant, gated_tenants
from tests.conftest import REPO

EXAMPLE_PIPELINE = REPO / "config" / "examples" / "pipeline.yaml"


def test_a_stage_with_gated_tenants_needs_the_environments_gate_role(config_copy):
    path = config_copy.edit("environments", "prod", lambda env: env.pop("quality_gate_role_arn"))
    with pytest.raises(ConfigError) as caught:
        load_pipeline(EXAMPLE_PIPELINE, config_copy.root)
    (problem,) = [str(p) for p in caught.value.problems]
    assert problem.startswith(f"{EXAMPLE_PIPELINE}: stages[1].environment: environment 'prod' gates acme (quality:)")
    assert f"{path} names no quality_gate_role_arn" in problem


def test_a_stage_without_gated_tenants_needs_no_gate_role(config_copy):
    config_copy.edit("environments", "prod", lambda env: env.pop("quality_gate_role_arn"))
    config_copy.edit("tenants", "acme", lambda tenant: tenant.pop("quality"))
    assert [p.env_name for p in load_pipeline(EXAMPLE_PIPELINE, config_copy.root).projects] == ["dev", "prod"]


def test_the_gate_role_lives_in_the_environments_account(config_copy):
    path = config_copy.edit(
        "environments", "prod", lambda env: env.update(quality_gate_role_arn="arn:aws:iam::123456789012:role/gate")
    )
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "prod")
    assert any(
        str(p).startswith(f"{path}: ") and "not this environment's 210987654321" in str(p)
        for p in caught.value.problems
    )


def test_the_gated_tenants_ask_as_their_canary_sessions():
    assert gated_tenants(load_project("config", "dev")) == [
        GatedTenant("acme", "akb-quality-gate", False),  # caller, no canary: the gate's own session name
        GatedTenant("globex", "akb-quality-gate", False),  # trusted: the user id travels in the request
    ]
