"""What the quality gate may do in an environment's account: ask the gated tenants' endpoints, read their URLs,
read (and, from the pipeline, write) their baselines, and publish its figures in its own namespace — nothing else.

Two roles use these statements (docs/pipeline.md, docs/evaluation.md):
- the promotion pipeline's gate role, one per stage, created in the target account like the smoke role
  (`python -m policies.quality_gate_role --env prod --pipeline-account 111111111111` prints its policy and trust);
- the scheduled gate's role in the tenant stack (cdk_constructs/quality_schedule.py), for one tenant, that reads
  its baseline but never promotes one.
Each statement's Sid says its purpose; the one `*` has its reason in WILDCARD_REASONS. Resource types per action:
cfn-lint's copy of the IAM service reference (`data/AdditionalSpecs/Policies.json`); the ledger has the sources.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass

from contract.metric_names import QUALITY_NAMESPACE
from contract.resource_names import QUALITY_BASELINE_KEY, endpoint_function_name, parameter_name
from policies.document import PolicyDocument, Statement, allow, document
from policies.invoker import AUTH_TYPE
from policies.verify_role import VerifyScope
from schema.quality_pipeline import GatedTenant

URL_KEY = "endpoint/url"  # the parameter client/endpoint_url.py reads
WILDCARD_REASONS = {
    "PublishTheGateFiguresOnly": "cloudwatch:PutMetricData takes no resource in this use; the cloudwatch:namespace "
    "condition holds it to the gate's own namespace (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/"
    "iam-cw-condition-keys-namespace.html)",
    "AskTheGatedApiFrontDoors": "API ids are generated at deploy, and a wildcard may not stand for an ARN's first "
    "resource segment (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html): any API of the account "
    "in the region, as akb verify's role; each tenant's API resource policy admits only its listed invokers",
}


@dataclass(frozen=True)
class GateScope(VerifyScope):
    """Where the gated endpoints are: partition, region, account, environment (like `akb verify`'s scope)."""

    def parameter_arn(self, tenant: str, key: str) -> str:
        # A hierarchical name's ARN is `parameter` + the name (aws-cdk-lib aws-ssm arnForParameterName).
        return self.arn("ssm", "parameter" + parameter_name(self.env_name, tenant, key))


def gate_statements(scope: GateScope, tenants: Sequence[GatedTenant], *, promote: bool) -> list[Statement]:
    """The gate's statements over `tenants`; `promote`: it may also write their baselines (the pipeline)."""
    if not tenants:
        raise ValueError("the gate needs at least one tenant with quality:")
    names = [tenant.name for tenant in tenants]
    functions = [scope.arn("lambda", f"function:{endpoint_function_name(scope.env_name, name)}") for name in names]
    statements = [
        allow("ReadTheGatedEndpointUrls", ["ssm:GetParameter"], [scope.parameter_arn(n, URL_KEY) for n in names]),
        allow(
            "PromoteTheGatedBaselines" if promote else "ReadTheGatedBaselines",
            ["ssm:GetParameter", "ssm:PutParameter"] if promote else ["ssm:GetParameter"],
            [scope.parameter_arn(name, QUALITY_BASELINE_KEY) for name in names],
        ),
        allow(
            "AskTheGatedEndpointsThroughTheirUrls",
            ["lambda:InvokeFunctionUrl"],
            functions,
            {"StringEquals": {"lambda:FunctionUrlAuthType": AUTH_TYPE}},
        ),
        allow(
            "InvokeTheGatedEndpointsOnlyThroughTheirUrls",
            ["lambda:InvokeFunction"],
            functions,
            {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}},
        ),
        allow(
            "PublishTheGateFiguresOnly",
            ["cloudwatch:PutMetricData"],
            "*",
            {"StringEquals": {"cloudwatch:namespace": QUALITY_NAMESPACE}},
        ),
    ]
    if any(tenant.uses_api for tenant in tenants):
        api = scope.arn("execute-api", "*")
        statements.append(allow("AskTheGatedApiFrontDoors", ["execute-api:Invoke"], api))
    return statements


def gate_role_policy(scope: GateScope, tenants: Sequence[GatedTenant]) -> PolicyDocument:
    """The pipeline gate role's identity policy for one stage: every gated tenant, baselines promoted."""
    return document(gate_statements(scope, tenants, promote=True))


def gate_role_trust(principal_arn: str, session_names: Sequence[str]) -> PolicyDocument:
    """Who may assume the gate role, and only under the session names the gated tenants' endpoints take as their
    canary users' ids (user_context caller reads the session name: docs/security.md)."""
    return document(
        [
            {
                "Sid": "TheGateAssumesThisRoleAsTheCanaryUser",
                "Effect": "Allow",
                "Principal": {"AWS": principal_arn},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"sts:RoleSessionName": sorted(set(session_names))}},
            }
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Print the policy and trust of an environment's quality-gate role.")
    parser.add_argument("--env", default="dev")
    parser.add_argument("--config", default="config")
    parser.add_argument("--partition", default="aws")
    parser.add_argument("--pipeline-account", default="<pipeline-account>", help="The tooling account that assumes it.")
    args = parser.parse_args(argv)
    from schema import load_project
    from schema.quality_pipeline import gated_tenants

    project = load_project(args.config, args.env)
    environment, tenants = project.environment, gated_tenants(project)
    scope = GateScope(args.partition, environment.region, environment.account or "<account>", args.env)
    principal = f"arn:{args.partition}:iam::{args.pipeline_account}:root"
    trust = gate_role_trust(principal, [tenant.session_name for tenant in tenants])
    print(json.dumps({"policy": gate_role_policy(scope, tenants), "trust": trust}, indent=2))


if __name__ == "__main__":
    main()
