"""The agent's `live` alias moves to a new version whenever the agent's definition changes (fault 3): its
description carries a hash of the agent's resolved properties, so CloudFormation updates the alias (and
Bedrock makes a version) exactly when the definition differs; an unchanged agent leaves the alias alone."""

from __future__ import annotations

import functools

import pytest

from cdk_constructs.bedrock_agent import TenantAgent, TenantAgentProps
from contract.resource_refs import GuardrailRef, KnowledgeBaseRef
from features.agent_feature import agent_props
from features.endpoint_plan import endpoint_plan
from features.review_context import ReviewContext
from tests.cdk_constructs.probe import example_project, probe_stack, resources, template_of

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _props(**agent_updates) -> TenantAgentProps:
    """The example globex agent's props (features/agent_feature.py's `agent_props`) over an endpoint plan
    with made-up deploy-time ids: the construct alone synthesizes in a fraction of the tenant stack's time."""
    review = ReviewContext.of(example_project(), "globex")
    scope = review.scope
    kb_arns = review.knowledge_base_arns
    kbs = [
        KnowledgeBaseRef(kb.alias, kb.description, f"kb{kb.alias}", kb_arns[kb.alias])
        for kb in scope.tenant.knowledge_bases
    ]
    guardrail = GuardrailRef("gr1example", review.arn("bedrock", "guardrail/gr1example"), "1")
    plan = endpoint_plan(scope, knowledge_bases=kbs, log_group_arn=review.endpoint_log_group_arn, guardrail=guardrail)
    assert scope.tenant.agent is not None
    return agent_props(
        scope,
        scope.tenant.agent.model_copy(update=agent_updates),
        knowledge_base_arns=list(kb_arns.values()),
        guardrail=guardrail,
        settings=plan.settings,
        token_lengths=plan.token_lengths,
    )


def _alias_and_agent(**agent_updates) -> tuple[str, dict]:
    stack = probe_stack()
    TenantAgent(stack, "Agent", props=_props(**agent_updates))
    template = template_of(stack)
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
