"""Issue 26 (Low): two owners in the config never produce the same stack name or resource prefix.

Tenant `x-y` of environment `dev` and tenant `y` of environment `dev-x` both become stack `dev-x-y`
and prefix `akb-dev-x-y`. Renaming the scheme would replace deployed resources, so the config is
refused, naming both environment files and the `tenants` entries.
"""

from __future__ import annotations

import shutil

import pytest

from schema import ConfigError, load_project


def _problems(config_copy, env: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, env)
    return [str(problem) for problem in caught.value.problems]


def _tenant(config_copy, name: str) -> None:
    shutil.copy(config_copy.path("tenants", "acme"), config_copy.path("tenants", name))


def _environment(config_copy, name: str, tenants: list[str], **fields) -> None:
    """A copy of dev named `name`; in another region unless `fields` say otherwise (same account and region
    with a nesting name is a problem of its own: the last tests)."""
    data = config_copy.read("environments", "dev")
    config_copy.write("environments", name, {**data, "region": "eu-west-1", "tenants": tenants, **fields})


def test_tenant_x_y_of_dev_and_tenant_y_of_dev_x_are_refused_in_both_environments(config_copy):
    for tenant in ("x-y", "y"):
        _tenant(config_copy, tenant)
    config_copy.edit("environments", "dev", lambda e: e.update(tenants=["acme", "globex", "x-y"]))
    _environment(config_copy, "dev-x", ["y"])
    dev, dev_x = config_copy.path("environments", "dev"), config_copy.path("environments", "dev-x")

    (in_dev,) = _problems(config_copy, "dev")
    assert in_dev.startswith(f"{dev}: tenants[2]: tenant 'x-y' of environment dev ")
    assert f"tenant 'y' of environment dev-x ({dev_x}: tenants[0])" in in_dev and "dev-x-y" in in_dev

    (in_dev_x,) = _problems(config_copy, "dev-x")
    assert in_dev_x.startswith(f"{dev_x}: tenants[0]: tenant 'y' of environment dev-x ")
    assert f"tenant 'x-y' of environment dev ({dev}: tenants[2])" in in_dev_x


def test_a_tenant_whose_prefix_is_another_environments_prefix_is_refused(config_copy):
    """Tenant `x` of dev is `akb-dev-x`: the prefix of environment dev-x's own resources."""
    _tenant(config_copy, "x")
    config_copy.edit("environments", "dev", lambda e: e.update(tenants=["acme", "x"]))
    _environment(config_copy, "dev-x", ["globex"])
    (problem,) = _problems(config_copy, "dev")
    assert problem.startswith(f"{config_copy.path('environments', 'dev')}: tenants[1]: tenant 'x' of environment dev ")
    assert "environment dev-x" in problem and "akb-dev-x" in problem


def test_a_tenant_named_like_the_platform_stack_is_refused(config_copy):
    _tenant(config_copy, "platform")
    config_copy.edit("environments", "dev", lambda e: e.update(tenants=["platform"]))
    problems = _problems(config_copy, "dev")
    assert any("tenants[0]: tenant 'platform' of environment dev" in p and "dev-platform" in p for p in problems)


def test_distinct_names_and_unreadable_other_environments_do_not_clash(config_copy):
    _environment(config_copy, "dev-eu", ["acme"])
    config_copy.path("environments", "broken").write_text("tenants: [[[\n")
    assert list(load_project(config_copy.root, "dev").tenants) == ["acme", "globex"]
    assert list(load_project(config_copy.root, "dev-eu").tenants) == ["acme"]


def test_nesting_environments_in_one_account_and_region_are_refused_in_both(config_copy):
    """dev's alarm topic admits alarm:akb-dev-* and its verify role may invoke function:akb-dev-*-endpoint:
    in one account and region, environment dev-x's alarms and endpoints are among them."""
    _environment(config_copy, "dev-x", ["globex"], region="us-west-2")
    dev, dev_x = config_copy.path("environments", "dev"), config_copy.path("environments", "dev-x")
    (in_dev,) = _problems(config_copy, "dev")
    assert in_dev.startswith(f"{dev}: environments dev and dev-x ({dev_x}) may deploy into the same account")
    assert "akb-dev-x begins with akb-dev-" in in_dev and "alarm:akb-dev-*" in in_dev
    (in_dev_x,) = _problems(config_copy, "dev-x")
    assert in_dev_x.startswith(f"{dev_x}: environments dev-x and dev ({dev})")


def test_an_environment_without_an_account_may_be_anywhere_so_it_is_refused_too(config_copy):
    _environment(config_copy, "dev-x", ["globex"], region="us-west-2")
    config_copy.edit("environments", "dev-x", lambda e: e.pop("account"))
    (problem,) = _problems(config_copy, "dev")
    assert "environments dev and dev-x" in problem


def test_nesting_environments_in_other_accounts_or_regions_are_fine(config_copy):
    _environment(config_copy, "dev-x", ["globex"], account="210987654321")
    config_copy.edit("environments", "dev-x", lambda e: e.pop("quality_gate_role_arn"))  # dev's account's role
    _environment(config_copy, "dev-y", ["globex"])  # another region
    for env in ("dev", "dev-x", "dev-y"):
        assert list(load_project(config_copy.root, env).tenants)
