"""The `api_gateway` front door: a REST API per tenant that streams the endpoint's response.

One REST API per tenant, not one per environment with a path per tenant: throttling, WAF, custom
domain, private access and the resource policy are per API/stage, so a per-tenant API gives each
tenant its own limits and its own blast radius, and isolation stays "by construction" as in the rest
of the tenant stack (docs/front-door.md).

- Two methods, `POST /v1/query` and `GET /healthz`, each a Lambda proxy integration with response
  transfer mode STREAM (aws-cdk-lib `ResponseTransferMode.STREAM` switches the integration URI to
  `.../2021-11-15/functions/<arn>/response-streaming-invocations`) and AuthorizationType AWS_IAM.
  https://docs.aws.amazon.com/apigateway/latest/developerguide/response-transfer-mode.html
- Endpoint type REGIONAL (an edge-optimized API's streaming idle timeout is 30 s, a regional one's
  5 min; same page), or PRIVATE with `private.vpc_endpoint_ids`.
- Stage `api` with throttling (rate, burst) and JSON access logs in their own log group, keyed like
  the endpoint's own records (contract/log_fields.py).
- Callers: `invoke_policy` (execute-api:Invoke on exactly the two methods, policies/api_invoker.py)
  and, for invokers of other accounts or private APIs, the API's resource policy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as targets
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from cdk_constructs.nag_checks import acknowledge
from contract import log_fields as lf
from policies.api_invoker import METHODS, api_invoker_policy, api_resource_policy, method_resource
from schema.front_door import ApiGatewayOptions, CustomDomain

STAGE = "api"  # the URL is https://<api-id>.execute-api.<region>.amazonaws.com/api/ (custom domain: its root)
# Integration timeout: with STREAM up to 15 minutes (response-transfer-mode page); the function's own timeout.
MAX_STREAM_SECONDS = 900


def access_log_format(tenant: str) -> str:
    """One JSON object per request; the keys the endpoint's records use where they mean the same thing."""
    fields = {
        lf.CORRELATION_ID: "$context.requestId",
        lf.TENANT: tenant,
        lf.CALLER: "$context.identity.userArn",
        lf.EVENT: "access",
        lf.STATUS: "$context.status",
        lf.DURATION_MS: "$context.responseLatency",
        "integration_latency_ms": "$context.integrationLatency",
        "method": "$context.httpMethod",
        "path": "$context.resourcePath",
        "source_ip": "$context.identity.sourceIp",
        "vpc_endpoint": "$context.identity.vpceId",
        "waf_status": "$context.waf.status",
        "error": "$context.error.message",
        "integration_error": "$context.integration.error",
    }
    return json.dumps(fields, separators=(",", ":"))


