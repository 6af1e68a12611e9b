"""The Bedrock agent's service role, its trust policy, and what the tenant's invokers may do with the agent.

Least privilege (Bedrock user guide agents-permissions): the role may invoke the agent's own
foundation model only (through an inference profile: the profile, and its model pinned to that
profile: model_access.py), and apply the tenant's guardrail. Bedrock assumes it only on behalf of
this account's agents: trust conditioned on aws:SourceAccount and aws:SourceArn (`agent/*` of the
account and region: the agent's id exists only after its role, so naming it would be a cycle).
The action-group function's role is the endpoint's policy (endpoint_role.py), not a new one.
"""

from __future__ import annotations

from policies.document import PolicyDocument, Statement, allow, document
from policies.model_access import model_statements

BEDROCK_SERVICE = "bedrock.amazonaws.com"
# InvokeModel and its streaming form: agents call the orchestration model either way.
MODEL_ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")


def agent_trust_policy(account: str, agent_arn: str) -> PolicyDocument:
    """Only Bedrock, only for this account's agent (confused-deputy protection)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "BedrockAssumesThisRoleForThisAgentOnly",
                "Effect": "Allow",
                "Principal": {"Service": BEDROCK_SERVICE},
                "Action": "sts:AssumeRole",
                "Condition": {
                    "StringEquals": {"aws:SourceAccount": account},
                    "ArnLike": {"aws:SourceArn": agent_arn},
                },
            }
        ],
    }


def agent_role_policy(model_arn: str, guardrail_arn: str | None) -> PolicyDocument:
    statements: list[Statement] = model_statements("InvokeTheAgentsOwnModel", list(MODEL_ACTIONS), model_arn)
    if guardrail_arn:
        statements.append(allow("ApplyTheTenantsGuardrail", ["bedrock:ApplyGuardrail"], guardrail_arn))
    return document(statements)


def agent_invoker_policy(alias_arn: str) -> PolicyDocument:
    """bedrock:InvokeAgent on the tenant's agent alias, nothing else (an alias ARN names its agent)."""
    return document([allow("InvokeTheTenantsAgentAlias", ["bedrock:InvokeAgent"], alias_arn)])


# Why a statement's resource holds a wildcard (cdk-nag IAM5 acknowledgements), keyed by Sid.
WILDCARD_REASONS: dict[str, str] = {
    "InvokeTheAgentsOwnModelThroughProfile": (
        "a cross-region inference profile runs its model in any region of its geography, so the "
        "foundation-model ARN has region *; bedrock:InferenceProfileArn pins it to the agent's profile "
        "(https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html)"
    ),
}
