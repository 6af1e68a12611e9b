"""A tenant's retrieval as MCP tools: an Amazon Bedrock AgentCore Gateway in front of the managed KB connector.

Resources (all L1: aws-cdk-lib has no connector helper): the gateway (`ProtocolType MCP`, authorizer
AWS_IAM or CUSTOM_JWT, one REQUEST interceptor), its execution role, connector targets
(`bedrock-knowledge-bases`: `ask___AgenticRetrieveStream` over every knowledge base and, when the
tenant allows it, `search-<alias>___Retrieve` per knowledge base), a rate limit per caller, the
interceptor function (same Docker-free bundle as the endpoint, other handler) with its own role and
log group, invoke grants, outputs and SSM parameters. The target's parameter values are the request
the endpoint itself would send (`lambdas.endpoint.modes.agentic.build_request`), minus what a caller
chooses; the interceptor enforces the rest. Shapes and sources: docs/facts-and-decisions.md, MCP gateway.
https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/gateway-target-connector-managed-kb.html
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from cdk_constructs.endpoint_bundling import endpoint_code
from cdk_constructs.log_group import log_group, log_group_arn
from cdk_constructs.nag_checks import acknowledge_wildcards
from cdk_constructs.stack_outputs import publish
from cdk_constructs.streaming_endpoint import ARCHITECTURE, RUNTIME
from contract.env_vars import GATEWAY_SETTINGS, LOG_SERVICE
from contract.resource_refs import KnowledgeBaseRef
from contract.settings import TenantSettings
from lambdas.endpoint.modes.agentic import build_request
from lambdas.endpoint.request import Query
from lambdas.gateway_interceptor.gateway_settings import AGENTIC, RETRIEVE, GatewaySettings
from policies.endpoint_role import EndpointRoleInputs
from policies.gateway_role import (
    GATEWAY_WILDCARD_REASONS,
    GatewayRoleInputs,
    gateway_invoker_policy,
    gateway_resource_policy,
    gateway_role_policy,
    gateway_trust_policy,
    interceptor_role_policy,
)
from schema import Environment
from schema.gateway_config import McpGateway

CONNECTOR_ID = "bedrock-knowledge-bases"
ASK_TARGET = "ask"
SEARCH_TARGET_PREFIX = "search-"
TOOL_SEPARATOR = "___"  # AgentCore names a target's tools `<target>___<tool>`
INTERCEPTOR_HANDLER = "lambdas.gateway_interceptor.interceptor.handler"
INTERCEPTOR_SERVICE = "akb-gateway-interceptor"
GATEWAY_NAME_LIMIT = 48  # AWS::BedrockAgentCore::Gateway Name: ^([0-9a-zA-Z][-]?){1,48}$
DESCRIPTION_LIMIT = 200  # Gateway and GatewayTarget Description: at most 200 characters


def tool_names(config: McpGateway, aliases: Sequence[str]) -> dict[str, str]:
    """MCP tool name -> connector tool, as agents see them in tools/list."""
    tools = {f"{ASK_TARGET}{TOOL_SEPARATOR}{AGENTIC}": AGENTIC}
    if config.retrieve_tool:
        tools.update({f"{SEARCH_TARGET_PREFIX}{alias}{TOOL_SEPARATOR}{RETRIEVE}": RETRIEVE for alias in aliases})
    return tools


def gateway_name(env_name: str, tenant: str) -> str:
    """`akb-<env>-<tenant>` with hyphen runs collapsed, as the gateway's name pattern requires."""
    name = re.sub("-+", "-", f"akb-{env_name}-{tenant}")
    if len(name) > GATEWAY_NAME_LIMIT:
        raise ValueError(f"gateway name '{name}' is over {GATEWAY_NAME_LIMIT} characters: shorten env or tenant")
    return name


