"""The tenant's AgentCore Memory: conversations for its endpoint (docs/conversations.md).

One `AWS::BedrockAgentCore::Memory` (aws-cdk-lib `aws_bedrockagentcore.CfnMemory`) when the tenant's
config has a `memory:` block. Properties (cfn-lint schema of the resource; ledger):
`Name` (`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`), `EventExpiryDuration` (days, 3-365: how long a session's
turns are kept), `MemoryStrategies` (built-in SemanticMemoryStrategy, SummaryMemoryStrategy,
UserPreferenceMemoryStrategy, each with `Name` and `NamespaceTemplates`: `Namespaces` is deprecated in
bedrock-agentcore-control since 2026-03-02). Every namespace holds `{actorId}/`
(schema/memory_config.py), so extracted records are per end user.
Encryption: without `EncryptionKeyArn` "the service still encrypts data using a service managed key"
(https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/create-memory.html); a customer
managed key is not offered by the tenant file yet.
https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/memory-organization.html
"""

from __future__ import annotations

import re
from typing import Any

from aws_cdk import aws_bedrockagentcore as agentcore
from constructs import Construct

from schema.memory_config import Memory

# config strategy type -> the CfnMemory.MemoryStrategyProperty member that carries it
_STRATEGY_MEMBERS = {
    "semantic": ("semantic_memory_strategy", agentcore.CfnMemory.SemanticMemoryStrategyProperty),
    "summary": ("summary_memory_strategy", agentcore.CfnMemory.SummaryMemoryStrategyProperty),
    "user_preference": ("user_preference_memory_strategy", agentcore.CfnMemory.UserPreferenceMemoryStrategyProperty),
}
MAX_NAME_CHARS = 48


def memory_name(env_name: str, tenant_name: str) -> str:
    """`akb_<env>_<tenant>` in the Name pattern (hyphens become underscores, at most 48 characters)."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", f"akb_{env_name}_{tenant_name}")[:MAX_NAME_CHARS]


class ConversationMemory(Construct):
    """Props:
    - memory: the tenant's `memory:` block (event expiry, strategies; schema/memory_config.py).
    - name: the physical name (memory_name()); description: what it serves.
    """

    def __init__(self, scope: Construct, construct_id: str, *, memory: Memory, name: str, description: str):
        super().__init__(scope, construct_id)
        self.config = memory
        self.resource = agentcore.CfnMemory(
            self,
            "Memory",
            name=name,
            description=description,
            event_expiry_duration=memory.event_expiry_days,
            memory_strategies=self._strategies() or None,
        )

    def _strategies(self) -> list[agentcore.CfnMemory.MemoryStrategyProperty]:
        out = []
        for strategy in self.config.strategies:
            member, prop = _STRATEGY_MEMBERS[strategy.type]
            one: dict[str, Any] = {member: prop(name=strategy.name, namespace_templates=[strategy.namespace])}
            out.append(agentcore.CfnMemory.MemoryStrategyProperty(**one))
        return out

    @property
    def memory_id(self) -> str:
        return self.resource.attr_memory_id

    @property
    def memory_arn(self) -> str:
        return self.resource.attr_memory_arn
