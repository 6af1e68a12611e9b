"""What the endpoint role needs on the tenant's AgentCore Memory (docs/conversations.md), and nothing more.

AgenticRetrieveStream with `memoryConfiguration` reads a short-term session (history restore),
writes the turn back (persistenceMode DEFAULT) and, with retrievalConfigs, reads long-term records.
No AWS page says which permissions the caller of AgenticRetrieveStream needs for that (ledger:
UNVERIFIED). Each statement names the AgentCore data-plane action of the same operation, which
AWS documents as "To use this operation, you must have the bedrock-agentcore:<Action> permission"
(API reference: ListEvents, CreateEvent, RetrieveMemoryRecords), on the tenant's memory ARN only
(`arn:<partition>:bedrock-agentcore:<region>:<account>:memory/<id>`: cfn-lint schema of
AWS::BedrockAgentCore::Memory, MemoryArn). No wildcard resource, no delete, no control plane.
The actor is not pinned here: one endpoint role serves every end user of the tenant, and the
endpoint sets the actor from the verified end user (lambdas/endpoint/conversation.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.document import Statement, allow

RESTORE_ACTIONS = ("bedrock-agentcore:ListEvents",)
WRITE_BACK_ACTIONS = ("bedrock-agentcore:CreateEvent",)
LONG_TERM_ACTIONS = ("bedrock-agentcore:RetrieveMemoryRecords",)


@dataclass(frozen=True)
class MemoryAccess:
    """The tenant's memory and what requests may do with it. `memory_arn` may be a CDK token."""

    memory_arn: str
    long_term_retrieval: bool = False


def memory_statements(access: MemoryAccess) -> list[Statement]:
    statements = [
        allow("RestoreSessionsOfTheTenantsMemory", RESTORE_ACTIONS, access.memory_arn),
        allow("WriteTurnsBackToTheTenantsMemory", WRITE_BACK_ACTIONS, access.memory_arn),
    ]
    if access.long_term_retrieval:
        statements.append(allow("ReadLongTermRecordsOfTheTenantsMemory", LONG_TERM_ACTIONS, access.memory_arn))
    return statements
