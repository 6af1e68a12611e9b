"""An optional retrieval instruction: persona, retrieval guidance, answer format, answer policy.

`AWS::Bedrock::RetrievalInstruction` has no L1 class in aws-cdk-lib 2.275, so this is a raw
CfnResource whose properties are exactly those cfn-lint's schema allows (Name, Description,
Instruction, CustomerEncryptionKeyArn, Tags). Bedrock reviews the content before the instruction
becomes ACTIVE; until then requests that name it fail.
"""

from __future__ import annotations

import aws_cdk as cdk
from constructs import Construct

from contract.resource_refs import RetrievalInstructionRef
from schema.tenant import RetrievalInstruction as RetrievalInstructionConfig

RESOURCE_TYPE = "AWS::Bedrock::RetrievalInstruction"
# AgenticRetrieveStream's retrievalInstructionConfiguration.version: a number or DRAFT ("the
# instruction's current reviewed content"; also the default). CloudFormation has no version
# resource, so the endpoint pins DRAFT: an edit reaches it once Bedrock has reviewed the update.
DRAFT_VERSION = "DRAFT"
# schema field -> CloudFormation Instruction property.
INSTRUCTION_FIELDS = {
    "persona": "Persona",
    "retrieval_guidance": "RetrievalGuidance",
    "answer_format": "AnswerFormat",
    "answer_policy": "AnswerPolicy",
}
MAX_DESCRIPTION = 200


def instruction_properties(config: RetrievalInstructionConfig) -> dict[str, str]:
    """Only the parts the tenant wrote (each must be non-empty in the resource schema)."""
    return {
        cfn: getattr(config, field).strip()
        for field, cfn in INSTRUCTION_FIELDS.items()
        if getattr(config, field) and getattr(config, field).strip()
    }


class RetrievalInstruction(Construct):
    """:param config: the tenant's `retrieval.instruction` block (at least one part set).
    :param name: the resource name (1-100 of `[0-9a-zA-Z_-]`, no doubled separators).
    :param description: a human description, cut to 200 characters.
    :param tags: tags written on the resource (CDK's tag aspect skips raw CfnResources).
    :param removal_policy: the environment's.

    https://docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: RetrievalInstructionConfig,
        name: str,
        description: str,
        tags: dict[str, str] | None = None,
        removal_policy: cdk.RemovalPolicy,
    ):
        super().__init__(scope, construct_id)
        instruction = instruction_properties(config)
        if not instruction:
            raise ValueError(
                f"{self.node.path}: the retrieval instruction is empty; set at least one of "
                + ", ".join(INSTRUCTION_FIELDS)
            )
        properties: dict = {"Name": name, "Description": description[:MAX_DESCRIPTION], "Instruction": instruction}
        if tags:
            properties["Tags"] = [{"Key": key, "Value": value} for key, value in sorted(tags.items())]
        self.resource = cdk.CfnResource(self, "Resource", type=RESOURCE_TYPE, properties=properties)
        self.resource.apply_removal_policy(removal_policy)
        # CDK's bundled resource spec predates this type; cfn-lint 1.58 (tests/stacks/test_app.py)
        # validates it against its schema instead.
        cdk.Validations.of(self.resource).acknowledge(
            cdk.Acknowledgment(
                id="CloudFormation-Validate::F3006",
                reason="AWS::Bedrock::RetrievalInstruction is newer than the resource spec of aws-cdk-lib; "
                "cfn-lint checks it",
            )
        )

    @property
    def instruction_id(self) -> str:
        return self.resource.get_att("RetrievalInstructionId").to_string()

    @property
    def instruction_arn(self) -> str:
        return self.resource.get_att("Arn").to_string()

    @property
    def ref(self) -> RetrievalInstructionRef:
        return RetrievalInstructionRef(
            instruction_id=self.instruction_id, instruction_arn=self.instruction_arn, version=DRAFT_VERSION
        )