def agentic_parameter_values(settings: TenantSettings) -> dict[str, Any]:
    """The target's fixed AgenticRetrieveStream parameters: the endpoint's own request for the tenant's
    defaults, without the conversation (the caller's). The guardrail stays where the API takes it, the
    request's top-level `policyConfiguration.bedrockGuardrailConfiguration` (botocore bedrock-agent-runtime;
    `AgenticRetrieveConfiguration` has no policyConfiguration member): docs/facts-and-decisions.md, fact 7."""
    query = Query(
        messages=(("user", "-"),),
        knowledge_bases=tuple(r.alias for r in settings.retrievers),
        generate_response=settings.generate_response,
        max_agent_iteration=settings.max_agent_iteration,
        max_results=settings.max_results,
        filter=None,
        mode="agentic",
        user_id=None,
    )
    values = build_request(query, settings, None)
    del values["messages"]
    return values


def _override(path: str, description: str) -> dict[str, Any]:
    return {"path": path, "visible": True, "description": description}


USER_CONTEXT_OVERRIDE = _override(
    "$.userContext", "Set by the gateway from your verified identity; naming a user is refused unless you are trusted."
)
AGENTIC_OVERRIDES = [
    _override("$.messages", "The conversation; the last message is the question."),
    USER_CONTEXT_OVERRIDE,
]
SEARCH = "$.retrievalConfiguration.managedSearchConfiguration"
RETRIEVE_OVERRIDES = [
    _override("$.retrievalQuery.text", "The search query."),
    _override(f"{SEARCH}.numberOfResults", "Number of results (capped by the tenant)."),
    _override(f"{SEARCH}.filter", "Metadata filter (exactly one operator)."),
    USER_CONTEXT_OVERRIDE,
]


@dataclass(frozen=True)
class McpGatewayProps:
    """What one tenant's MCP gateway is built from (features/gateway_feature.py derives it from config).

    - env_name, tenant_name: in the gateway's name (`akb-<env>-<tenant>`), descriptions and SSM paths.
    - config: the tenant's `gateway:` block (authorizer, JWT, retrieve tool, rate limit; docs/agents.md).
    - environment: the environment's config (the interceptor log group's retention and key).
    - settings: the endpoint's settings without conversations: retrievers, caps, guardrail and
      user_context become the targets' fixed parameters and the interceptor's rules.
    - knowledge_bases: the tenant's knowledge bases (at least one); the gateway reaches these and no other.
    - models: the endpoint role's inputs (planner, reranker, guardrail, KMS keys) for the same call.
    - log_group_name: the interceptor's log group (created here).
    - invokers: IAM callers the gateway's resource policy admits (AWS_IAM authorizer); default none.
    """

    env_name: str
    tenant_name: str
    config: McpGateway
    environment: Environment
    settings: TenantSettings
    knowledge_bases: tuple[KnowledgeBaseRef, ...]
    models: EndpointRoleInputs
    log_group_name: str
    invokers: tuple[str, ...] = ()


