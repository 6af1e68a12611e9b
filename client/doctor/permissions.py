"""Every IAM action `akb doctor` calls, each read-only, and what it is for.

docs/operations.md ("Before the first deploy") prints the same list as the caller's policy; a test
keeps this table, the actions the checks pass to `aws_call` and that page in step.
"""

from __future__ import annotations

READ_ONLY_ACTIONS: dict[str, str] = {
    "sts:GetCallerIdentity": "which account the credentials reach (needs no permission; never denied)",
    "ssm:GetParameter": "the CDK bootstrap version parameter /cdk-bootstrap/<qualifier>/version",
    "lambda:GetAccountSettings": "the account's unreserved concurrency",
    "lambda:GetFunctionConcurrency": "what a tenant's endpoint function already reserves",
    "lambda:GetLayerVersion": "the pinned Lambda Web Adapter layer version (GetLayerVersionByArn)",
    "bedrock:GetFoundationModel": "a CUSTOM planner, reranker or embedding foundation model",
    "bedrock:GetInferenceProfile": "a CUSTOM planner or reranker inference profile",
    "iam:GetRole": "a same-account invoker role",
    "iam:GetUser": "a same-account invoker user",
    "servicequotas:ListServiceQuotas": "the Bedrock quotas that mention agentic retrieval (applied values)",
    "servicequotas:ListAWSDefaultServiceQuotas": "the same, from AWS defaults, when no applied value is listed",
    "cloudformation:DescribeStacks": "the platform and tenant stacks' status",
    "ssm:GetParametersByPath": "a deployed tenant's identifiers under /akb/<env>/<tenant>/",
    "bedrock:GetRetrievalInstruction": "the retrieval instruction's review status",
    "bedrock:ListIngestionJobs": "each data source's last ingestion job",
    "kms:GetKeyPolicy": "the key policy of log_kms_key_arn (CloudWatch Logs must be allowed to use the key)",
    "ec2:DescribeSubnets": "the VPC of a tenant's endpoint.vpc.subnet_ids",
    "ec2:DescribeVpcEndpoints": "the VPC endpoints of that VPC (bedrock-agent-runtime, logs, sts, ...)",
}
