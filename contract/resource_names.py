"""Names of stacks, resources and SSM parameters, derived in one place from env and tenant."""

from __future__ import annotations

# The promotion pipeline's stack in the tooling account (stacks/pipeline_stack.py, docs/pipeline.md).
PIPELINE_STACK_NAME = "akb-pipeline"


def platform_stack_name(env_name: str) -> str:
    return f"{env_name}-platform"


def tenant_stack_name(env_name: str, tenant: str) -> str:
    return f"{env_name}-{tenant}"


def resource_prefix(env_name: str, tenant: str | None = None) -> str:
    """`akb-dev-acme`: prefix of physical names, so a resource's owner is visible in the console."""
    return f"akb-{env_name}-{tenant}" if tenant else f"akb-{env_name}"


def parameter_name(env_name: str, tenant: str, key: str) -> str:
    """`/akb/<env>/<tenant>/<key>`: where `akb` commands find a deployed tenant's resources."""
    return f"/akb/{env_name}/{tenant}/{key}"


def endpoint_function_name(env_name: str, tenant: str) -> str:
    return f"{resource_prefix(env_name, tenant)}-endpoint"


def agent_function_name(env_name: str, tenant: str) -> str:
    """The Bedrock agent's action-group function (tenants with `agent:`)."""
    return f"{resource_prefix(env_name, tenant)}-agent-action"


def endpoint_log_group_name(env_name: str, tenant: str) -> str:
    """Lambda's default log group name for the function, so the console's "View logs" finds it."""
    return f"/aws/lambda/{endpoint_function_name(env_name, tenant)}"


# The Lambda Web Adapter's publishing account and arm64 layer (https://github.com/awslabs/aws-lambda-web-adapter).
WEB_ADAPTER_ACCOUNT = "753240598075"
WEB_ADAPTER_LAYER = "LambdaAdapterLayerArm64"


def web_adapter_layer_arn(partition: str, region: str, version: int) -> str:
    """The adapter layer version the endpoint uses, as `akb doctor` looks it up (the stack builds the same ARN)."""
    return f"arn:{partition}:lambda:{region}:{WEB_ADAPTER_ACCOUNT}:layer:{WEB_ADAPTER_LAYER}:{version}"


def api_name(env_name: str, tenant: str) -> str:
    """The tenant's REST API (api_gateway front door)."""
    return f"{resource_prefix(env_name, tenant)}-endpoint"


def api_access_log_group_name(env_name: str, tenant: str) -> str:
    """Access logs of the tenant's REST API, beside (not inside) the function's /aws/lambda/ group."""
    return f"/akb/{env_name}/{tenant}/api-access"


def invoke_policy_name(env_name: str, tenant: str) -> str:
    return f"{resource_prefix(env_name, tenant)}-invoke"


def cache_table_name(env_name: str, tenant: str) -> str:
    """The tenant's result-cache table (DynamoDB table names: 3-255 of [a-zA-Z0-9_.-]); `akb cache` derives it too."""
    return f"{resource_prefix(env_name, tenant)}-cache"


def quota_table_name(env_name: str) -> str:
    """The environment's fair-share table (docs/quota.md), in `<env>-platform`; every tenant's endpoint uses it."""
    return f"{resource_prefix(env_name)}-quota"


# The fair-share table's items (lambdas/endpoint/quota/): one per tenant (its guarantee and borrowing
# buckets) and one the tenants share (the account's bucket), under partition key QUOTA_PARTITION_KEY. A
# tenant name ([a-z0-9-]) can never spell the account's key.
QUOTA_PARTITION_KEY = "pk"
QUOTA_ACCOUNT_ITEM = "account"


def quota_tenant_item(tenant: str) -> str:
    """The partition key of a tenant's item: what its endpoint role may update (dynamodb:LeadingKeys)."""
    return f"tenant#{tenant}"


def bounded_name(name: str, max_length: int) -> str:
    """`name` if it fits, else its head plus a short hash (stable, still unique per input).

    Bedrock resource names allow no run of two separators (`^([0-9a-zA-Z][_-]?){1,100}$`), so
    repeated hyphens collapse first.
    """
    import hashlib
    import re

    name = re.sub(r"-{2,}", "-", name)
    if len(name) <= max_length:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: max_length - 9].rstrip('-')}-{digest}"


# Keys under /akb/<env>/<tenant>/ that the tenant stack publishes and `akb` commands read.
DOCUMENTS_BUCKET_KEY = "documents-bucket"
GUARDRAIL_ID_KEY = "guardrail/id"
GUARDRAIL_ARN_KEY = "guardrail/arn"
GUARDRAIL_VERSION_KEY = "guardrail/version"
INSTRUCTION_ID_KEY = "instruction/id"
INSTRUCTION_ARN_KEY = "instruction/arn"


def knowledge_base_key(alias: str, field: str) -> str:
    """`kb/<alias>/<field>` (field: id | arn)."""
    return f"kb/{alias}/{field}"


def data_source_key(alias: str, index: int, field: str) -> str:
    """`kb/<alias>/data-source/<index>/<field>` (field: id | bucket | prefix); index = position in `sources`."""
    return f"kb/{alias}/data-source/{index}/{field}"


def query_folder(env_name: str, tenant: str) -> str:
    """`akb/dev/acme`: the Logs Insights folder of a tenant's saved queries."""
    return f"akb/{env_name}/{tenant}"


def ingestion_log_group_name(env_name: str, tenant: str) -> str:
    """Where a tenant's knowledge bases deliver their ingestion logs (APPLICATION_LOGS). The
    `/aws/vendedlogs/` prefix is the one CloudWatch Logs recommends for vended logs (it keeps the
    account's log resource policy small); `akb ingest --wait` reads the same name."""
    return f"/aws/vendedlogs/bedrock/knowledge-base/APPLICATION_LOGS/{resource_prefix(env_name, tenant)}"


def ingestion_metric_namespace(env_name: str, tenant: str) -> str:
    """Namespace of the metric filters over a tenant's ingestion logs (a metric filter cannot add a
    fixed dimension, so the tenant is in the namespace)."""
    return f"AgenticRetrieval/Ingestion/{resource_prefix(env_name, tenant)}"


# The quality gate (docs/evaluation.md): the last promoted baseline of a tenant's golden set, written by
# `akb eval --gate --promote-baseline` (not by the stack: a promotion must not need a deploy).
QUALITY_BASELINE_KEY = "quality/baseline"


def quality_gate_role_name(env_name: str, tenant: str) -> str:
    """The role the scheduled gate assumes to ask as the tenant's canary user (IAM role names: at most 64)."""
    return bounded_name(f"{resource_prefix(env_name, tenant)}-quality-gate", 64)


def quality_gate_project_name(env_name: str, tenant: str) -> str:
    """The scheduled gate's CodeBuild project (names: 2-150 of [A-Za-z0-9_-])."""
    return f"{resource_prefix(env_name, tenant)}-quality-gate"
