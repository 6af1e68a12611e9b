"""The endpoint role's statements on the tenant's AgentCore Memory: its ARN only, no wildcard, no delete."""

from __future__ import annotations

from policies.memory_access import MemoryAccess, memory_statements

ARN = "arn:aws:bedrock-agentcore:us-west-2:123456789012:memory/akb_dev_acme-abcdefghij"


def test_sessions_are_restored_and_written_on_the_memory_only():
    statements = memory_statements(MemoryAccess(ARN))
    assert [(s["Sid"], s["Action"], s["Resource"]) for s in statements] == [
        ("RestoreSessionsOfTheTenantsMemory", "bedrock-agentcore:ListEvents", ARN),
        ("WriteTurnsBackToTheTenantsMemory", "bedrock-agentcore:CreateEvent", ARN),
    ]


def test_long_term_records_are_readable_only_when_the_tenant_retrieves_them():
    statements = memory_statements(MemoryAccess(ARN, long_term_retrieval=True))
    assert statements[-1]["Action"] == "bedrock-agentcore:RetrieveMemoryRecords" and statements[-1]["Resource"] == ARN
