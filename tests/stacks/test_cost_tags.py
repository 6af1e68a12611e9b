"""Cost allocation: every taggable resource of a tenant stack carries akb:environment, akb:tenant and the
tenant file's cost_center (synthesized example config: acme has one, globex has none)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _tagged(template: dict) -> dict[str, dict[str, str]]:
    """logical id -> tags, for resources whose Tags is a list of Key/Value (the CloudFormation tag shape)."""
    found = {}
    for logical_id, resource in template["Resources"].items():
        tags = resource.get("Properties", {}).get("Tags")
        if isinstance(tags, list) and all(isinstance(tag, dict) and "Key" in tag for tag in tags):
            found[logical_id] = {tag["Key"]: tag["Value"] for tag in tags}
        elif isinstance(tags, dict):  # a few resource types (e.g. Bedrock) take a map
            found[logical_id] = tags
    return found


@pytest.mark.parametrize(("tenant", "cost_center"), [("acme", "support-emea"), ("globex", None)])
def test_every_tagged_resource_carries_environment_tenant_and_cost_center(synthesized, tenant, cost_center):
    tagged = _tagged(synthesized.template(f"dev-{tenant}"))
    assert len(tagged) >= 10
    for logical_id, tags in tagged.items():
        assert tags.get("akb:environment") == "dev", logical_id
        assert tags.get("akb:tenant") == tenant, logical_id
        assert tags.get("akb:cost-center") == cost_center, logical_id


def test_the_ingestion_log_delivery_resources_are_tagged_too(synthesized):
    tagged = _tagged(synthesized.template("dev-acme"))
    types = {synthesized.template("dev-acme")["Resources"][key]["Type"] for key in tagged}
    assert {"AWS::Logs::DeliverySource", "AWS::Logs::DeliveryDestination", "AWS::Logs::Delivery"} <= types
