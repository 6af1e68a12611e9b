"""What the front door changes on the endpoint function: VPC attachment, SnapStart, the invoked target,
and the invoke policy (schema/front_door.py).

The streaming endpoint calls these helpers so its own file keeps one call site per concern; with the
default front door (function URL, no VPC, no SnapStart) every helper is a no-op and the template is
unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_

from cdk_constructs.nag_checks import acknowledge
from policies.invoker import invoker_statements
from policies.vpc_access import SID as VPC_SID
from policies.vpc_access import WILDCARD_REASON as VPC_REASON
from policies.vpc_access import vpc_access_policy
from schema.front_door import FrontDoor

ALIAS_NAME = "live"  # the alias the URL or API targets when SnapStart is on (SnapStart runs on published versions)


def extra_role_policies(front: FrontDoor) -> dict[str, iam.PolicyDocument]:
    """Inline policies beside the endpoint's own: the VPC network-interface actions when attached to a VPC."""
    return {"vpc": iam.PolicyDocument.from_json(vpc_access_policy())} if front.vpc is not None else {}


def acknowledge_vpc_wildcard(role: iam.Role, front: FrontDoor) -> None:
    if front.vpc is not None:
        acknowledge(role, "IAM5", f"{VPC_SID}: {VPC_REASON}", finding="Resource::*")


def snap_start(front: FrontDoor) -> lambda_.SnapStartConf | None:
    """SnapStart on published versions, or None (unset: the template is unchanged)."""
    return lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if front.snapstart else None


def attach_vpc(function: lambda_.Function, front: FrontDoor) -> None:
    """VpcConfig from the configured subnet and security group ids (imported: this project creates no VPC)."""
    if front.vpc is None:
        return
    cfn = function.node.default_child
    if not isinstance(cfn, lambda_.CfnFunction):
        raise TypeError(f"{function.node.path}: expected a CfnFunction")
    cfn.vpc_config = lambda_.CfnFunction.VpcConfigProperty(
        subnet_ids=list(front.vpc.subnet_ids), security_group_ids=list(front.vpc.security_group_ids)
    )


def invoked_target(function: lambda_.Function, front: FrontDoor) -> lambda_.IFunction:
    """The function itself, or (SnapStart) an alias on its current published version."""
    if not front.snapstart:
        return function
    return lambda_.Alias(function, "Live", alias_name=ALIAS_NAME, version=function.current_version)


def url_invoke_statements(target_arn: str) -> list[dict[str, object]]:
    return list(invoker_statements(target_arn))


def merged_policy(*documents: Mapping[str, object]) -> dict[str, object]:
    statements: list[object] = []
    for document in documents:
        statements.extend(document["Statement"])  # type: ignore[arg-type]
    return {"Version": "2012-10-17", "Statement": statements}
