"""The endpoint function's execution role: exactly what one tenant's endpoint needs, nothing of another's.

Actions and scopes follow the AWS page for agentic retrieval
(https://docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html; docs/facts-and-decisions.md).
Three statements use `Resource: "*"`, each because the action cannot be scoped (the reason is the
statement's Sid and the comment next to it). There is deliberately no "deny unless
bedrock:GuardrailIdentifier" statement: AWS documents that it breaks the service's internal model
calls (docs/facts-and-decisions.md, IAM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contract import metric_names
from policies.document import PolicyDocument, Statement, allow, document
from policies.model_access import model_statements

if TYPE_CHECKING:
    from schema import Environment, Tenant

# Namespaces the role may publish metrics to: Bedrock's KB metrics of non-Retrieve operations are
# published with the caller's credentials (docs/facts-and-decisions.md), and the endpoint's own EMF metrics.
METRIC_NAMESPACES = (metric_names.BEDROCK_KB_NAMESPACE, metric_names.NAMESPACE)

_AGENTIC = "https://docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html"
_PROFILES = "https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html"
# Why each statement that holds a wildcard resource needs it, keyed by Sid. The stack acknowledges
# cdk-nag IAM5 finding by finding with these, and refuses a wildcard that has no entry here.
_THROUGH_PROFILE = (
    "a cross-region inference profile runs its model in any region of its geography, so the "
    "foundation-model ARN has region *; the bedrock:InferenceProfileArn condition pins it to the "
    f"configured profile ({_PROFILES})"
)
WILDCARD_REASONS: dict[str, str] = {
    "AgenticRetrieveStreamCannotBeScopedToAResource": (
        f"bedrock:AgenticRetrieveStream cannot be scoped to a resource ({_AGENTIC}); the knowledge "
        "bases it can reach are bounded by the Retrieve/GetDocumentContent statement"
    ),
    "ManagedPlannerModelIsChosenByBedrockSoNoResourceScope": (
        f"the MANAGED planner's model is chosen by Bedrock and not named to the caller ({_AGENTIC})"
    ),
    "RerankIsDocumentedWithoutAResourceScope": (
        "bedrock:Rerank is documented without a resource; only InvokeModel is scoped to the "
        "reranking model (https://docs.aws.amazon.com/bedrock/latest/userguide/rerank-prereq.html)"
    ),
    "PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces": (
        "cloudwatch:PutMetricData has no resource-level permissions; the cloudwatch:namespace "
        "condition limits it "
        "(https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html)"
    ),
    "InvokeTheCustomPlannerModelThroughProfile": _THROUGH_PROFILE,
    "InvokeTheCustomRerankingModelThroughProfile": _THROUGH_PROFILE,
    "WriteTheEndpointsOwnLogGroup": (
        "log streams are named at run time by Lambda; :* covers the streams of the endpoint's own "
        "log group only (log-group ARN with :* for stream actions: "
        "https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/iam-access-control-overview-cwl.html)"
    ),
}


@dataclass(frozen=True)
class EndpointRoleInputs:
    """Everything the policy depends on. Values may be CDK tokens or `<placeholders>`: never parsed,
    except model ARNs (from config, always literal)."""

    knowledge_base_arns: Sequence[str]
    log_group_arn: str  # `arn:...:log-group:<name>` without the trailing `:*`
    planner_type: str = "MANAGED"
    planner_model_arn: str | None = None
    reranking_type: str | None = None
    reranking_model_arn: str | None = None
    guardrail_arn: str | None = None
    kms_key_arns: Sequence[str] = ()
    # What the tenant's opt-in features add (their table, their memory: features/registry.py), after the
    # role's own statements; each wildcard among them has its reason in the feature's policy module.
    feature_statements: Sequence[Statement] = ()


def inputs_for(
    environment: Environment,
    tenant: Tenant,
    *,
    knowledge_base_arns: Sequence[str],
    log_group_arn: str,
    guardrail_arn: str | None,
    feature_statements: Sequence[Statement] = (),
) -> EndpointRoleInputs:
    """The config half of the inputs (models, KMS keys); the caller supplies the deployed ARNs and the
    statements of the tenant's features (features/endpoint_plan.py)."""
    keys = [kb.kms_key_arn for kb in tenant.knowledge_bases if kb.kms_key_arn]
    if tenant.guardrail is not None and tenant.guardrail.kms_key_arn:
        keys.append(tenant.guardrail.kms_key_arn)
    return EndpointRoleInputs(
        knowledge_base_arns=tuple(knowledge_base_arns),
        log_group_arn=log_group_arn,
        planner_type=environment.planner.type,
        planner_model_arn=environment.planner.model_arn,
        reranking_type=environment.reranking.type,
        reranking_model_arn=environment.reranking.model_arn,
        guardrail_arn=guardrail_arn,
        kms_key_arns=tuple(dict.fromkeys(keys)),
        feature_statements=tuple(feature_statements),
    )


