"""What `akb verify` may do in an environment's account: read what it checks, and ask the canary question.

The promotion pipeline runs `akb verify` after each stage as the stage's `smoke_role_arn`
(docs/pipeline.md); attach this document to that role (`python -m policies.verify_role --env prod`
prints it). Read-mostly: the only calls that do something are the canary requests through each door.
Each statement's Sid says its purpose; each `*` has its reason in VERIFY_WILDCARD_REASONS. Resource
types per action: cfn-lint's copy of the IAM service reference (`data/AdditionalSpecs/Policies.json`).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from contract.resource_names import ingestion_log_group_name, platform_stack_name, resource_prefix
from policies.document import PolicyDocument, allow, document

VERIFY_WILDCARD_REASONS = {
    "IdentifyTheAccount": "sts:GetCallerIdentity has no resource type",
    "ReadMetricsAndAlarms": "ListMetrics and GetMetricData read metrics, which have no ARN, and DescribeAlarms is "
    "called with a name prefix, which no alarm-ARN pattern is documented to match; all read-only",
    "FindTheIngestionLogDeliveries": "DescribeDeliverySources and DescribeDeliveries have no resource type",
}


@dataclass(frozen=True)
class VerifyScope:
    """The environment verify checks: where it is and what it is called."""

    partition: str
    region: str
    account: str
    env_name: str

    def arn(self, service: str, resource: str) -> str:
        return f"arn:{self.partition}:{service}:{self.region}:{self.account}:{resource}"


def verify_role_policy(scope: VerifyScope) -> PolicyDocument:
    """The identity policy of the role `akb verify` runs as in one environment."""
    env, prefix = scope.env_name, resource_prefix(scope.env_name)
    return document(
        [
            allow("IdentifyTheAccount", ["sts:GetCallerIdentity"], "*"),
            allow("ReadTheEnvironmentsParameters", ["ssm:GetParameter"], scope.arn("ssm", f"parameter/akb/{env}/*")),
            allow(
                "ReadMetricsAndAlarms",
                ["cloudwatch:ListMetrics", "cloudwatch:GetMetricData", "cloudwatch:DescribeAlarms"],
                "*",
            ),
            # CloudFormation names the platform stack's topic <stack>-<logical id>-<suffix>.
            allow("ReadTheAlarmTopics", ["sns:GetTopicAttributes"], scope.arn("sns", f"{platform_stack_name(env)}-*")),
            # Key ids are generated; the key's own policy must also allow it (KMS key policies decide).
            allow("ReadTheAlarmTopicKeyPolicy", ["kms:GetKeyPolicy"], scope.arn("kms", "key/*")),
            allow("FindTheIngestionLogDeliveries", ["logs:DescribeDeliverySources", "logs:DescribeDeliveries"], "*"),
            allow(
                "ReadTheIngestionLogs",
                ["logs:FilterLogEvents"],
                scope.arn("logs", f"log-group:{ingestion_log_group_name(env, '*')}"),
            ),
            allow("ListIngestionJobs", ["bedrock:ListIngestionJobs"], scope.arn("bedrock", "knowledge-base/*")),
            *_canary_statements(scope, prefix),
        ]
    )


def _canary_statements(scope: VerifyScope, prefix: str) -> list[dict]:
    """The canary calls: the endpoints (function URL or API), the MCP gateways, the agents of this environment."""
    endpoints = scope.arn("lambda", f"function:{prefix}-*-endpoint")
    return [
        allow(
            "AskTheEndpointsThroughTheirUrls",
            ["lambda:InvokeFunctionUrl"],
            endpoints,
            {"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}},
        ),
        allow(
            "InvokeTheEndpointsOnlyThroughTheirUrls",
            ["lambda:InvokeFunction"],
            endpoints,
            {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}},
        ),
        # API ids are generated, and a wildcard may not stand for an ARN's first resource segment (IAM user
        # guide, reference-arns, "Incorrect wildcard usage"): any API of the account in the region. Each
        # tenant's API admits only its invokers (its resource policy), so list the role as one.
        allow("AskTheApiFrontDoors", ["execute-api:Invoke"], scope.arn("execute-api", "*")),
        allow(
            "AskTheMcpGateways",
            ["bedrock-agentcore:InvokeGateway"],
            scope.arn("bedrock-agentcore", f"gateway/{prefix}-*"),
        ),
        # Agent and alias ids are generated.
        allow("AskTheAgents", ["bedrock:InvokeAgent"], scope.arn("bedrock", "agent-alias/*/*")),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Print the identity policy of the role akb verify runs as.")
    parser.add_argument("--env", default="dev")
    parser.add_argument("--config", default="config")
    parser.add_argument("--partition", default="aws")
    args = parser.parse_args(argv)
    from schema import load_project

    environment = load_project(args.config, args.env).environment
    scope = VerifyScope(args.partition, environment.region, environment.account or "<account>", args.env)
    print(json.dumps(verify_role_policy(scope), indent=2))


if __name__ == "__main__":
    main()