class McpGatewayConstruct(Construct):
    """The tenant's AgentCore Gateway, its targets, interceptor, roles, rate limit and invoke grants.

    :param props: McpGatewayProps.
    """

    def __init__(self, scope: Construct, construct_id: str, *, props: McpGatewayProps):
        super().__init__(scope, construct_id)
        if not props.knowledge_bases:
            raise ValueError(f"{self.node.path}: tenant {props.tenant_name} needs at least one knowledge base")
        self.props, self.tenant_name, self.config = props, props.tenant_name, props.config
        self.settings = props.settings
        self.tools = tool_names(self.config, [kb.alias for kb in props.knowledge_bases])
        self.log_group = log_group(self, "InterceptorLogs", environment=props.environment, name=props.log_group_name)
        self.interceptor = self._build_interceptor(self.log_group)
        self.role = self._build_role()
        self.gateway = self._build_gateway()
        self.targets = self._build_targets()
        self.rate_limit = self._build_rate_limit()
        self.invoke_policy = self._build_invoke_grants()
        self._build_outputs()

    # --- resources ---------------------------------------------------------------------------

    def _build_interceptor(self, log_group: logs.ILogGroup) -> lambda_.Function:
        jwt = self.config.jwt
        settings = GatewaySettings(
            tenant=self.tenant_name,
            environment=self.props.env_name,
            authorizer=self.config.authorizer,
            user_context=self.settings.user_context,
            tools=self.tools,
            max_results=self.settings.max_results,
            max_agent_iteration=self.settings.max_agent_iteration,
            trusted_callers=list(jwt.trusted_clients) if jwt else [],
            user_claim=jwt.user_claim if jwt else "sub",
            client_claim=jwt.client_claim if jwt else "client_id",
        )
        policy = interceptor_role_policy(log_group_arn(log_group))
        role = iam.Role(
            self,
            "InterceptorRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"MCP gateway interceptor of tenant {self.tenant_name}: writes its own logs only",
            inline_policies={"interceptor": iam.PolicyDocument.from_json(policy)},
        )
        acknowledge_wildcards(role, policy, GATEWAY_WILDCARD_REASONS)
        return lambda_.Function(
            self,
            "Interceptor",
            description=f"MCP gateway REQUEST interceptor, tenant {self.tenant_name} ({self.props.env_name})",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=INTERCEPTOR_HANDLER,
            code=endpoint_code(RUNTIME),  # the endpoint's bundle: one identity module for both doors
            memory_size=256,
            timeout=cdk.Duration.seconds(10),
            role=role,
            log_group=log_group,
            environment={GATEWAY_SETTINGS: settings.to_json(), LOG_SERVICE: INTERCEPTOR_SERVICE},
            # Invoked synchronously by the gateway: no async retries, so a DLQ would stay empty.
        )

    def _build_role(self) -> iam.Role:
        stack = cdk.Stack.of(self)
        arns = [kb.knowledge_base_arn for kb in self.props.knowledge_bases]
        policy = gateway_role_policy(GatewayRoleInputs(arns, self.interceptor.function_arn, self.props.models))
        role = iam.Role(
            self,
            "GatewayRole",
            assumed_by=iam.ServicePrincipal("bedrock-agentcore.amazonaws.com"),
            description=f"MCP gateway of tenant {self.tenant_name}: its own knowledge bases and interceptor only",
            inline_policies={"gateway": iam.PolicyDocument.from_json(policy)},
        )
        trust = gateway_trust_policy(stack.partition, stack.region, stack.account)
        role.node.default_child.add_property_override("AssumeRolePolicyDocument", trust)  # type: ignore[union-attr]
        acknowledge_wildcards(role, policy, GATEWAY_WILDCARD_REASONS)
        return role

    def _build_gateway(self) -> agentcore.CfnGateway:
        jwt = self.config.jwt
        authorizer = None
        if jwt is not None:
            authorizer = agentcore.CfnGateway.AuthorizerConfigurationProperty(
                custom_jwt_authorizer=agentcore.CfnGateway.CustomJWTAuthorizerConfigurationProperty(
                    discovery_url=jwt.discovery_url,
                    allowed_clients=list(jwt.allowed_clients),
                    allowed_audience=list(jwt.allowed_audience) if jwt.allowed_audience else None,
                )
            )
        interceptor = agentcore.CfnGateway.GatewayInterceptorConfigurationProperty(
            interception_points=["REQUEST"],
            interceptor=agentcore.CfnGateway.InterceptorConfigurationProperty(
                lambda_=agentcore.CfnGateway.LambdaInterceptorConfigurationProperty(arn=self.interceptor.function_arn)
            ),
            # Headers only for CUSTOM_JWT: the interceptor reads the token the authorizer verified.
            input_configuration=agentcore.CfnGateway.InterceptorInputConfigurationProperty(
                pass_request_headers=jwt is not None
            ),
        )
        gateway = agentcore.CfnGateway(
            self,
            "Gateway",
            name=gateway_name(self.props.env_name, self.tenant_name),
            description=_short(f"Knowledge of tenant {self.tenant_name} as MCP tools ({self.props.env_name})"),
            authorizer_type=self.config.authorizer,
            authorizer_configuration=authorizer,
            protocol_type="MCP",
            role_arn=self.role.role_arn,
            interceptor_configurations=[interceptor],
        )
        return gateway

    def _build_targets(self) -> list[agentcore.CfnGatewayTarget]:
        kb_list = ", ".join(r.alias for r in self.settings.retrievers)
        targets = [
            self._target(
                ASK_TARGET,
                f"Agentic retrieval over {kb_list}: planned searches and a cited answer",
                {"name": AGENTIC, "parameterValues": agentic_parameter_values(self.settings),
                 "parameterOverrides": AGENTIC_OVERRIDES},
            )
        ]  # fmt: skip
        if self.config.retrieve_tool:
            for retriever in self.settings.retrievers:
                values = {
                    "knowledgeBaseId": retriever.knowledge_base_id,
                    "retrievalConfiguration": {
                        "managedSearchConfiguration": {"numberOfResults": self.settings.max_results}
                    },
                }
                targets.append(
                    self._target(
                        f"{SEARCH_TARGET_PREFIX}{retriever.alias}",
                        f"One search of {retriever.alias}: {retriever.description}",
                        {"name": RETRIEVE, "parameterValues": values, "parameterOverrides": RETRIEVE_OVERRIDES},
                    )
                )
        return targets

    def _target(self, name: str, description: str, configuration: dict[str, Any]) -> agentcore.CfnGatewayTarget:
        target = agentcore.CfnGatewayTarget(
            self,
            "".join(part.capitalize() for part in f"target-{name}".split("-")),
            gateway_identifier=self.gateway.attr_gateway_identifier,
            name=name,
            description=_short(description),
            target_configuration={
                "mcp": {
                    "connector": {
                        "source": {"connectorId": CONNECTOR_ID},
                        "enabled": [configuration["name"]],
                        "configurations": [configuration],
                    }
                }
            },
            credential_provider_configurations=[
                agentcore.CfnGatewayTarget.CredentialProviderConfigurationProperty(
                    credential_provider_type="GATEWAY_IAM_ROLE"
                )
            ],
        )
        return target

    def _build_rate_limit(self) -> agentcore.CfnGatewayRateLimit:
        jwt = self.config.jwt
        key = f"$.context.jwt.{jwt.user_claim}" if jwt else "$.context.iam.principal"
        return agentcore.CfnGatewayRateLimit(
            self,
            "RateLimitPerCaller",
            gateway_identifier=self.gateway.attr_gateway_identifier,
            dimension_keys=[key],
            description=f"{self.config.requests_per_minute} requests per minute per caller ({key})",
            entries=[
                agentcore.CfnGatewayRateLimit.LimitEntryProperty(
                    dimensions={key: "*"},
                    requests=[
                        agentcore.CfnGatewayRateLimit.RateConfigProperty(
                            period="minute", rate=self.config.requests_per_minute
                        )
                    ],
                )
            ],
        )

    def _build_invoke_grants(self) -> iam.ManagedPolicy | None:
        if self.config.authorizer != "AWS_IAM":
            return None  # CUSTOM_JWT: callers present tokens; IAM plays no part in who may call
        stack, env_name = cdk.Stack.of(self), self.props.env_name
        arn = self.gateway.attr_gateway_arn
        if self.props.invokers:
            agentcore.CfnResourcePolicy(
                self,
                "InvokersMayInvoke",
                resource_arn=arn,
                policy=stack.to_json_string(gateway_resource_policy(arn, list(self.props.invokers))),
            )
        return iam.ManagedPolicy(
            self,
            "InvokePolicy",
            managed_policy_name=f"{gateway_name(env_name, self.tenant_name)}-mcp-invoke",
            description=f"Call the MCP gateway of tenant {self.tenant_name} ({env_name})",
            document=iam.PolicyDocument.from_json(gateway_invoker_policy(arn)),
        )

    def _build_outputs(self) -> None:
        stack, env_name, tenant = cdk.Stack.of(self), self.props.env_name, self.tenant_name
        publish(stack, env_name, tenant, "gateway/url", self.gateway.attr_gateway_url, "MCP gateway URL")
        publish(stack, env_name, tenant, "gateway/id", self.gateway.attr_gateway_identifier, "MCP gateway id")
        if self.invoke_policy is not None:
            publish(
                stack, env_name, tenant, "gateway/invoke-policy-arn", self.invoke_policy.managed_policy_arn,
                "Managed policy a calling role attaches to invoke the MCP gateway",
            )  # fmt: skip

    # --- metrics (the tenant's dashboard reads AgentCore's: monitoring/gateway_monitoring.py) -------------

    def metric_interceptor_errors(self, **props: Any) -> cloudwatch.Metric:
        return self.interceptor.metric_errors(**props)


def _short(text: str) -> str:
    return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 3].rstrip() + "..."
