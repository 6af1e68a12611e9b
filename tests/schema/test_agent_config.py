"""`agent:` in a tenant file: bounds from cfn-lint/botocore, and identity modes the agent can honour."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from schema.agent_config import Agent
from schema.tenant import Tenant

MODEL = "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-lite-v1:0"


def _tenant(**extra) -> dict:
    return {
        "description": "t",
        "knowledge_bases": [{"alias": "docs", "description": "Docs", "sources": [{"type": "s3", "prefix": "docs/"}]}],
        "guardrail": "none",
        **extra,
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("instruction", "too short"),
        ("instruction", "x" * 4001),
        ("idle_session_ttl_seconds", 59),
        ("idle_session_ttl_seconds", 5401),
    ],
)
def test_agent_values_outside_the_service_bounds_are_refused(field, value):
    with pytest.raises(ValidationError) as raised:
        Agent(foundation_model=MODEL, **{field: value})
    assert field in str(raised.value)


def test_agent_with_user_context_caller_is_refused_naming_why():
    data = _tenant(
        agent={"foundation_model": MODEL},
        user_context="caller",
        invokers=[{"arn": "arn:aws:iam::123456789012:user/alice"}],
    )
    with pytest.raises(ValidationError) as raised:
        Tenant.model_validate(data)
    assert "cannot see the IAM caller" in str(raised.value)


def test_agent_is_off_unless_set():
    assert Tenant.model_validate(_tenant()).agent is None