def endpoint_role_policy(inputs: EndpointRoleInputs) -> PolicyDocument:
    if not inputs.knowledge_base_arns:
        raise ValueError("the endpoint role needs at least one knowledge base ARN")
    statements: list[Statement] = [
        # AgenticRetrieveStream cannot be scoped to a resource (AWS docs: kb-test-agentic-retrieve);
        # what it can reach is bounded by the Retrieve/GetDocumentContent statement below.
        # GetDocumentContent "requires both bedrock:Retrieve and bedrock:GetDocumentContent IAM actions
        # on the knowledge base resource" (AWS docs: kb-test-get-document-content).
        allow("AgenticRetrieveStreamCannotBeScopedToAResource", ["bedrock:AgenticRetrieveStream"], "*"),
        allow(
            "RetrieveFromTheTenantsKnowledgeBasesOnly",
            ["bedrock:Retrieve", "bedrock:GetDocumentContent"],
            inputs.knowledge_base_arns,
        ),
        *_planner(inputs),
        *_reranking(inputs),
    ]
    if inputs.guardrail_arn:
        statements.append(
            allow("ApplyTheTenantsGuardrail", ["bedrock:GetGuardrail", "bedrock:ApplyGuardrail"], inputs.guardrail_arn)
        )
    statements.append(
        # PutMetricData has no resource-level permissions
        # (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html);
        # the namespace condition is the only scope there is.
        allow(
            "PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces",
            ["cloudwatch:PutMetricData"],
            "*",
            condition={"StringEquals": {"cloudwatch:namespace": list(METRIC_NAMESPACES)}},
        )
    )
    statements.append(
        allow(
            "WriteTheEndpointsOwnLogGroup",
            ["logs:CreateLogStream", "logs:PutLogEvents"],
            [inputs.log_group_arn, f"{inputs.log_group_arn}:*"],
        )
    )
    statements.extend(inputs.feature_statements)
    if inputs.kms_key_arns:
        # Guardrail users need kms:Decrypt on its customer managed key
        # (https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-permissions-kms.html).
        statements.append(allow("DecryptWithTheTenantsConfiguredKeys", ["kms:Decrypt"], inputs.kms_key_arns))
    return document(statements)


def model_statements_for(inputs: EndpointRoleInputs) -> list[Statement]:
    """The planner and reranker statements alone: any role that calls AgenticRetrieveStream needs them
    (the endpoint's, and the MCP gateway's in policies/gateway_role.py)."""
    return [*_planner(inputs), *_reranking(inputs)]


def _planner(inputs: EndpointRoleInputs) -> list[Statement]:
    actions = ["bedrock:InvokeModelWithResponseStream"]
    if inputs.planner_type == "MANAGED":
        # The managed planner's model is chosen by Bedrock and not named to the caller (kb-test-agentic-retrieve).
        return [allow("ManagedPlannerModelIsChosenByBedrockSoNoResourceScope", actions, "*")]
    if not inputs.planner_model_arn:
        raise ValueError("a CUSTOM planner needs planner_model_arn")
    return model_statements("InvokeTheCustomPlannerModel", actions, inputs.planner_model_arn)


def _reranking(inputs: EndpointRoleInputs) -> list[Statement]:
    """A CUSTOM reranker: what rerank-prereq.html documents for reranking inside Retrieve.

    https://docs.aws.amazon.com/bedrock/latest/userguide/rerank-prereq.html lists bedrock:Rerank and
    bedrock:InvokeModel "optionally scoped to the reranking models". Whether AgenticRetrieveStream needs
    the same is UNVERIFIED (the agentic page names no reranking permissions). MANAGED and NONE need nothing.
    """
    if inputs.reranking_type != "CUSTOM":
        return []
    if not inputs.reranking_model_arn:
        raise ValueError("CUSTOM reranking needs reranking_model_arn")
    return [
        # rerank-prereq.html scopes only InvokeModel to the model; bedrock:Rerank is documented unscoped.
        allow("RerankIsDocumentedWithoutAResourceScope", ["bedrock:Rerank"], "*"),
        *model_statements("InvokeTheCustomRerankingModel", ["bedrock:InvokeModel"], inputs.reranking_model_arn),
    ]
