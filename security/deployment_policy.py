"""The least-privilege CloudFormation execution policy for `cdk bootstrap --cloudformation-execution-policies`.

CDK's bootstrap default is AdministratorAccess. This derives the policy from what the project really
deploys: it synthesizes an environment (or reads a synthesized directory), collects the resource
types of its templates, and takes each type's handler permissions (create, read, update, delete) from
the CloudFormation resource schemas cfn-lint ships (`handlers.<op>.permissions`), plus the one
permissions a schema cannot carry: bedrock:AllowVendedLogDeliveryForResource, which the knowledge
bases' log delivery needs (Bedrock user guide, knowledge-bases-logging), and the three that let CloudWatch
Logs write the destination log group's resource policy when a delivery is created (CloudWatch Logs user
guide, AWS-logs-infrastructure-V2-CloudWatchLogs).

    .venv/bin/python -m security.deployment_policy --env prod --out-dir policy/
    # writes akb-cfn-execution-1.json, -2.json, ...: each fits IAM's 6,144-character managed policy limit

Actions are scoped to the environment's region, except those of global services (IAM, CloudFront,
Route 53, ...): AWS receives every request to them in us-east-1, so aws:RequestedRegion is us-east-1 whatever
the stack's region, and AWS's own region-limiting example exempts them
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_examples_aws_deny-requested-region.html).
Resources are `*` because CloudFormation generates most physical names, so no ARN pattern covers them before
the first deploy (docs/pipeline.md).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path
from typing import Any

# cfn-lint's copy of the CloudFormation registry schemas (a dev dependency, like the scanner's).
SCHEMAS = files("cfnlint.data.schemas")
HANDLER_OPERATIONS = ("create", "read", "update", "delete")
# Not in any resource schema: Bedrock authorizes a DeliverySource on a knowledge base with the first; the
# principal that creates a delivery to a log group needs the other three, so that CloudWatch Logs can write the
# group's resource policy for delivery.logs.amazonaws.com (CloudWatch Logs user guide,
# AWS-logs-infrastructure-V2-CloudWatchLogs, statement AllowUpdatesToResourcePolicyCWL).
EXTRA_ACTIONS = {
    "AWS::Logs::DeliverySource": ("bedrock:AllowVendedLogDeliveryForResource",),
    "AWS::Logs::Delivery": ("logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups"),
}
# Services whose single endpoint is in us-east-1, so their requests carry aws:RequestedRegion = us-east-1: the
# NotAction list of AWS's region-limiting example, with the other global services that page names.
GLOBAL_SERVICES = frozenset(
    {"cloudfront", "iam", "organizations", "route53", "support", "budgets", "globalaccelerator", "importexport", "waf"}
)
# IAM's action grammar: a service prefix, a colon, letters, digits, hyphens and wildcards. cfn-lint 1.58's
# AWS::Logs::LogGroup schema lists `s3:REST.PUT.OBJECT` (an S3 access-log operation, not an IAM action), which
# IAM policy validators refuse.
IAM_ACTION = re.compile(r"^[a-z0-9-]+:[A-Za-z0-9*?-]+$")
# CloudFormation itself reads the CDK bootstrap version parameter during every deployment.
ALWAYS = ("ssm:GetParameters",)


def handler_permissions(resource_type: str, region: str) -> list[str]:
    """The actions CloudFormation's handlers for `resource_type` call (cfn-lint's copy of the registry schema)."""
    providers = json.loads(SCHEMAS.joinpath("providers", f"{region}.json").read_text())
    reference = providers.get(resource_type)
    if reference is None:
        raise ValueError(f"{resource_type} has no schema for {region}: it cannot be deployed there")
    schema = json.loads(SCHEMAS.joinpath("resources", f"{reference}.json").read_text())
    handlers = schema.get("handlers", {})
    actions = [action for op in HANDLER_OPERATIONS for action in handlers.get(op, {}).get("permissions", [])]
    return [action for action in [*actions, *EXTRA_ACTIONS.get(resource_type, ())] if IAM_ACTION.match(action)]


def is_global_service_action(action: str) -> bool:
    """True for an action of a global service, whose requests always name us-east-1 as their region."""
    return action.split(":", 1)[0].lower() in GLOBAL_SERVICES


def resource_types(templates: Iterable[dict[str, Any]]) -> set[str]:
    """Resource types of the templates; CDK's own Custom::/AWS::CDK:: entries deploy through Lambda, not handlers."""
    return {
        resource["Type"]
        for template in templates
        for resource in template.get("Resources", {}).values()
        if resource["Type"].startswith("AWS::") and not resource["Type"].startswith("AWS::CDK::")
    }


