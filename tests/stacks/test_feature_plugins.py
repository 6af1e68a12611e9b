"""Features plug into the stacks through the registry: `akb policy` prints what the stack deploys, and a
new feature (its own module, one registry entry) reaches every host without a change to them."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_dynamodb as dynamodb

from client.commands.policy import review
from contract.resource_names import tenant_stack_name
from contract.settings import TenantSettings
from features.registry import FEATURES
from features.tenant_feature import (
    BuildContext,
    EndpointInputs,
    EnvironmentBuild,
    FeatureRef,
    RoleStatements,
    TenantFeature,
)
from monitoring.alarms import GT, IDLE_IS_FINE, AlarmSpec
from monitoring.dashboard_widgets import graph
from monitoring.observability_parts import AlarmSpecs, Contribution, DashboardRow
from policies.document import allow
from schema import Environment, Tenant, load_project
from stacks.app_builder import build_app
from tests.schema.conftest import config_copy  # noqa: F401 - fixture
from tests.synth import cdk_json_context

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

ROW = "### Share stand-in\nA row only the stand-in feature adds."


def _endpoint_role(template: dict) -> list[dict]:
    (role,) = [
        v for k, v in template["Resources"].items() if k.startswith("EndpointRole") and v["Type"] == "AWS::IAM::Role"
    ]
    return role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]


def _kb_policies(template: dict) -> list[dict]:
    return [
        v["Properties"]["PolicyDocument"]
        for v in template["Resources"].values()
        if v["Type"] == "AWS::Bedrock::KnowledgeBasePolicy"
    ]


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_akb_policy_prints_the_endpoint_role_and_the_readers_the_stack_deploys(synthesized, tenant):
    template = synthesized.template(tenant_stack_name("dev", tenant))
    printed = review(synthesized.project, tenant)
    assert [s["Sid"] for s in _endpoint_role(template)] == [
        s["Sid"] for s in printed["endpoint_execution_role"]["Statement"]
    ]
    deployed = _kb_policies(template)[0]["Statement"][0]["Condition"]["ArnNotEquals"]["aws:PrincipalArn"]
    shown = next(iter(printed["knowledge_base_resource_policies"].values()))["Statement"][0]["Condition"]
    assert len(deployed) == len(shown["ArnNotEquals"]["aws:PrincipalArn"])  # the same readers, one per door


class ShareTableStandIn(TenantFeature[Any]):
    """A test double of the next feature: a table per environment (in `<env>-platform`) that each endpoint
    of a tenant with a cache writes its share to, an alarm and a row. Only hooks, no host edited."""

    name = "share_stand_in"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.cache is not None

    def build_environment(self, ctx: EnvironmentBuild) -> dynamodb.Table:
        return dynamodb.Table(
            ctx.scope,
            "ShareTable",
            partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            removal_policy=cdk.RemovalPolicy.DESTROY,
        )

    def build_resources(self, ctx: BuildContext) -> Any:
        return ctx.environment_parts[self.name]

    def ref(self, built: dynamodb.Table) -> FeatureRef:
        return FeatureRef(id=built.table_name, arn=built.table_arn)

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        return replace(settings, extra={**settings.extra, "share_table": inputs.refs[self.name].id})

    def endpoint_statements(self, inputs: EndpointInputs) -> RoleStatements:
        return RoleStatements((allow("CountTheTenantsShare", ["dynamodb:UpdateItem"], inputs.refs[self.name].arn),))

    def observability(self, ctx: BuildContext, built: dynamodb.Table) -> list[Contribution]:
        throttles = built.metric_throttled_requests_for_operation("UpdateItem", period=cdk.Duration.minutes(5))
        spec = AlarmSpec("share-throttles", throttles, 0, GT, "The share table throttled an update.", IDLE_IS_FINE)
        return [AlarmSpecs(lambda _t: [spec]), DashboardRow(ROW, lambda _t: [graph("Share throttles", [throttles])])]


def test_a_new_feature_reaches_platform_endpoint_role_policies_and_monitoring(config_copy, tmp_path):  # noqa: F811
    config_copy.edit("environments", "dev", lambda env: env.update(tenants=["acme"]))  # one synth less: globex
    project = load_project(config_copy.root, "dev")  # (no cache, so not enabled) is tests/features' case
    app = cdk.App(outdir=str(tmp_path), context=cdk_json_context())
    build_app(app, project, features=(*FEATURES, ShareTableStandIn()))
    assembly = app.synth()  # cdk-nag runs: the stand-in's table and alarm pass it too
    platform = assembly.get_stack_by_name("dev-platform").template
    acme = assembly.get_stack_by_name("dev-acme").template
    assert [k for k, v in platform["Resources"].items() if v["Type"] == "AWS::DynamoDB::Table"]
    share = [s for s in _endpoint_role(acme) if s["Sid"] == "CountTheTenantsShare"]
    assert share and "Fn::ImportValue" in json.dumps(share[0]["Resource"])  # the platform's table, exported
    settings = [
        v
        for v in acme["Resources"].values()
        if v["Type"] == "AWS::Lambda::Function" and "AKB_TENANT_SETTINGS" in json.dumps(v)
    ]
    assert "share_table" in json.dumps(settings)
    dashboards = [
        json.dumps(v["Properties"]["DashboardBody"])
        for v in acme["Resources"].values()
        if v["Type"] == "AWS::CloudWatch::Dashboard"
    ]
    assert any("Share stand-in" in body for body in dashboards)
    composite = [
        v["Properties"]["AlarmRule"]
        for v in acme["Resources"].values()
        if v["Type"] == "AWS::CloudWatch::CompositeAlarm"
    ]
    alarm_ids = [
        k
        for k, v in acme["Resources"].items()
        if v["Type"] == "AWS::CloudWatch::Alarm" and v["Properties"].get("AlarmName") == "akb-dev-acme-share-throttles"
    ]
    assert alarm_ids and alarm_ids[0] in json.dumps(composite)
