"""A tenant's guardrail. Agentic retrieval supports only BLOCK (and NONE where the API has it).

"When configuring guardrails, only the BLOCK action is supported. The MASK action is not supported
with agentic retrieval." — https://docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html
PII entities and regexes accept ANONYMIZE in the Guardrails API; here it is rejected with that reason.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator

from schema.arn_types import KmsKeyArn
from schema.common import NonBlank, Regex, StrictModel

_BLOCK_ONLY_REASON = (
    "agentic retrieval supports only BLOCK guardrail actions (MASK and ANONYMIZE are not "
    "supported: docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html); "
    "use BLOCK or NONE"
)


def _block_or_none(value: object) -> object:
    if isinstance(value, str) and value.upper() in ("ANONYMIZE", "MASK"):
        raise ValueError(f"action {value} is not allowed: {_BLOCK_ONLY_REASON}")
    return value


Action = Annotated[Literal["BLOCK", "NONE"], BeforeValidator(_block_or_none)]
Strength = Literal["NONE", "LOW", "MEDIUM", "HIGH"]


class ContentFilter(StrictModel):
    type: Literal["HATE", "INSULTS", "SEXUAL", "VIOLENCE", "MISCONDUCT", "PROMPT_ATTACK"]
    input_strength: Strength = "HIGH"
    output_strength: Strength = Field("HIGH", description="Must be NONE for PROMPT_ATTACK.")
    input_action: Action = "BLOCK"
    output_action: Action = "BLOCK"

    @model_validator(mode="after")
    def _prompt_attack_screens_input_only(self) -> ContentFilter:
        if self.type == "PROMPT_ATTACK" and self.output_strength != "NONE":
            raise ValueError("PROMPT_ATTACK screens input only: the Guardrails API requires output_strength: NONE")
        return self


class DeniedTopic(StrictModel):
    name: Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[0-9a-zA-Z-_ !?.]+$")]
    definition: Annotated[str, Field(min_length=1, max_length=1000)]
    examples: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(default_factory=list, max_length=5)
    input_action: Action = "BLOCK"
    output_action: Action = "BLOCK"


class PiiEntity(StrictModel):
    type: Annotated[str, Field(pattern=r"^[A-Z_]+$")] = Field(
        description="A Guardrails PII type, e.g. EMAIL, PHONE, US_SOCIAL_SECURITY_NUMBER."
    )
    action: Action = "BLOCK"


class RegexFilter(StrictModel):
    name: Annotated[str, Field(min_length=1, max_length=100)]
    pattern: Annotated[Regex, Field(min_length=1, max_length=500)]
    description: str | None = None
    action: Action = "BLOCK"


class ContextualGroundingFilter(StrictModel):
    type: Literal["GROUNDING", "RELEVANCE"]
    threshold: float = Field(ge=0, le=0.99)
    action: Action = "BLOCK"


class Guardrail(StrictModel):
    """Every policy of an `AWS::Bedrock::Guardrail`, restricted to the actions agentic retrieval supports."""

    blocked_message: NonBlank = Field(
        "Sorry, I can't help with that.",
        description="Returned instead of blocked input or output.",
    )
    content_filters: list[ContentFilter] = Field(default_factory=list)
    denied_topics: list[DeniedTopic] = Field(default_factory=list)
    words: list[NonBlank] = Field(default_factory=list, description="Blocked words or phrases.")
    managed_word_lists: list[Literal["PROFANITY"]] = Field(default_factory=list)
    pii_entities: list[PiiEntity] = Field(default_factory=list)
    regexes: list[RegexFilter] = Field(default_factory=list)
    contextual_grounding: list[ContextualGroundingFilter] = Field(default_factory=list)
    kms_key_arn: KmsKeyArn | None = Field(None, description="Customer managed KMS key for the guardrail.")
