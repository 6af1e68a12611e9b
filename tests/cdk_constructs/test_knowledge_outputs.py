"""Knowledge identifiers are published as stack outputs and as SSM parameters `akb ingest` reads."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _parameters(synthesized, stack_name: str) -> dict[str, object]:
    return {
        p["Properties"]["Name"]: p["Properties"]["Value"]
        for p in synthesized.resources(stack_name, "AWS::SSM::Parameter").values()
    }


def test_acme_publishes_every_knowledge_identifier(synthesized):
    names = set(_parameters(synthesized, "dev-acme"))
    expected = {
        f"/akb/dev/acme/{key}"
        for key in (
            "documents-bucket",
            "kb/docs/id",
            "kb/docs/arn",
            "kb/docs/data-source/0/id",
            "kb/docs/data-source/0/bucket",
            "kb/docs/data-source/0/prefix",
            "kb/tickets/id",
            "kb/tickets/arn",
            "kb/tickets/data-source/0/id",
            "kb/tickets/data-source/0/bucket",
            "kb/tickets/data-source/0/prefix",
            "kb/tickets/data-source/1/id",
            "guardrail/id",
            "guardrail/arn",
            "guardrail/version",
            "instruction/id",
            "instruction/arn",
        )
    }
    assert expected <= names
    # A web source has no bucket or prefix to publish.
    assert "/akb/dev/acme/kb/tickets/data-source/1/bucket" not in names


def test_parameters_resolve_to_the_resources_they_name(synthesized):
    template = synthesized.template("dev-acme")
    values = _parameters(synthesized, "dev-acme")
    kb_id, attribute = values["/akb/dev/acme/kb/docs/id"]["Fn::GetAtt"]
    assert attribute == "KnowledgeBaseId"
    assert template["Resources"][kb_id]["Properties"]["Name"] == "akb-dev-acme-docs"
    assert values["/akb/dev/acme/kb/docs/data-source/0/prefix"] == "docs/"
    assert values["/akb/dev/acme/guardrail/version"]["Fn::GetAtt"][1] == "Version"


def test_the_same_values_are_stack_outputs(synthesized):
    outputs = synthesized.template("dev-globex")["Outputs"]
    published = {str(v) for v in _parameters(synthesized, "dev-globex").values()}
    assert published <= {str(o["Value"]) for o in outputs.values()}
    assert "/akb/dev/globex/instruction/id" not in _parameters(synthesized, "dev-globex")
