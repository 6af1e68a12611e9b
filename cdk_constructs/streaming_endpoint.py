"""One tenant's streaming endpoint: a Python function behind the Lambda Web Adapter and an IAM-only URL.

The Python managed runtime cannot stream a response (docs/facts-and-decisions.md, Lambda),
so the function runs the ASGI app under the Lambda Web Adapter layer in `response_stream` mode and
is reached through a function URL with `InvokeMode.RESPONSE_STREAM`. The URL's auth type is
`AWS_IAM`, always: callers are the tenant's configured invokers (resource-based permissions) and
roles that attach the tenant's invoke policy. https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from cdk_constructs import endpoint_front_door as front_doors
from cdk_constructs.agentcore_memory import ConversationMemory
from cdk_constructs.api_front_door import ApiFrontDoor
from cdk_constructs.cache_table import CacheTable
from cdk_constructs.endpoint_bundling import endpoint_code
from cdk_constructs.log_group import log_group as new_log_group
from cdk_constructs.nag_checks import acknowledge_wildcards
from cdk_constructs.stack_outputs import publish
from contract.env_vars import endpoint_environment
from contract.resource_names import (
    WEB_ADAPTER_ACCOUNT,
    WEB_ADAPTER_LAYER,
    api_access_log_group_name,
    api_name,
    endpoint_function_name,
    invoke_policy_name,
)
from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from features.endpoint_limits import (
    ENVIRONMENT_LIMIT_BYTES,
    GUARDRAIL_ID_LENGTH,
    INSTRUCTION_ID_LENGTH,
    KB_ID_LENGTH,
    MEMORY_ID_LENGTH,
    VERSION_LENGTH,
    environment_size_message,
    function_name_message,
    worst_case_size,
)
from features.endpoint_settings import tenant_settings
from policies.api_invoker import api_invoker_policy
from policies.endpoint_role import WILDCARD_REASONS, endpoint_role_policy, inputs_for
from policies.invoker import invoker_policy, url_permissions
from schema import Project
from schema.front_door_checks import tenant_front_door

# The newest Python runtime aws-cdk-lib 2.275 knows (cdk-nag L1 asks for the latest); arm64 wheels.
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
HANDLER = "lambdas/run.sh"  # executed by the adapter's /opt/bootstrap; it execs uvicorn
# The environment size, function name and adapter variables: endpoint_limits.py (CDK-free, so
# `akb validate` checks the same limits before any synth).


class StreamingEndpoint(Construct):
    """The tenant's endpoint function, its execution role, its IAM-only streaming URL and invoke grants.

    Props:
    - project, tenant_name: config (memory, timeout, reserved concurrency, adapter layer version,
      invokers, retrieval caps); see docs/configuration.md.
    - knowledge_bases: the tenant's knowledge bases (at least one); the role can retrieve from
      these and no other.
    - log_group: where the function logs (created by the stack with the environment's retention).
    - guardrail: optional; when given, its id/version go to the service and the role may apply it.
    - retrieval_instruction: optional; its id/version go to the service.
    - cache_table: optional; the result cache's table (its name goes to the service, the role may
      use the tenant's items of it: policies/cache_table.py).
    - memory: optional; the tenant's AgentCore Memory (its id goes to the service, the role may
      restore and write sessions of it: policies/memory_access.py).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        project: Project,
        tenant_name: str,
        knowledge_bases: Sequence[KnowledgeBaseRef],
        log_group: logs.ILogGroup,
        guardrail: GuardrailRef | None = None,
        retrieval_instruction: RetrievalInstructionRef | None = None,
        cache_table: CacheTable | None = None,
        memory: ConversationMemory | None = None,
    ):
        super().__init__(scope, construct_id)
        if not knowledge_bases:
            raise ValueError(f"{self.node.path}: pass at least one knowledge base (the tenant's)")
        self.tenant_name = tenant_name
        self.cache_table = cache_table
        self.memory = memory
        # How callers reach the function (docs/front-door.md); the default changes nothing below.
        self.front_door = tenant_front_door(project.environment, project.tenants[tenant_name])
        self.settings = tenant_settings(
            project,
            tenant_name,
            knowledge_bases=knowledge_bases,
            guardrail=guardrail,
            retrieval_instruction=retrieval_instruction,
            memory_id=memory.memory_id if memory is not None else None,
        )
        lengths = token_lengths(knowledge_bases, guardrail, retrieval_instruction)
        if memory is not None:  # AgentCoreMemoryId: at most 111 characters (botocore)
            lengths[memory.memory_id] = MEMORY_ID_LENGTH
        environment_variables = self._environment_variables(lengths)
        self.role = self._build_role(project, knowledge_bases, log_group, guardrail)
        self.function = self._build_function(project, log_group, environment_variables)
        front_doors.attach_vpc(self.function, self.front_door)
        self.target = front_doors.invoked_target(self.function, self.front_door)  # function, or SnapStart alias
        self.function_url = self._build_function_url(project) if self.front_door.uses_function_url else None
        self.api = self._build_api(project) if self.front_door.uses_api else None
        self.invoke_policy = self._build_invoke_policy(project)
        self._build_outputs(project)

    def _build_function_url(self, project: Project) -> lambda_.FunctionUrl:
        # AWS_IAM, always: there is no setting for NONE (a public URL) anywhere in this project.
        url = self.target.add_function_url(
            auth_type=lambda_.FunctionUrlAuthType.AWS_IAM, invoke_mode=lambda_.InvokeMode.RESPONSE_STREAM
        )
        for invoker in project.tenants[self.tenant_name].invokers:
            self._permit(invoker.arn)
        return url

    def _build_api(self, project: Project) -> ApiFrontDoor:
        """The REST API front door (cdk_constructs/api_front_door.py) with its own access log group."""
        access_logs = new_log_group(
            self,
            "ApiAccessLogs",
            environment=project.environment,
            name=api_access_log_group_name(project.env_name, self.tenant_name),
        )
        return ApiFrontDoor(
            self,
            "Api",
            target=self.target,
            options=self.front_door.api_gateway,
            invokers=[invoker.arn for invoker in project.tenants[self.tenant_name].invokers],
            access_logs=access_logs,
            timeout_seconds=project.environment.endpoint.timeout_seconds,
            name=api_name(project.env_name, self.tenant_name),
            tenant=self.tenant_name,
        )

    def _environment_variables(self, lengths: Mapping[str, int]) -> dict[str, str]:
        """The adapter's settings and the tenant's, checked against Lambda's 4 KB at their worst case."""
        environment_variables = endpoint_environment(
            self.settings,
            cache_table=self.cache_table.physical_name if self.cache_table is not None else None,
            request_contexts=self.front_door.request_contexts,
            snapstart=self.front_door.snapstart,
        )
        check_environment_size(environment_variables, lengths, where=f"{self.node.path} (tenant {self.tenant_name})")
        return environment_variables

    def _build_role(
        self,
        project: Project,
        knowledge_bases: Sequence[KnowledgeBaseRef],
        log_group: logs.ILogGroup,
        guardrail: GuardrailRef | None,
    ) -> iam.Role:
        """Our own role with only our document (policies/endpoint_role.py): no AWSLambdaBasicExecutionRole,
        no CDK-added grants."""
        log_group_arn = cdk.Stack.of(self).format_arn(
            service="logs",
            resource="log-group",
            resource_name=log_group.log_group_name,
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )
        role_policy = endpoint_role_policy(
            inputs_for(
                project.environment,
                project.tenants[self.tenant_name],
                knowledge_base_arns=[kb.knowledge_base_arn for kb in knowledge_bases],
                log_group_arn=log_group_arn,
                guardrail_arn=guardrail.guardrail_arn if guardrail else None,
                cache_table_arn=self.cache_table.table_arn if self.cache_table is not None else None,
                tenant_name=self.tenant_name,
                memory_arn=self.memory.memory_arn if self.memory is not None else None,
            )
        )
        role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Endpoint of tenant {self.tenant_name} ({project.env_name}): its own knowledge bases only",
            inline_policies={
                "endpoint": iam.PolicyDocument.from_json(role_policy),
                **front_doors.extra_role_policies(self.front_door),  # VPC network interfaces, when attached
            },
        )
        acknowledge_wildcards(role, role_policy, WILDCARD_REASONS)
        front_doors.acknowledge_vpc_wildcard(role, self.front_door)
        return role

    def _build_function(
        self, project: Project, log_group: logs.ILogGroup, environment_variables: Mapping[str, str]
    ) -> lambda_.Function:
        function_name = endpoint_function_name(project.env_name, self.tenant_name)
        name_problem = function_name_message(function_name)
        if name_problem:
            raise ValueError(f"{self.node.path}: {name_problem}")
        settings = project.environment.endpoint
        adapter_arn = web_adapter_layer_arn(cdk.Stack.of(self), settings.web_adapter_layer_version)
        # A synchronous streaming request has no asynchronous retry to catch: a DLQ would stay empty.
        # Tracing is off: the request trace is in the logs (every planner step), X-Ray would add `*`.
        return lambda_.Function(
            self,
            "Function",
            function_name=function_name,
            description=f"Agentic retrieval endpoint, tenant {self.tenant_name} ({project.env_name})",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=HANDLER,
            code=endpoint_code(RUNTIME),
            memory_size=settings.memory_mb,
            timeout=cdk.Duration.seconds(settings.timeout_seconds),
            reserved_concurrent_executions=project.tenants[self.tenant_name].reserved_concurrency,
            role=self.role,
            log_group=log_group,
            layers=[lambda_.LayerVersion.from_layer_version_arn(self, "WebAdapter", adapter_arn)],
            environment=dict(environment_variables),
            # No VPC by default: function URLs of functions in a VPC do not stream (facts-and-decisions, Lambda);
            # `vpc` (api_gateway front door only) attaches it afterwards (endpoint_front_door.attach_vpc).
            snap_start=front_doors.snap_start(self.front_door),  # on published versions, or unset
        )

    def _build_invoke_policy(self, project: Project) -> iam.ManagedPolicy:
        """Same-account roles attach this instead of copying statements (policies/invoker.py, api_invoker.py):
        the URL's two actions on the invoked target and/or execute-api:Invoke on the API's two methods."""
        documents = []
        if self.function_url is not None:
            documents.append(invoker_policy(self.target.function_arn))
        if self.api is not None:
            documents.append(api_invoker_policy(self.api.method_arns))
        return iam.ManagedPolicy(
            self,
            "InvokePolicy",
            managed_policy_name=invoke_policy_name(project.env_name, self.tenant_name),
            description=f"Call the agentic retrieval endpoint of tenant {self.tenant_name} ({project.env_name})",
            document=iam.PolicyDocument.from_json(front_doors.merged_policy(*documents)),
        )

    def _build_outputs(self, project: Project) -> None:
        stack = cdk.Stack.of(self)
        outputs = [("endpoint/url", self._url(), "Streaming endpoint URL (IAM-signed requests only)")]
        if self.api is not None and self.function_url is not None:  # migration: both doors open
            outputs.append(("endpoint/function-url", self.function_url.url, "Function URL kept while callers move"))
        for path, value, description in (
            *outputs,
            ("endpoint/function-name", self.function.function_name, "Endpoint function name (logs, metrics)"),
            (
                "endpoint/invoke-policy-arn",
                self.invoke_policy.managed_policy_arn,
                "Managed policy a calling role attaches",
            ),
        ):
            publish(stack, project.env_name, self.tenant_name, path, value, description)

    def _url(self) -> str:
        """The API's URL when there is an API, else the function URL's."""
        if self.api is not None:
            return self.api.url
        if self.function_url is None:
            raise ValueError(f"{self.node.path}: no front door")
        return self.function_url.url

    def _permit(self, principal_arn: str) -> None:
        """Both resource-based permissions a caller (any account) needs for an AWS_IAM URL since 2025-10."""
        suffix = hashlib.sha256(principal_arn.encode()).hexdigest()[:8]
        for permission in url_permissions(principal_arn):
            self.target.add_permission(
                f"{permission.action.removeprefix('lambda:')}{suffix}",
                principal=iam.ArnPrincipal(permission.principal),
                action=permission.action,
                function_url_auth_type=lambda_.FunctionUrlAuthType(permission.function_url_auth_type)
                if permission.function_url_auth_type
                else None,
                invoked_via_function_url=permission.invoked_via_function_url,
            )


