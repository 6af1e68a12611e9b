"""Shares of the account's agentic quota: defaults, equal parts of what is left, and every problem named
with its file and field (schema/quota_config.py, schema/quota_shares.py)."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project
from schema.quota_shares import tenant_shares


def _problems(config_copy) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    return [str(problem) for problem in caught.value.problems]


def test_the_example_shares_add_up_to_the_account_and_default_the_burst_to_it():
    project = load_project("config", "dev")
    shares = tenant_shares(project.environment, project.tenants)
    assert (shares["acme"].guaranteed, shares["acme"].burst, shares["acme"].explicit) == (120, 300, True)
    assert (shares["globex"].guaranteed, shares["globex"].burst, shares["globex"].explicit) == (180, 300, False)


def test_tenants_without_a_share_split_what_the_others_leave_equally(config_copy):
    config_copy.edit("tenants", "acme", lambda t: t["quota"].update(guaranteed_requests_per_minute=60))
    config_copy.edit("environments", "dev", lambda e: e["quota"].update(agentic_requests_per_minute=600))
    project = load_project(config_copy.root, "dev")
    assert tenant_shares(project.environment, project.tenants)["globex"].guaranteed == 540


def test_guarantees_above_the_account_name_each_tenants_number_file_and_field(config_copy):
    env = config_copy.edit("environments", "dev", lambda e: e["quota"].update(agentic_requests_per_minute=250))
    config_copy.edit("tenants", "acme", lambda t: t["quota"].update(burst_requests_per_minute=250))
    globex = config_copy.edit("tenants", "globex", lambda t: t.update(quota={"guaranteed_requests_per_minute": 140}))
    acme = config_copy.path("tenants", "acme")
    [problem] = [p for p in _problems(config_copy) if "sum to" in p]
    assert problem.startswith(f"{env}: quota.agentic_requests_per_minute: ")
    assert "sum to 260 requests per minute, above the account's 250" in problem
    assert f"acme 120 ({acme}: quota.guaranteed_requests_per_minute)" in problem
    assert f"globex 140 ({globex}: quota.guaranteed_requests_per_minute)" in problem


def test_a_burst_below_the_guarantee_or_above_the_account_is_refused_in_the_tenants_file(config_copy):
    acme = config_copy.edit("tenants", "acme", lambda t: t["quota"].update(burst_requests_per_minute=100))
    assert any(
        p.startswith(f"{acme}: quota:") and "below guaranteed_requests_per_minute (120)" in p
        for p in _problems(config_copy)
    )
    acme = config_copy.edit("tenants", "acme", lambda t: t["quota"].update(burst_requests_per_minute=900))
    assert any(p.startswith(f"{acme}: quota.burst_requests_per_minute: 900 is above") for p in _problems(config_copy))


def test_a_tenant_left_with_nothing_is_refused_unless_it_asks_for_best_effort(config_copy):
    env = config_copy.edit("tenants", "acme", lambda t: t["quota"].update(guaranteed_requests_per_minute=300))
    env = config_copy.path("environments", "dev")
    assert any(
        p.startswith(f"{env}: quota.agentic_requests_per_minute: tenants globex set no") for p in _problems(config_copy)
    )
    config_copy.edit("tenants", "globex", lambda t: t.update(quota={"guaranteed_requests_per_minute": 0}))
    project = load_project(config_copy.root, "dev")
    assert tenant_shares(project.environment, project.tenants)["globex"].guaranteed == 0


def test_the_old_quota_field_says_where_it_moved(config_copy):
    env = config_copy.edit("environments", "dev", lambda e: e.update(bedrock_quota_per_minute=600))
    [problem] = [p for p in _problems(config_copy) if "bedrock_quota_per_minute" in p]
    assert (
        problem.startswith(f"{env}: bedrock_quota_per_minute:")
        and "quota: {agentic_requests_per_minute: 600}" in problem
    )
