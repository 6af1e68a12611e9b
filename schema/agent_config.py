"""`agent:` in a tenant file: an Agents for Amazon Bedrock agent whose knowledge tool is agentic retrieval.

Opt-in. The agent (AWS::Bedrock::Agent) orchestrates with `foundation_model`; its one action group
runs `search_knowledge` in a Lambda function that calls AgenticRetrieveStream with the tenant's
retrievers, guardrail, instruction and caps (docs/agents.md). Bounds follow cfn-lint's schema of
AWS::Bedrock::Agent (Instruction minLength 40, IdleSessionTTLInSeconds 60-5400, Description 1-200)
and the Bedrock quota on instruction length (ledger: docs/facts-and-decisions.md).
https://docs.aws.amazon.com/bedrock/latest/userguide/agents.html
"""

from __future__ import annotations

from pydantic import Field

from schema.arn_types import BedrockModelArn
from schema.common import StrictModel

# cfn-lint AWS::Bedrock::Agent Instruction minLength 40; 4,000 is the lowest documented value of the
# instruction-length quota (later raised; ledger), so a file valid here deploys in every account.
MIN_INSTRUCTION_CHARS = 40
MAX_INSTRUCTION_CHARS = 4000
# cfn-lint AWS::Bedrock::Agent IdleSessionTTLInSeconds minimum 60, maximum 5400.
MIN_IDLE_SESSION_SECONDS = 60
MAX_IDLE_SESSION_SECONDS = 5400
# The action group's reply to the agent: kept under the documented 25 KB Lambda response limit for
# agents (ledger, UNVERIFIED wording) with room for the response envelope.
MAX_RESPONSE_BYTES = 20_000
DEFAULT_INSTRUCTION = (
    "You answer questions about this tenant's documents. Always call search_knowledge with the user's "
    "question, answer only from what it returns, cite the numbered sources, and say so when it reports "
    "a partial or truncated result."
)


class Agent(StrictModel):
    """An AWS::Bedrock::Agent with one action group (`search_knowledge`) and an alias for callers."""

    foundation_model: BedrockModelArn = Field(
        description="Model or inference profile ARN the agent orchestrates with; its role may invoke "
        "this model only (through a profile: the profile and its model, pinned to the profile)."
    )
    instruction: str = Field(
        DEFAULT_INSTRUCTION,
        min_length=MIN_INSTRUCTION_CHARS,
        max_length=MAX_INSTRUCTION_CHARS,
        description=f"What the agent is told to do ({MIN_INSTRUCTION_CHARS}-{MAX_INSTRUCTION_CHARS} characters). "
        "Default: always search, answer from the sources, cite them, flag partial results.",
    )
    idle_session_ttl_seconds: int = Field(
        600,
        ge=MIN_IDLE_SESSION_SECONDS,
        le=MAX_IDLE_SESSION_SECONDS,
        description="Seconds without a message after which Bedrock ends a session (default 600).",
    )
    description: str | None = Field(None, min_length=1, max_length=200, description="Agent description.")
    response_max_bytes: int = Field(
        MAX_RESPONSE_BYTES,
        ge=2000,
        le=MAX_RESPONSE_BYTES,
        description="Upper bound (UTF-8 bytes) of what search_knowledge returns to the agent; longer "
        "results are cut and say so (default and maximum 20000, under the 25 KB agent response limit).",
    )
    timeout_seconds: int = Field(
        120, ge=10, le=900, description="Timeout of the action-group function (Lambda allows up to 900)."
    )
    memory_mb: int = Field(512, ge=128, le=10240, description="Memory of the action-group function.")


__all__ = ["Agent"]