def web_adapter_layer_arn(stack: cdk.Stack, version: int) -> str:
    """`arn:<partition>:lambda:<region>:753240598075:layer:LambdaAdapterLayerArm64:<version>`."""
    return stack.format_arn(
        service="lambda",
        account=WEB_ADAPTER_ACCOUNT,
        resource="layer",
        resource_name=f"{WEB_ADAPTER_LAYER}:{version}",
        arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
    )


def token_lengths(
    knowledge_bases: Sequence[KnowledgeBaseRef],
    guardrail: GuardrailRef | None,
    retrieval_instruction: RetrievalInstructionRef | None,
) -> dict[str, int]:
    """token string -> longest value it resolves to at deploy time."""
    lengths = {kb.knowledge_base_id: KB_ID_LENGTH for kb in knowledge_bases}
    if guardrail:
        lengths |= {guardrail.guardrail_id: GUARDRAIL_ID_LENGTH, guardrail.guardrail_version: VERSION_LENGTH}
    if retrieval_instruction:
        lengths |= {
            retrieval_instruction.instruction_id: INSTRUCTION_ID_LENGTH,
            retrieval_instruction.version: VERSION_LENGTH,
        }
    return {token: length for token, length in lengths.items() if cdk.Token.is_unresolved(token)}


def check_environment_size(variables: Mapping[str, str], lengths: Mapping[str, int], *, where: str) -> None:
    size = worst_case_size(variables, lengths)
    if size > ENVIRONMENT_LIMIT_BYTES:
        raise ValueError(f"{where}: {environment_size_message(variables, size)}")
