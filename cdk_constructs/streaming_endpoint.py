"""One tenant's streaming endpoint: a Python function behind the Lambda Web Adapter and an IAM-only URL.

The Python managed runtime cannot stream a response (docs/facts-and-decisions.md, Lambda),
so the function runs the ASGI app under the Lambda Web Adapter layer in `response_stream` mode and
is reached through a function URL with `InvokeMode.RESPONSE_STREAM`. The URL's auth type is
`AWS_IAM`, always: callers are the tenant's configured invokers (resource-based permissions) and
roles that attach the tenant's invoke policy. https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from cdk_constructs import endpoint_front_door as front_doors
from cdk_constructs.api_front_door import ApiFrontDoor
from cdk_constructs.endpoint_bundling import endpoint_code
from cdk_constructs.log_group import log_group as new_log_group
from cdk_constructs.nag_checks import acknowledge_wildcards
from cdk_constructs.stack_outputs import publish
from contract.resource_names import (
    WEB_ADAPTER_ACCOUNT,
    WEB_ADAPTER_LAYER,
    api_access_log_group_name,
    api_name,
    endpoint_function_name,
    invoke_policy_name,
)
from features.endpoint_limits import (
    ENVIRONMENT_LIMIT_BYTES,
    environment_size_message,
    function_name_message,
    worst_case_size,
)
from features.endpoint_plan import PAGE_TOKEN_KEY_LENGTH, EndpointPlan
from features.tenant_feature import TenantScope
from policies.api_invoker import api_invoker_policy
from policies.endpoint_role import endpoint_role_policy
from policies.invoker import invoker_policy, url_permissions
from schema import Environment
from schema.front_door import FrontDoor
from schema.front_door_checks import tenant_front_door

__all__ = ["ENVIRONMENT_LIMIT_BYTES", "StreamingEndpoint", "StreamingEndpointProps", "worst_case_size"]

# The newest Python runtime aws-cdk-lib 2.275 knows (cdk-nag L1 asks for the latest); arm64 wheels.
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
HANDLER = "lambdas/run.sh"  # executed by the adapter's /opt/bootstrap; it execs uvicorn
# The environment size, function name and adapter variables: endpoint_limits.py (CDK-free, so
# `akb validate` checks the same limits before any synth).


@dataclass(frozen=True)
class StreamingEndpointProps:
    """What one tenant's endpoint is built from (`for_tenant` derives it from config and the plan).

    - env_name, tenant_name: in the function's name (`akb-<env>-<tenant>-endpoint`), descriptions and
      SSM paths.
    - environment: the environment's config: `endpoint:` (memory, timeout, adapter layer version) and
      the log groups' retention and key (docs/configuration.md).
    - front_door: the tenant's merged front door (schema/front_door.py): function URL (the default) or
      API Gateway, VPC, SnapStart (docs/front-door.md).
    - plan: settings, the features' environment values and the role's inputs (features/endpoint_plan.py);
      its settings name at least one knowledge base, the only ones the role can retrieve from.
    - invokers: IAM ARNs given resource-based permissions to call; default none.
    - reserved_concurrency: the function's reserved concurrency; default none (unreserved).
    """

    env_name: str
    tenant_name: str
    environment: Environment
    front_door: FrontDoor
    plan: EndpointPlan
    invokers: tuple[str, ...] = ()
    reserved_concurrency: int | None = None

    @classmethod
    def for_tenant(cls, scope: TenantScope, plan: EndpointPlan) -> StreamingEndpointProps:
        tenant = scope.tenant
        return cls(
            env_name=scope.env_name,
            tenant_name=scope.tenant_name,
            environment=scope.environment,
            front_door=tenant_front_door(scope.environment, tenant),
            plan=plan,
            invokers=tuple(invoker.arn for invoker in tenant.invokers),
            reserved_concurrency=tenant.reserved_concurrency,
        )


class StreamingEndpoint(Construct):
    """The tenant's endpoint function, its execution role, its front door (IAM-only streaming URL, or the
    REST API of cdk_constructs/api_front_door.py) and invoke grants.

    :param props: StreamingEndpointProps.
    :param log_group: where the function logs (created by the stack with the environment's retention).
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, props: StreamingEndpointProps, log_group: logs.ILogGroup
    ):
        super().__init__(scope, construct_id)
        if not props.plan.settings.retrievers:
            raise ValueError(f"{self.node.path}: pass at least one knowledge base (the tenant's)")
        self.props = props
        self.tenant_name = props.tenant_name
        self.front_door = props.front_door  # how callers reach the function; the default changes nothing below
        self.settings = props.plan.settings
        self.token_lengths = dict(props.plan.token_lengths)
        environment_variables = self._environment_variables()
        self.role = self._build_role()
        self.function = self._build_function(log_group, environment_variables)
        front_doors.attach_vpc(self.function, self.front_door)
        self.target = front_doors.invoked_target(self.function, self.front_door)  # function, or SnapStart alias
        self.function_url = self._build_function_url() if self.front_door.uses_function_url else None
        self.api = self._build_api() if self.front_door.uses_api else None
        self.invoke_policy = self._build_invoke_policy()
        self._build_outputs()

    def _build_function_url(self) -> lambda_.FunctionUrl:
        # AWS_IAM, always: there is no setting for NONE (a public URL) anywhere in this project.
        url = self.target.add_function_url(
            auth_type=lambda_.FunctionUrlAuthType.AWS_IAM, invoke_mode=lambda_.InvokeMode.RESPONSE_STREAM
        )
        for invoker in self.props.invokers:
            self._permit(invoker)
        return url

    def _build_api(self) -> ApiFrontDoor:
        """The REST API front door (cdk_constructs/api_front_door.py) with its own access log group."""
        props = self.props
        access_logs = new_log_group(
            self,
            "ApiAccessLogs",
            environment=props.environment,
            name=api_access_log_group_name(props.env_name, self.tenant_name),
        )
        return ApiFrontDoor(
            self,
            "Api",
            target=self.target,
            options=self.front_door.api_gateway,
            invokers=list(props.invokers),
            access_logs=access_logs,
            timeout_seconds=props.environment.endpoint.timeout_seconds,
            name=api_name(props.env_name, self.tenant_name),
            tenant=self.tenant_name,
        )

    def _environment_variables(self) -> dict[str, str]:
        """The adapter's settings and the tenant's, checked against Lambda's 4 KB at their worst case."""
        # The key that seals nextToken to its request: the UUID CloudFormation put in this stack's id, shared
        # by every container, in no template or config, no new resource (lambdas/endpoint/page_tokens.py).
        page_token_key = cdk.Fn.select(2, cdk.Fn.split("/", cdk.Aws.STACK_ID))
        self.token_lengths[page_token_key] = PAGE_TOKEN_KEY_LENGTH
        environment_variables = self.props.plan.variables(self.front_door, page_token_key)
        where = f"{self.node.path} (tenant {self.tenant_name})"
        check_environment_size(environment_variables, self.token_lengths, where=where)
        return environment_variables

    def _build_role(self) -> iam.Role:
        """Our own role with only our document (policies/endpoint_role.py, the features' statements
        included): no AWSLambdaBasicExecutionRole, no CDK-added grants."""
        plan = self.props.plan
        role_policy = endpoint_role_policy(plan.role)
        role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Endpoint of tenant {self.tenant_name} ({self.props.env_name}): its own knowledge bases only",
            inline_policies={
                "endpoint": iam.PolicyDocument.from_json(role_policy),
                **front_doors.extra_role_policies(self.front_door),  # VPC network interfaces, when attached
            },
        )
        acknowledge_wildcards(role, role_policy, dict(plan.wildcard_reasons))
        front_doors.acknowledge_vpc_wildcard(role, self.front_door)
        return role

    def _build_function(self, log_group: logs.ILogGroup, environment_variables: Mapping[str, str]) -> lambda_.Function:
        props = self.props
        function_name = endpoint_function_name(props.env_name, self.tenant_name)
        name_problem = function_name_message(function_name)
        if name_problem:
            raise ValueError(f"{self.node.path}: {name_problem}")
        settings = props.environment.endpoint
        adapter_arn = web_adapter_layer_arn(cdk.Stack.of(self), settings.web_adapter_layer_version)
        # A synchronous streaming request has no asynchronous retry to catch: a DLQ would stay empty.
        # Tracing is off: the request trace is in the logs (every planner step), X-Ray would add `*`.
        return lambda_.Function(
            self,
            "Function",
            function_name=function_name,
            description=f"Agentic retrieval endpoint, tenant {self.tenant_name} ({props.env_name})",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=HANDLER,
            code=endpoint_code(RUNTIME),
            memory_size=settings.memory_mb,
            timeout=cdk.Duration.seconds(settings.timeout_seconds),
            reserved_concurrent_executions=props.reserved_concurrency,
            role=self.role,
            log_group=log_group,
            layers=[lambda_.LayerVersion.from_layer_version_arn(self, "WebAdapter", adapter_arn)],
            environment=dict(environment_variables),
            # No VPC by default: function URLs of functions in a VPC do not stream (facts-and-decisions, Lambda);
            # `vpc` (api_gateway front door only) attaches it afterwards (endpoint_front_door.attach_vpc).
            snap_start=front_doors.snap_start(self.front_door),  # on published versions, or unset
        )

    def _build_invoke_policy(self) -> iam.ManagedPolicy:
        """Same-account roles attach this instead of copying statements (policies/invoker.py, api_invoker.py):
        the URL's two actions on the invoked target and/or execute-api:Invoke on the API's two methods."""
        documents = []
        if self.function_url is not None:
            documents.append(invoker_policy(self.target.function_arn))
        if self.api is not None:
            documents.append(api_invoker_policy(self.api.method_arns))
        env_name = self.props.env_name
        return iam.ManagedPolicy(
            self,
            "InvokePolicy",
            managed_policy_name=invoke_policy_name(env_name, self.tenant_name),
            description=f"Call the agentic retrieval endpoint of tenant {self.tenant_name} ({env_name})",
            document=iam.PolicyDocument.from_json(front_doors.merged_policy(*documents)),
        )

    def _build_outputs(self) -> None:
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
            publish(stack, self.props.env_name, self.tenant_name, path, value, description)

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


def check_environment_size(variables: Mapping[str, str], lengths: Mapping[str, int], *, where: str) -> None:
    size = worst_case_size(variables, lengths)
    if size > ENVIRONMENT_LIMIT_BYTES:
        raise ValueError(f"{where}: {environment_size_message(variables, size)}")