class ApiFrontDoor(Construct):
    """A tenant's REST API in front of `target` (the function or its SnapStart alias).

    Props: target; options (schema/front_door.ApiGatewayOptions, defaults there); invokers (IAM ARNs
    the resource policy allows; same-account roles may instead attach `invoke_policy`); access_logs
    (the log group, created by the caller with the environment's retention and key); timeout_seconds
    (the function's); name (API name); account_principal (this account, for private APIs' policy).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        target: lambda_.IFunction,
        options: ApiGatewayOptions,
        invokers: Sequence[str],
        access_logs: logs.ILogGroup,
        timeout_seconds: int,
        name: str,
        tenant: str,
    ):
        super().__init__(scope, construct_id)
        if timeout_seconds > MAX_STREAM_SECONDS:
            raise ValueError(f"{self.node.path}: a streamed integration lasts at most {MAX_STREAM_SECONDS} s")
        self.options = options
        self.api = self._build_api(name, invokers, access_logs, tenant)
        self._build_methods(target, timeout_seconds)
        self.method_arns = [self.api.arn_for_execute_api(method, path, STAGE) for method, path in METHODS]
        self.domain = self._build_domain(options.custom_domain) if options.custom_domain else None
        if options.web_acl_arn:
            wafv2.CfnWebACLAssociation(
                self, "WebAcl", resource_arn=self.api.deployment_stage.stage_arn, web_acl_arn=options.web_acl_arn
            )
        self._acknowledge()

    @property
    def url(self) -> str:
        """What callers use: the custom domain when there is one (the execute-api URL is then disabled)."""
        if self.options.custom_domain is not None:
            return f"https://{self.options.custom_domain.domain_name}/"
        return self.api.url

    def invoke_policy_document(self) -> iam.PolicyDocument:
        return iam.PolicyDocument.from_json(api_invoker_policy(self.method_arns))

    def _build_api(self, name: str, invokers: Sequence[str], access_logs: logs.ILogGroup, tenant: str) -> apigw.RestApi:
        throttling = self.options.throttling
        return apigw.RestApi(
            self,
            "Api",
            rest_api_name=name,
            description=f"Agentic retrieval endpoint of tenant {tenant} (streaming, AWS_IAM)",
            endpoint_configuration=self._endpoint_configuration(),
            policy=self._resource_policy(invokers),
            cloud_watch_role=False,  # account-wide setting; access logs need none (see _acknowledge)
            # With a custom domain the default execute-api URL is off, so WAF and TLS policy cannot be bypassed.
            disable_execute_api_endpoint=self.options.custom_domain is not None,
            deploy_options=apigw.StageOptions(
                stage_name=STAGE,
                throttling_rate_limit=throttling.rate_limit,
                throttling_burst_limit=throttling.burst_limit,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.custom(access_log_format(tenant)),
            ),
        )

    def _endpoint_configuration(self) -> apigw.EndpointConfiguration:
        private = self.options.private
        if private is None:
            return apigw.EndpointConfiguration(types=[apigw.EndpointType.REGIONAL])
        endpoints = [
            ec2.InterfaceVpcEndpoint.from_interface_vpc_endpoint_attributes(
                self, f"Vpce{index}", vpc_endpoint_id=endpoint_id, port=443
            )
            for index, endpoint_id in enumerate(private.vpc_endpoint_ids)
        ]
        return apigw.EndpointConfiguration(types=[apigw.EndpointType.PRIVATE], vpc_endpoints=endpoints)

    def _resource_policy(self, invokers: Sequence[str]) -> iam.PolicyDocument | None:
        """None for a regional API without invokers (same-account roles need only the identity policy)."""
        private = self.options.private
        principals = list(invokers)
        if private is not None:
            # A private API needs a resource policy; the account principal delegates to its identity policies.
            principals.append(cdk.Stack.of(self).format_arn(service="iam", region="", resource="root"))
        if not principals:
            return None
        resources = [method_resource(STAGE, method, path) for method, path in METHODS]
        document = api_resource_policy(resources, principals, private.vpc_endpoint_ids if private else ())
        return iam.PolicyDocument.from_json(document)

    def _build_methods(self, target: lambda_.IFunction, timeout_seconds: int) -> None:
        integration = apigw.LambdaIntegration(
            target,
            proxy=True,
            response_transfer_mode=apigw.ResponseTransferMode.STREAM,
            timeout=cdk.Duration.seconds(timeout_seconds),
        )
        for method, path in METHODS:
            resource = self.api.root
            for part in path.strip("/").split("/"):
                resource = resource.get_resource(part) or resource.add_resource(part)
            resource.add_method(method, integration, authorization_type=apigw.AuthorizationType.IAM)

    def _build_domain(self, domain: CustomDomain) -> apigw.DomainName:
        name = apigw.DomainName(
            self,
            "Domain",
            domain_name=domain.domain_name,
            certificate=acm.Certificate.from_certificate_arn(self, "Certificate", domain.certificate_arn),
            endpoint_type=apigw.EndpointType.REGIONAL,
            security_policy=apigw.SecurityPolicy.TLS_1_2,
            mapping=self.api,
        )
        if domain.hosted_zone_id and domain.hosted_zone_name:
            zone = route53.HostedZone.from_hosted_zone_attributes(
                self, "Zone", hosted_zone_id=domain.hosted_zone_id, zone_name=domain.hosted_zone_name
            )
            route53.ARecord(
                self,
                "Alias",
                zone=zone,
                record_name=domain.domain_name,
                target=route53.RecordTarget.from_alias(targets.ApiGatewayDomain(name)),
            )
        return name

    def _acknowledge(self) -> None:
        stage = self.api.deployment_stage
        acknowledge(
            self.api,
            "APIG2",
            "the endpoint validates every request body itself and answers a stable 4xx JSON error "
            "(lambdas/endpoint/request.py); an API Gateway model would be a second, drifting copy",
        )
        acknowledge(
            self.api,
            "COG4",
            "methods use AuthorizationType AWS_IAM (SigV4, execute-api:Invoke on exactly these methods); "
            "the callers are IAM principals, not Cognito users",
        )
        acknowledge(
            stage,
            "APIG6",
            "execution logging needs the account-wide API Gateway CloudWatch role (AWS::ApiGateway::Account), "
            "which one tenant stack must not change; access logs are on and the function logs every request",
        )
        if not self.options.web_acl_arn:
            acknowledge(
                stage,
                "APIG3",
                "WAF is opt-in (endpoint.api_gateway.web_acl_arn): every method already requires a SigV4 "
                "signature from an allowed IAM principal and the stage is throttled",
            )
