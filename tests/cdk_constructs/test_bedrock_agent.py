"""The agent's `live` alias moves to a new version whenever the agent's definition changes (fault 3): its
description carries a hash of the agent's resolved properties, so CloudFormation updates the alias (and
Bedrock makes a version) exactly when the definition differs; an unchanged agent leaves the alias alone."""

from __future__ import annotations

import functools

import pytest

from tests.cdk_constructs.probe import example_project, resources, template_of, tenant_stack

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _alias_and_agent(**agent_updates) -> tuple[str, dict]:
    agent = example_project().tenants["globex"].agent.model_copy(update=agent_updates)
    template = template_of(tenant_stack("globex", agent=agent))
    [alias] = resources(template, "AWS::Bedrock::AgentAlias").values()
    [definition] = resources(template, "AWS::Bedrock::Agent").values()
    return alias["Properties"]["Description"], definition["Properties"]


@functools.cache
def _example_alias_and_agent() -> tuple[str, dict]:
    """The example's alias and agent, synthesized once for the module (each synth takes seconds)."""
    return _alias_and_agent()


def test_a_changed_instruction_changes_the_alias_and_the_same_definition_keeps_it():
    original, agent = _example_alias_and_agent()
    again, _ = _alias_and_agent()  # a second synth of the same definition
    changed, changed_agent = _alias_and_agent(instruction=agent["Instruction"] + " Cite every source.")
    assert changed_agent["Instruction"] != agent["Instruction"]
    assert again == original
    assert changed != original and changed.startswith("Callers' alias of the globex agent (dev); definition ")


def test_a_changed_session_ttl_changes_the_alias_too():
    original, agent = _example_alias_and_agent()
    changed, _ = _alias_and_agent(idle_session_ttl_seconds=agent["IdleSessionTTLInSeconds"] + 60)
    assert changed != original
