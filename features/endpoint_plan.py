"""Everything config and the enabled features decide about one tenant's endpoint, before any CDK.

`endpoint_plan` folds the features' endpoint hooks (features/tenant_feature.py) over the endpoint's own
settings, environment values and role inputs. Three callers, one result: the tenant stack (refs are CDK
tokens; the streaming endpoint's props carry the plan), `akb policy` (placeholders) and the limits
`akb validate` and synth check (features/endpoint_limits.py: each ref at its longest).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from contract.env_vars import FeatureValues, endpoint_environment
from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from contract.settings import TenantSettings
from features.endpoint_settings import tenant_settings
from features.registry import FEATURES, Features, enabled_features
from features.review_context import ReviewContext
from features.tenant_feature import EndpointInputs, FeatureRef, TenantScope
from policies.endpoint_role import WILDCARD_REASONS, EndpointRoleInputs, inputs_for
from schema.front_door import FrontDoor

# The longest value a deploy-time id can resolve to (Lambda's 4 KB environment check, features/endpoint_limits.py).
KB_ID_LENGTH = 10
GUARDRAIL_ID_LENGTH = 12
VERSION_LENGTH = 5
INSTRUCTION_ID_LENGTH = 12
OTHER_TOKEN_LENGTH = 100  # an ARN
PAGE_TOKEN_KEY_LENGTH = 36  # the UUID of a CloudFormation stack id (cdk_constructs/streaming_endpoint.py)


@dataclass(frozen=True)
class EndpointPlan:
    """The endpoint's settings, the features' environment values, its role's inputs (the features'
    statements included), the reason of every wildcard that role may hold (by Sid), and the longest value
    of each id in the settings (CDK tokens at synth: the 4 KB check)."""

    settings: TenantSettings
    values: FeatureValues
    role: EndpointRoleInputs
    wildcard_reasons: Mapping[str, str]
    token_lengths: Mapping[str, int]

    def variables(self, front_door: FrontDoor, page_token_key: str) -> dict[str, str]:
        """The function's environment (contract/env_vars.py names every variable); `page_token_key` seals
        nextToken (the stack passes its stack id's UUID, lambdas/endpoint/page_tokens.py)."""
        return endpoint_environment(
            self.settings,
            features=self.values,
            request_contexts=front_door.request_contexts,
            page_token_key=page_token_key,
        )


def endpoint_plan(
    scope: TenantScope,
    *,
    knowledge_bases: Sequence[KnowledgeBaseRef],
    log_group_arn: str,
    guardrail: GuardrailRef | None = None,
    retrieval_instruction: RetrievalInstructionRef | None = None,
    refs: Mapping[str, FeatureRef] | None = None,
    features: Features = FEATURES,
) -> EndpointPlan:
    """`refs`: what the features built before the endpoint, by feature name (features/registry.py)."""
    refs = refs or {}
    inputs = EndpointInputs(scope, tuple(kb.knowledge_base_arn for kb in knowledge_bases), refs)
    enabled = enabled_features(scope, features)
    values = FeatureValues()
    for feature in enabled:
        values = feature.endpoint_values(inputs, values)
    contributed = [feature.endpoint_statements(inputs) for feature in enabled]
    role = inputs_for(
        scope.environment,
        scope.tenant,
        knowledge_base_arns=inputs.knowledge_base_arns,
        log_group_arn=log_group_arn,
        guardrail_arn=guardrail.guardrail_arn if guardrail else None,
        feature_statements=[statement for part in contributed for statement in part.statements],
    )
    settings = tenant_settings(
        scope.project,
        scope.tenant_name,
        knowledge_bases=knowledge_bases,
        guardrail=guardrail,
        retrieval_instruction=retrieval_instruction,
        refs=refs,
        features=features,
    )
    return EndpointPlan(
        settings=settings,
        values=values,
        role=role,
        wildcard_reasons={
            **WILDCARD_REASONS,
            **{k: v for part in contributed for k, v in part.wildcard_reasons.items()},
        },
        token_lengths={
            **reference_lengths(knowledge_bases, guardrail, retrieval_instruction),
            **{ref.id: ref.id_max_length for ref in refs.values() if ref.id_max_length},
        },
    )


def reference_lengths(
    knowledge_bases: Sequence[KnowledgeBaseRef],
    guardrail: GuardrailRef | None,
    retrieval_instruction: RetrievalInstructionRef | None,
) -> dict[str, int]:
    """id (a token at synth) -> the longest value it resolves to at deploy time."""
    lengths = {kb.knowledge_base_id: KB_ID_LENGTH for kb in knowledge_bases}
    if guardrail:
        lengths |= {guardrail.guardrail_id: GUARDRAIL_ID_LENGTH, guardrail.guardrail_version: VERSION_LENGTH}
    if retrieval_instruction:
        lengths |= {
            retrieval_instruction.instruction_id: INSTRUCTION_ID_LENGTH,
            retrieval_instruction.version: VERSION_LENGTH,
        }
    return lengths


def planned_refs(review: ReviewContext, features: Features = FEATURES) -> dict[str, FeatureRef]:
    """Before deploy: each enabled feature's ref with placeholders (`akb policy`), by feature name."""
    refs = {feature.name: feature.planned_ref(review) for feature in enabled_features(review.scope, features)}
    return {name: ref for name, ref in refs.items() if ref is not None}
