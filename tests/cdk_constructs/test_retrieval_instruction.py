"""The optional retrieval instruction: a raw CfnResource with exactly the properties its schema allows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aws_cdk as cdk
import botocore.session
import cfnlint
import pytest

from cdk_constructs.retrieval_instruction import RetrievalInstruction
from contract.resource_refs import RetrievalInstructionRef
from schema.tenant import RetrievalInstruction as InstructionConfig
from tests.cdk_constructs.probe import probe_stack, tenant_stack

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

TYPE = "AWS::Bedrock::RetrievalInstruction"


def _cfn_schema() -> dict:
    """cfn-lint's copy of the resource schema, found through its region provider map."""
    data = Path(cfnlint.__file__).parent / "data" / "schemas"
    name = json.loads((data / "providers" / "us-west-2.json").read_text())[TYPE]
    return json.loads((data / "resources" / f"{name}.json").read_text())


def test_acme_instruction_has_only_the_parts_the_tenant_wrote(synthesized):
    (resource,) = synthesized.resources("dev-acme", TYPE).values()
    instruction = synthesized.project.tenants["acme"].retrieval.instruction
    assert resource["Properties"]["Instruction"] == {
        "Persona": instruction.persona,
        "AnswerPolicy": instruction.answer_policy,
    }
    assert resource["Properties"]["Name"] == "akb-dev-acme-instruction"


def test_properties_are_writable_properties_of_the_resource_schema(synthesized):
    schema = _cfn_schema()
    read_only = {path.rsplit("/", 1)[1] for path in schema["readOnlyProperties"]}
    (resource,) = synthesized.resources("dev-acme", TYPE).values()
    assert set(resource["Properties"]) <= set(schema["properties"]) - read_only
    assert set(schema["required"]) <= set(resource["Properties"])
    allowed_parts = set(schema["definitions"]["Instruction"]["properties"])
    assert set(resource["Properties"]["Instruction"]) <= allowed_parts


def test_a_tenant_without_an_instruction_gets_none(synthesized):
    assert synthesized.project.tenants["globex"].retrieval.instruction is None
    assert synthesized.resources("dev-globex", TYPE) == {}
    assert tenant_stack("globex").retrieval_instruction is None


def test_ref_pins_draft_which_agentic_retrieve_stream_accepts():
    stack = probe_stack()
    construct = RetrievalInstruction(
        stack,
        "Instruction",
        config=InstructionConfig(persona="A librarian."),
        name="i",
        description="d",
        removal_policy=cdk.RemovalPolicy.RETAIN,
    )
    ref = construct.ref
    assert isinstance(ref, RetrievalInstructionRef)
    logical_id = stack.get_logical_id(construct.resource)
    assert stack.resolve(ref.instruction_id) == {"Fn::GetAtt": [logical_id, "RetrievalInstructionId"]}
    assert stack.resolve(ref.instruction_arn) == {"Fn::GetAtt": [logical_id, "Arn"]}
    model = botocore.session.get_session().get_service_model("bedrock-agent-runtime")
    version_shape = model.shape_for("AgenticRetrieveInstructionConfiguration").members["version"]
    assert re.fullmatch(version_shape.metadata["pattern"], ref.version)


def test_an_empty_instruction_built_without_validation_fails_naming_the_construct():
    stack = probe_stack()
    empty = InstructionConfig.model_construct(
        persona="  ", retrieval_guidance=None, answer_format=None, answer_policy=None
    )
    with pytest.raises(ValueError, match=r"Probe/Instruction: the retrieval instruction is empty"):
        RetrievalInstruction(
            stack, "Instruction", config=empty, name="i", description="d", removal_policy=cdk.RemovalPolicy.RETAIN
        )
