"""The endpoint role's statements on the tenant's AgentCore Memory: its ARN only, no wildcard, no delete."""

from __future__ import annotations

from policies.endpoint_role import endpoint_role_policy, inputs_for
from policies.memory_access import MemoryAccess, memory_statements
from schema import load_project

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


def test_the_endpoint_role_holds_memory_statements_only_for_a_tenant_with_memory():
    project = load_project("config", "dev")
    kwargs = {"knowledge_base_arns": ["kb"], "log_group_arn": "lg", "guardrail_arn": None, "memory_arn": ARN}
    acme = endpoint_role_policy(inputs_for(project.environment, project.tenants["acme"], **kwargs))
    globex = endpoint_role_policy(inputs_for(project.environment, project.tenants["globex"], **kwargs))
    agentcore = [s for s in acme["Statement"] if "bedrock-agentcore" in str(s["Action"])]
    assert {s["Resource"] for s in agentcore} == {ARN} and len(agentcore) == 3
    assert "bedrock-agentcore" not in str(globex)