def execution_policy(types: Iterable[str], region: str) -> dict[str, Any]:
    """Statements per resource type (Sid names it): its regional actions held to `region`, its global-service
    actions in a `<Sid>GlobalService` statement without a region condition."""
    statements = []
    for resource_type in sorted(set(types)):
        actions = sorted(set(handler_permissions(resource_type, region)))
        statements.extend(_type_statements(resource_type.replace("AWS::", "").replace("::", ""), actions, region))
    statements.append({"Sid": "ReadBootstrapVersion", "Effect": "Allow", "Action": list(ALWAYS), "Resource": "*"})
    return {"Version": "2012-10-17", "Statement": statements}


def _type_statements(sid: str, actions: list[str], region: str) -> list[dict[str, Any]]:
    regional = [action for action in actions if not is_global_service_action(action)]
    global_service = [action for action in actions if is_global_service_action(action)]
    statements: list[dict[str, Any]] = []
    if regional:
        # Resource names are generated by CloudFormation: no ARN pattern is known before deploy.
        condition = {"StringEquals": {"aws:RequestedRegion": region}}
        statements.append({"Sid": sid, "Effect": "Allow", "Action": regional, "Resource": "*", "Condition": condition})
    if global_service:
        # Global services take their requests in us-east-1: a region condition would refuse them everywhere else.
        statements.append({"Sid": f"{sid}GlobalService", "Effect": "Allow", "Action": global_service, "Resource": "*"})
    return statements


# IAM quota: a customer managed policy document is at most 6,144 characters (whitespace not counted).
MAX_POLICY_CHARACTERS = 6144


def split_policy(document: dict[str, Any], limit: int = MAX_POLICY_CHARACTERS) -> list[dict[str, Any]]:
    """Packs the statements into as few documents as fit `limit` each (cdk bootstrap takes several ARNs)."""
    documents: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    for statement in document["Statement"]:
        candidate = {"Version": document["Version"], "Statement": [*current, statement]}
        if current and len(json.dumps(candidate, separators=(",", ":"))) > limit:
            documents.append({"Version": document["Version"], "Statement": current})
            current = [statement]
        else:
            current = candidate["Statement"]
    documents.append({"Version": document["Version"], "Statement": current})
    return documents


def synthesized_templates(config_dir: str, env_name: str) -> tuple[str, list[dict[str, Any]]]:
    """(region, templates) of one environment, synthesized in-process."""
    import tempfile

    import aws_cdk as cdk

    from schema import load_project
    from stacks.app_builder import build_app
    from stacks.cdk_context import cdk_json_context

    project = load_project(config_dir, env_name)
    outdir = Path(tempfile.mkdtemp(prefix="akb-policy-"))
    app = cdk.App(outdir=str(outdir), context=cdk_json_context())
    stacks = build_app(app, project)
    app.synth()
    templates = [json.loads((outdir / f"{s.artifact_id}.template.json").read_text()) for s in stacks.values()]
    return project.environment.region, templates


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="dev")
    parser.add_argument("--config", default="config")
    parser.add_argument("--out-dir", default=".", help="Where to write akb-cfn-execution-<n>.json.")
    args = parser.parse_args(argv)
    region, templates = synthesized_templates(args.config, args.env)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for number, document in enumerate(split_policy(execution_policy(resource_types(templates), region)), start=1):
        path = out / f"akb-cfn-execution-{number}.json"
        path.write_text(json.dumps(document, indent=2) + "\n")
        print(path)


if __name__ == "__main__":
    main()
