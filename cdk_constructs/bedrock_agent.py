"""A tenant's Agents for Amazon Bedrock agent: its action group runs agentic retrieval.

Resources: the action-group function (the endpoint's package and settings, another handler:
lambdas/agent_action/action_handler.py) with its own log group and role (the endpoint's policy
builder: same knowledge bases, guardrail, planner; no cache), the agent's service role, the
`AWS::Bedrock::Agent` (foundation model, instruction, idle session TTL, the tenant's guardrail,
AutoPrepare, one action group with a function-details schema), an `AWS::Bedrock::AgentAlias`,
the function's resource policy for Bedrock, a managed policy allowing bedrock:InvokeAgent on the
alias, and the ids as outputs + SSM parameters.

No API creates an agent version by itself: Bedrock makes one when an alias is created or updated, and
an alias whose properties do not change keeps its version (docs/facts-and-decisions.md, Issue 25,
fault 3). So the alias's description carries a hash of the agent's resolved definition (instruction,
model, guardrail version, action group, ...): any change to it updates the alias, which moves `live`
to a new version of the (auto-prepared) DRAFT. Properties: cfn-lint's schemas of
AWS::Bedrock::Agent / AgentAlias (ledger in docs/facts-and-decisions.md).
https://docs.aws.amazon.com/bedrock/latest/userguide/agents.html
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import aws_cdk as cdk
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from cdk_constructs.endpoint_bundling import endpoint_code
from cdk_constructs.guardrail import properties_hash
from cdk_constructs.log_group import log_group, log_group_arn
from cdk_constructs.nag_checks import acknowledge_wildcards
from cdk_constructs.stack_outputs import publish
from cdk_constructs.streaming_endpoint import ARCHITECTURE, RUNTIME, check_environment_size
from contract.env_vars import AGENT_RESPONSE_MAX_BYTES, TENANT_SETTINGS
from contract.resource_names import agent_function_name, bounded_name, resource_prefix
from contract.resource_refs import GuardrailRef
from contract.settings import TenantSettings
from lambdas.agent_action import action_contract as contract
from policies import agent_role, endpoint_role
from policies.agent_role import agent_invoker_policy, agent_role_policy, agent_trust_policy
from policies.endpoint_role import EndpointRoleInputs, endpoint_role_policy
from schema import Environment
from schema.agent_config import Agent

HANDLER = "lambdas.agent_action.action_handler.lambda_handler"
ALIAS_NAME = "live"


@dataclass(frozen=True)
class TenantAgentProps:
    """What one tenant's agent is built from (features/agent_feature.py derives it from config).

    - env_name, tenant_name: in names (`akb-<env>-<tenant>-agent`), descriptions and SSM paths.
    - config: the tenant's `agent:` block (model, instruction, session TTL, function size; docs/agents.md).
    - environment: the environment's config (the function log group's retention and key).
    - settings: the endpoint's TenantSettings (same retrievers, guardrail, instruction, caps, identity).
    - token_lengths: the longest value of each token in `settings` (Lambda's 4 KB environment check).
    - function_role: the endpoint role's inputs without the features' statements (same knowledge bases,
      guardrail, planner; no cache); its log group becomes the function's own here.
    - guardrail: the tenant's guardrail (the agent's and the function's ApplyGuardrail); default none.
    - invoker_roles: same-account roles the invoke policy is attached to; default none.
    """

    env_name: str
    tenant_name: str
    config: Agent
    environment: Environment
    settings: TenantSettings
    token_lengths: Mapping[str, int]
    function_role: EndpointRoleInputs
    guardrail: GuardrailRef | None = None
    invoker_roles: tuple[str, ...] = ()


class TenantAgent(Construct):
    """The tenant's agent, its alias, its action-group function and the grants between them.

    :param props: TenantAgentProps.
    """

    def __init__(self, scope: Construct, construct_id: str, *, props: TenantAgentProps):
        super().__init__(scope, construct_id)
        self.props = props
        self.config = props.config
        self.tenant_name = props.tenant_name
        self._prefix = resource_prefix(props.env_name, props.tenant_name)
        self._env_name = props.env_name
        self.log_group = log_group(
            self, "FunctionLogs", environment=props.environment, name=f"/aws/lambda/{self._function_name}"
        )
        self.function_role = self._build_function_role()
        self.function = self._build_function(props.settings, props.token_lengths)
        self.agent_role = self._build_agent_role(props.guardrail)
        self.agent = self._build_agent(props.guardrail)
        self.alias = bedrock.CfnAgentAlias(
            self,
            "Alias",
            agent_id=self.agent.attr_agent_id,
            agent_alias_name=ALIAS_NAME,
            description=f"Callers' alias of the {props.tenant_name} agent ({props.env_name}); "
            f"definition {definition_digest(self.agent)}",
        )
        self._permit_bedrock()
        self.invoke_policy = self._build_invoke_policy()
        self._build_outputs()

    @property
    def _function_name(self) -> str:
        return agent_function_name(self._env_name, self.tenant_name)

    def _build_function_role(self) -> iam.Role:
        """The endpoint's policy builder with this function's log group: same reach, no cache table."""
        policy = endpoint_role_policy(replace(self.props.function_role, log_group_arn=log_group_arn(self.log_group)))
        role = iam.Role(
            self,
            "FunctionRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Agent action group of tenant {self.tenant_name}: its own knowledge bases only",
            inline_policies={"agent-action": iam.PolicyDocument.from_json(policy)},
        )
        acknowledge_wildcards(role, policy, endpoint_role.WILDCARD_REASONS)
        return role

    def _build_function(self, settings: TenantSettings, token_lengths: Mapping[str, int]) -> lambda_.Function:
        variables = {TENANT_SETTINGS: settings.to_json(), AGENT_RESPONSE_MAX_BYTES: str(self.config.response_max_bytes)}
        check_environment_size(variables, token_lengths, where=f"{self.node.path} (tenant {self.tenant_name})")
        # Invoked synchronously by Bedrock only (no asynchronous retries for a DLQ to catch); no VPC:
        # it reaches only Bedrock and CloudWatch Logs, like the endpoint.
        return lambda_.Function(
            self,
            "Function",
            function_name=self._function_name,
            description=f"search_knowledge action of the {self.tenant_name} agent",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=HANDLER,
            code=endpoint_code(RUNTIME),  # the endpoint's asset: one bundle, lambdas/ + locked dependencies
            memory_size=self.config.memory_mb,
            timeout=cdk.Duration.seconds(self.config.timeout_seconds),
            role=self.function_role,
            log_group=self.log_group,
            environment=variables,
        )

    def _build_agent_role(self, guardrail: GuardrailRef | None) -> iam.Role:
        stack = cdk.Stack.of(self)
        # The agent's id exists only once the agent does, and the agent needs this role first: the
        # trust names the account's agents (agent/*) plus aws:SourceAccount (AWS docs agents-permissions).
        agents_arn = stack.format_arn(service="bedrock", resource="agent", resource_name="*")
        trust = agent_trust_policy(stack.account, agents_arn)
        policy = agent_role_policy(self.config.foundation_model, guardrail.guardrail_arn if guardrail else None)
        role = iam.Role(
            self,
            "AgentRole",
            assumed_by=iam.ServicePrincipal("bedrock.amazonaws.com"),
            description=f"Service role of the {self.tenant_name} agent: its model and guardrail only",
            inline_policies={"agent": iam.PolicyDocument.from_json(policy)},
        )
        _restrict_trust(role, trust)
        acknowledge_wildcards(role, policy, agent_role.WILDCARD_REASONS)
        return role

    def _build_agent(self, guardrail: GuardrailRef | None) -> bedrock.CfnAgent:
        config = self.config
        parameters = {
            name: bedrock.CfnAgent.ParameterDetailProperty(
                type=detail["type"], description=detail["description"], required=detail["required"]
            )
            for name, detail in contract.PARAMETERS.items()
        }
        action_group = bedrock.CfnAgent.AgentActionGroupProperty(
            action_group_name=contract.ACTION_GROUP_NAME,
            description="Agentic retrieval over the tenant's knowledge bases",
            action_group_executor=bedrock.CfnAgent.ActionGroupExecutorProperty(lambda_=self.function.function_arn),
            action_group_state="ENABLED",
            function_schema=bedrock.CfnAgent.FunctionSchemaProperty(
                functions=[
                    bedrock.CfnAgent.FunctionProperty(
                        name=contract.FUNCTION_NAME, description=contract.FUNCTION_DESCRIPTION, parameters=parameters
                    )
                ]
            ),
        )
        return bedrock.CfnAgent(
            self,
            "Agent",
            agent_name=bounded_name(f"{self._prefix}-agent", 100),
            description=config.description,
            foundation_model=config.foundation_model,
            instruction=config.instruction,
            idle_session_ttl_in_seconds=config.idle_session_ttl_seconds,
            agent_resource_role_arn=self.agent_role.role_arn,
            auto_prepare=True,  # the DRAFT is prepared on every change, so the alias can take a version
            guardrail_configuration=bedrock.CfnAgent.GuardrailConfigurationProperty(
                guardrail_identifier=guardrail.guardrail_id, guardrail_version=guardrail.guardrail_version
            )
            if guardrail
            else None,
            action_groups=[action_group],
        )

    def _permit_bedrock(self) -> None:
        """Bedrock may invoke the function for this agent of this account only (agents-permissions)."""
        self.function.add_permission(
            "BedrockAgentInvoke",
            principal=iam.ServicePrincipal("bedrock.amazonaws.com"),
            action="lambda:InvokeFunction",
            source_account=cdk.Stack.of(self).account,
            source_arn=self.agent.attr_agent_arn,
        )

    def _build_invoke_policy(self) -> iam.ManagedPolicy:
        """bedrock:InvokeAgent on the alias, attached to `invoker_roles` (the feature picks the tenant's
        same-account invokers that may call it)."""
        roles = [
            iam.Role.from_role_arn(self, f"Invoker{index}", arn, mutable=True)
            for index, arn in enumerate(self.props.invoker_roles)
        ]
        return iam.ManagedPolicy(
            self,
            "InvokePolicy",
            managed_policy_name=bounded_name(f"{self._prefix}-agent-invoke", 128),
            description=f"Invoke the {self.tenant_name} agent's alias ({self._env_name})",
            document=iam.PolicyDocument.from_json(agent_invoker_policy(self.alias.attr_agent_alias_arn)),
            roles=roles or None,
        )

    def _build_outputs(self) -> None:
        stack = cdk.Stack.of(self)
        for key, value, description in (
            ("agent/id", self.agent.attr_agent_id, "Bedrock agent id (akb ask --agent)"),
            ("agent/alias-id", self.alias.attr_agent_alias_id, "Bedrock agent alias id callers invoke"),
            ("agent/alias-arn", self.alias.attr_agent_alias_arn, "Agent alias ARN (bedrock:InvokeAgent resource)"),
            ("agent/invoke-policy-arn", self.invoke_policy.managed_policy_arn, "Managed policy a caller attaches"),
            ("agent/function-name", self.function.function_name, "Action-group function (logs, metrics)"),
        ):
            publish(stack, self._env_name, self.tenant_name, key, value, description)


def definition_digest(agent: bedrock.CfnAgent) -> str:
    """16 hex digits of a hash of the agent's properties as CloudFormation gets them (tokens resolved to
    their Ref/GetAtt, so a replaced guardrail version, whose logical id follows its content, counts)."""
    resolved = cdk.Stack.of(agent).resolve(agent._cfn_properties)  # the L1's properties (jsii: cfnProperties)
    return properties_hash(resolved)[:16]


def _restrict_trust(role: iam.Role, trust: dict) -> None:
    """Replaces CDK's unconditioned service trust with ours (source account + agent ARN conditions)."""
    cfn_role = role.node.default_child
    if not isinstance(cfn_role, iam.CfnRole):
        raise TypeError(f"{role.node.path}: expected an AWS::IAM::Role underneath")
    cfn_role.assume_role_policy_document = trust


__all__ = ["TenantAgent", "TenantAgentProps"]
