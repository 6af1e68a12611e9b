"""What a Lambda function attached to a VPC needs on its execution role: to manage its network interfaces.

The same actions as AWS's managed policy AWSLambdaVPCAccessExecutionRole (Lambda developer guide,
configuration-vpc, "Required IAM permissions"): ec2:CreateNetworkInterface, ec2:DescribeNetworkInterfaces,
ec2:DescribeSubnets, ec2:DeleteNetworkInterface, ec2:AssignPrivateIpAddresses, ec2:UnassignPrivateIpAddresses.
Written out instead of attaching the managed policy (the role carries only our documents).
"""

from __future__ import annotations

from policies.document import PolicyDocument, allow, document

SID = "ManageTheFunctionsVpcNetworkInterfaces"
ACTIONS = (
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterface",
    "ec2:DeleteNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSubnets",
    "ec2:UnassignPrivateIpAddresses",
)
# Lambda creates the interfaces before their ids exist, and the Describe actions support no resource.
WILDCARD_REASON = (
    "Lambda's VPC networking creates and deletes the function's network interfaces (ids unknown before "
    "it does) and ec2:Describe* supports no resource; the same actions as AWSLambdaVPCAccessExecutionRole "
    "(https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaVPCAccessExecutionRole.html)"
)


def vpc_access_policy() -> PolicyDocument:
    return document([allow(SID, list(ACTIONS), "*")])
