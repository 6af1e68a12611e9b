"""`config/environments/<env>.yaml`: where and how one environment (dev, stage, prod) deploys."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from schema.alarm_config import Alarms
from schema.arn_types import BedrockModelArn, IamRoleArn, KmsKeyArn, arn_account
from schema.common import AccountId, Name, Region, StrictModel, unique
from schema.front_door import FrontDoorFields
from schema.quota_config import AccountQuota

# CloudWatch Logs accepts only these retention periods (AWS::Logs::LogGroup RetentionInDays).
LOG_RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)


# The first Lambda Web Adapter layer that overwrites a client-sent `x-amzn-request-context` header:
# v0.7.2 (PR 286 turned `append` into `insert` in src/lib.rs). Up to v0.5.1 the adapter did not set the
# header at all and v0.6.0-v0.7.1 appended its own copy after the client's, so a caller could forge
# its identity. The adapter's README history maps v0.7.1 to layer 17 and v0.7.2 to layer 18
# (awslabs/aws-lambda-web-adapter; docs/facts-and-decisions.md, ledger).
MIN_WEB_ADAPTER_LAYER_VERSION = 18
# Layer 27 = adapter v1.0.0, the first that opens a new connection to the app per request when Lambda
# initializes it with SnapStart (AWS_LAMBDA_INITIALIZATION_TYPE=snap-start, PR 671): earlier layers pool the
# connection, and a pooled connection captured in the snapshot is reused dead after a restore
# (aws/aws-lambda-web-adapter CHANGELOG v1.0.0; docs/facts-and-decisions.md, "Issue 25").
MIN_SNAPSTART_WEB_ADAPTER_LAYER_VERSION = 27
DEFAULT_WEB_ADAPTER_LAYER_VERSION = 27


def _web_adapter_layer(value: int) -> int:
    if value < MIN_WEB_ADAPTER_LAYER_VERSION:
        raise ValueError(
            f"layer version {value} is older than {MIN_WEB_ADAPTER_LAYER_VERSION} (Lambda Web Adapter v0.7.2), the "
            "first that overwrites a client-sent x-amzn-request-context header; with an older layer a caller "
            f"can forge its identity. Use {MIN_WEB_ADAPTER_LAYER_VERSION} or later (27 = v1.0.0)"
        )
    return value


def _moved_to_quota(value: int | None) -> int | None:
    if value is not None:
        raise ValueError(
            f"moved: write `quota: {{agentic_requests_per_minute: {value}}}` instead (the quota block also holds "
            "how tenants share it: docs/quota.md)"
        )
    return value


def _retention(value: int) -> int:
    if value not in LOG_RETENTION_DAYS:
        raise ValueError(
            f"{value} is not a CloudWatch Logs retention period; allowed: "
            + ", ".join(str(days) for days in LOG_RETENTION_DAYS)
        )
    return value


class Planner(StrictModel):
    """The model that plans sub-queries. MANAGED lets Bedrock choose; CUSTOM names a model.

    https://docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html
    """

    type: Literal["MANAGED", "CUSTOM"] = Field(
        "MANAGED", description="MANAGED (Bedrock's planner) or CUSTOM (your model_arn)."
    )
    model_arn: BedrockModelArn | None = Field(
        None,
        description="Foundation model or inference profile ARN; required for CUSTOM, not allowed for MANAGED.",
    )

    @model_validator(mode="after")
    def _model_arn_matches_type(self) -> Planner:
        _check_model_arn(self.type, self.model_arn)
        return self


class Reranking(StrictModel):
    """How retrieved passages are reranked before the planner sees them."""

    type: Literal["MANAGED", "CUSTOM", "NONE"] | None = Field(
        None,
        description="MANAGED, CUSTOM (your model_arn) or NONE; unset: the service default (MANAGED for "
        "managed-embedding knowledge bases, NONE for custom-embedding ones).",
    )
    model_arn: BedrockModelArn | None = Field(
        None, description="Reranking model or inference profile ARN; required for CUSTOM, not allowed otherwise."
    )

    @model_validator(mode="after")
    def _model_arn_matches_type(self) -> Reranking:
        _check_model_arn(self.type, self.model_arn)
        return self


def _check_model_arn(kind: str | None, model_arn: str | None) -> None:
    if kind == "CUSTOM" and not model_arn:
        raise ValueError("type CUSTOM needs model_arn (a foundation model or inference profile ARN)")
    if kind != "CUSTOM" and model_arn:
        raise ValueError(f"model_arn is only used with type CUSTOM; remove it or set type: CUSTOM (got {kind})")


class EndpointSettings(FrontDoorFields):
    """The streaming endpoint function (one per tenant) and its front door (schema/front_door.py)."""

    memory_mb: int = Field(1024, ge=128, le=10240, description="Function memory in MB.")
    timeout_seconds: int = Field(
        300, ge=30, le=900, description="Function timeout; the request deadline stays below it."
    )
    deadline_seconds: int | None = Field(
        None,
        ge=5,
        description="Per-request deadline: the stream ends with an `error` event code `deadline`. "
        "Default: timeout_seconds - 10.",
    )
    web_adapter_layer_version: Annotated[int, AfterValidator(_web_adapter_layer)] = Field(
        DEFAULT_WEB_ADAPTER_LAYER_VERSION,
        description="Version of the Lambda Web Adapter layer "
        "(arn:aws:lambda:<region>:753240598075:layer:LambdaAdapterLayerArm64:<version>); at least "
        f"{MIN_WEB_ADAPTER_LAYER_VERSION} (v0.7.2), the first that overwrites a client-sent "
        f"x-amzn-request-context header (docs/security.md), and {MIN_SNAPSTART_WEB_ADAPTER_LAYER_VERSION} "
        "(v1.0.0) with snapstart (docs/front-door.md).",
    )
    max_body_bytes: int = Field(65536, ge=1024, le=1048576, description="Largest request body accepted (413 above it).")

    @model_validator(mode="after")
    def _deadline_below_timeout(self) -> EndpointSettings:
        if self.deadline_seconds is not None and self.deadline_seconds >= self.timeout_seconds:
            raise ValueError(
                f"deadline_seconds ({self.deadline_seconds}) must be below timeout_seconds "
                f"({self.timeout_seconds}) so a slow request ends with a `deadline` event, "
                "not a killed function"
            )
        return self

    @property
    def effective_deadline_seconds(self) -> int:
        return self.deadline_seconds or self.timeout_seconds - 10


class Pricing(StrictModel):
    """Prices behind the cost estimates: the endpoint's EstimatedCostUSD metric and the dashboards'
    index storage estimate. Defaults: Amazon Bedrock's price page (https://aws.amazon.com/bedrock/pricing/,
    on-demand, us-east-1) as AWS's sample records it (aws-samples/amazon-bedrock-samples,
    rag/managed-knowledge-bases/utils/kb_pricing.yaml, 2026-07-09; docs/facts-and-decisions.md). Other regions
    may differ: override."""

    agentic_per_1000_usd: float = Field(
        4.0, ge=0, description="Managed planner: USD per 1,000 AgenticRetrieveStream calls."
    )
    retrieve_per_1000_usd: float = Field(
        1.0,
        ge=0,
        description="USD per 1,000 Retrieve calls: each retrieve-mode call, and the underlying Retrieve "
        "calls of an agentic call, counted as its planner iterations (the endpoint's stand-in for "
        "Bedrock's TotalIterationCount, the proxy AWS's sample uses).",
    )
    index_storage_per_gb_month_usd: float = Field(
        5.0,
        ge=0,
        description="USD per GB-month of knowledge-base index storage (Bedrock's RawDataSize); drawn on "
        "the dashboards, not part of EstimatedCostUSD (it is not per request).",
    )
    lambda_gb_second_usd: float = Field(
        0.0000133334,
        ge=0,
        description="USD per GB-second of Lambda duration, arm64 (https://aws.amazon.com/lambda/pricing/, "
        "us-east-1, first tier): `akb cost` multiplies it by the endpoint's duration and memory.",
    )
    lambda_per_million_requests_usd: float = Field(
        0.20, ge=0, description="USD per million Lambda requests (https://aws.amazon.com/lambda/pricing/, us-east-1)."
    )


class Environment(StrictModel):
    """One deployment target."""

    account: AccountId | None = Field(None, description="AWS account id; omitted -> an environment-agnostic synth.")
    region: Region = Field(description="AWS region to deploy to, e.g. us-west-2.")
    tenants: Annotated[list[Name], AfterValidator(lambda v: unique(v, "tenant"))] = Field(
        description="Tenants deployed here; each names a file config/tenants/<tenant>.yaml."
    )
    planner: Planner = Field(default_factory=Planner, description="The agentic planner model.")
    reranking: Reranking = Field(default_factory=Reranking, description="Reranking model.")
    endpoint: EndpointSettings = Field(default_factory=EndpointSettings, description="Endpoint function settings.")
    alarms: Alarms = Field(default_factory=Alarms, description="Alarm notifications, periods and thresholds.")
    log_retention_days: Annotated[int, AfterValidator(_retention)] = Field(
        30, description="Retention of the endpoint's log group."
    )
    log_kms_key_arn: KmsKeyArn | None = Field(
        None,
        description="Customer managed symmetric KMS key that encrypts the endpoint's log group; its key "
        "policy must allow CloudWatch Logs (docs/security.md, `akb policy` prints the statement). Default: "
        "CloudWatch Logs' own encryption.",
    )
    removal_policy: Literal["retain", "destroy"] = Field(
        "retain", description="What `cdk destroy` does to buckets, logs and knowledge bases."
    )
    pricing: Pricing = Field(default_factory=Pricing, description="Cost estimate inputs.")
    quota: AccountQuota = Field(
        default_factory=AccountQuota,
        description="The account's AgenticRetrieveStream quota and how its tenants share it (docs/quota.md).",
    )
    bedrock_quota_per_minute: Annotated[int | None, AfterValidator(_moved_to_quota)] = Field(
        None, description="Moved: set quota.agentic_requests_per_minute instead."
    )
    quality_gate_role_arn: IamRoleArn | None = Field(
        None,
        description="The role `akb eval --gate` runs as here (the promotion pipeline's gate step assumes it): the "
        "endpoints of tenants with `quality:` vouch for it as their canary (docs/pipeline.md, The gate role). "
        "In this environment's account. Default: none (the pipeline needs one where a tenant has `quality:`).",
    )

    @model_validator(mode="after")
    def _gate_role_in_this_account(self) -> Environment:
        if self.quality_gate_role_arn and self.account and arn_account(self.quality_gate_role_arn) != self.account:
            raise ValueError(
                f"quality_gate_role_arn is in account {arn_account(self.quality_gate_role_arn)}, not this "
                f"environment's {self.account}: the gate asks the endpoints as a role of their own account"
            )
        return self


__all__ = ["LOG_RETENTION_DAYS", "Environment", "Name"]
