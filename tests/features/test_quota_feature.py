"""The quota feature renders each tenant's share among the environment's into its endpoint's settings,
the table's name into its environment, and turns off with `quota.fair_share: false`."""

from __future__ import annotations

from contract.env_vars import QUOTA_TABLE
from contract.settings import TenantSettings, bucket_capacity
from features.endpoint_plan import endpoint_plan, planned_refs
from features.quota_feature import QuotaFeature, quota_settings
from features.registry import enabled_features
from features.review_context import ReviewContext
from features.tenant_feature import TenantScope
from schema import load_project
from schema.front_door_checks import tenant_front_door
from tests.conftest import EXAMPLE_CONFIG
from tests.schema.conftest import config_copy  # noqa: F401 - fixture


def test_each_tenant_keeps_a_reserve_for_the_others_guarantees():
    project = load_project(EXAMPLE_CONFIG, "dev")  # acme 120, globex the other 180 of 300; 10 s buckets
    acme, globex = quota_settings(project, "acme"), quota_settings(project, "globex")
    assert (acme.guaranteed_per_minute, acme.burst_per_minute, globex.guaranteed_per_minute) == (120, 300, 180)
    assert acme.reserve_tokens == bucket_capacity(180, 10) + 1 == 31
    assert globex.reserve_tokens == bucket_capacity(120, 10) + 1 == 21
    assert acme.account_tokens == globex.account_tokens == max(bucket_capacity(300, 10), 20 + 30 + 2) == 52


def test_the_endpoint_gets_its_share_and_the_table_and_the_settings_round_trip():
    project = load_project(EXAMPLE_CONFIG, "dev")
    scope = TenantScope(project, "globex")
    refs = planned_refs(ReviewContext.of(project, "globex"))
    plan = endpoint_plan(scope, knowledge_bases=[], log_group_arn="arn:aws:logs:us-west-2:1:log-group:x", refs=refs)
    variables = plan.variables(tenant_front_door(project.environment, project.tenants["globex"]), "key")
    assert variables[QUOTA_TABLE] == "akb-dev-quota"
    assert TenantSettings.from_json(plan.settings.to_json()).quota == quota_settings(project, "globex")


def test_fair_sharing_off_leaves_every_tenant_without_the_feature(config_copy):  # noqa: F811
    config_copy.edit("environments", "dev", lambda e: e["quota"].update(fair_share=False))
    project = load_project(config_copy.root, "dev")
    for tenant in project.tenants:
        assert QuotaFeature.name not in [f.name for f in enabled_features(TenantScope(project, tenant))]
    assert quota_settings(project, "acme").guaranteed_per_minute == 120  # the shares are still validated
