"""The registry: which features a tenant has, in which order, and that a new feature plugs into the
CDK-free hosts (endpoint settings, environment, role, `akb policy`) without a change to them."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from client.commands.policy import review
from contract.resource_refs import KnowledgeBaseRef
from contract.settings import TenantSettings
from features.endpoint_plan import endpoint_plan, planned_refs
from features.registry import FEATURES, enabled_features
from features.review_context import ReviewContext
from features.tenant_feature import EndpointInputs, FeatureRef, RoleStatements, TenantFeature, TenantScope
from policies.document import allow
from policies.endpoint_role import endpoint_role_policy
from schema import Environment, Tenant, load_project
from tests.conftest import EXAMPLE_CONFIG


class ShareTableStandIn(TenantFeature[Any]):
    """A test double of the next feature (a per-environment table each tenant's endpoint writes its share
    to), enabled for tenants with a cache only: just enough hooks to reach every CDK-free host."""

    name = "share_stand_in"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.cache is not None

    def planned_ref(self, review: ReviewContext) -> FeatureRef:
        return FeatureRef(id="akb-dev-shares", arn=review.arn("dynamodb", "table/akb-dev-shares"))

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        ref = inputs.refs[self.name]
        return replace(settings, extra={**settings.extra, "share_table": ref.id})

    def endpoint_statements(self, inputs: EndpointInputs) -> RoleStatements:
        statement = allow("CountTheTenantsShare", ["dynamodb:UpdateItem"], inputs.refs[self.name].arn)
        return RoleStatements((statement,))

    def review(self, review: ReviewContext) -> dict[str, Any]:
        return {"share": {"table": "akb-dev-shares"}}

    def review_readers(self, review: ReviewContext) -> list[str]:
        return [review.role("share-reader")]


def test_every_feature_has_a_name_of_its_own():
    names = [feature.name for feature in FEATURES]
    assert len(names) == len(set(names)) and all(names)


def test_the_example_tenants_have_the_features_their_files_set_in_registry_order():
    project = load_project(EXAMPLE_CONFIG, "dev")
    acme = [f.name for f in enabled_features(TenantScope(project, "acme"))]
    globex = [f.name for f in enabled_features(TenantScope(project, "globex"))]
    assert acme == ["cache", "memory", "ingestion_logs", "front_door", "quota", "quality"]
    assert globex == ["gateway", "ingestion_logs", "front_door", "agent", "quota", "quality"]


def test_a_new_feature_reaches_settings_role_and_review_through_the_registry_alone():
    project, registry = load_project(EXAMPLE_CONFIG, "dev"), (*FEATURES, ShareTableStandIn())
    context = ReviewContext.of(project, "acme")
    plan = endpoint_plan(
        context.scope,
        knowledge_bases=[KnowledgeBaseRef("docs", "Docs.", "<kb:docs:id>", context.knowledge_base_arns["docs"])],
        log_group_arn=context.endpoint_log_group_arn,
        refs=planned_refs(context, registry),
        features=registry,
    )
    assert plan.settings.extra == {"share_table": "akb-dev-shares"}
    assert plan.role.feature_statements[-1]["Sid"] == "CountTheTenantsShare"
    printed = review(project, "acme", registry)
    assert printed["share"] == {"table": "akb-dev-shares"}
    sids = [statement["Sid"] for statement in printed["endpoint_execution_role"]["Statement"]]
    assert "CountTheTenantsShare" in sids
    assert "<share-reader>" in json.dumps(printed["knowledge_base_resource_policies"])
    assert "share" not in review(project, "globex", registry)  # globex has no cache: not enabled


def test_a_feature_without_a_ref_adds_nothing_that_needs_one():
    """The memory without its id (a caller that built none): no memory settings, no memory statements."""
    project = load_project(EXAMPLE_CONFIG, "dev")
    kbs = [KnowledgeBaseRef("docs", "Docs.", "KBDOCS0001", "kb")]
    plan = endpoint_plan(TenantScope(project, "acme"), knowledge_bases=kbs, log_group_arn="lg")
    assert plan.settings.memory is None and plan.values.cache_table is None
    assert "bedrock-agentcore" not in json.dumps(endpoint_role_policy(plan.role))
