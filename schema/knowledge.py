"""Knowledge bases and their data sources, as a tenant file describes them.

Agentic retrieval works only with MANAGED knowledge bases; their sources are managed connectors
(`MANAGED_KNOWLEDGE_BASE_CONNECTOR`). https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed.html
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from schema.common import Arn, Name, NonBlank, Regex, StrictModel, require_arn_service
from schema.config_errors import register_union_tags

CONNECTOR_TYPES = ("CONFLUENCE", "SHAREPOINT", "GOOGLE_DRIVE", "ONEDRIVE", "SALESFORCE", "CUSTOM")
# A custom connector receives documents through the API; the others log in to a SaaS source.
CONNECTORS_WITHOUT_CREDENTIALS = ("CUSTOM",)
DAYS_OF_WEEK = ("SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY")


class SyncSchedule(StrictModel):
    """When the connector re-syncs by itself (the managed connector's SyncSchedule)."""

    every: Literal["daily", "weekly", "monthly"]
    day: str | int | None = Field(None, description="weekly: MONDAY..SUNDAY; monthly: 1-28 or 'last'; daily: omit.")

    @model_validator(mode="after")
    def _day_matches_frequency(self) -> SyncSchedule:
        if self.every == "daily" and self.day is not None:
            raise ValueError("a daily sync runs at a time Bedrock chooses; remove `day`")
        if self.every == "weekly" and str(self.day).upper() not in DAYS_OF_WEEK:
            raise ValueError(f"weekly sync needs day: one of {', '.join(DAYS_OF_WEEK)}")
        if self.every == "monthly" and not (self.day == "last" or (isinstance(self.day, int) and 1 <= self.day <= 28)):
            raise ValueError("monthly sync needs day: 1-28 or 'last'")
        return self


class _SourceBase(StrictModel):
    sync_schedule: SyncSchedule | None = Field(None, description="Automatic re-sync; default none.")
    deletion_protection_threshold: int | None = Field(
        None,
        ge=0,
        le=100,
        description="Percent of documents a sync may delete before it stops (deletion protection).",
    )


class S3Source(_SourceBase):
    type: Literal["s3"]
    prefix: Annotated[str, Field(min_length=1, max_length=1024)] = Field(
        description="Key prefix the source reads, e.g. docs/."
    )
    bucket_arn: Arn | None = Field(None, description="An existing bucket; default: the tenant's document bucket.")

    @field_validator("bucket_arn")
    @classmethod
    def _is_bucket(cls, value: str | None) -> str | None:
        if value is not None:
            require_arn_service(value, ("s3",), "an S3 bucket ARN")
            if "/" in value.split(":::", 1)[-1]:
                raise ValueError("bucket_arn names a bucket, not an object; put the path in prefix")
        return value


class WebSource(_SourceBase):
    type: Literal["web"]
    seed_urls: list[Annotated[str, Field(pattern=r"^https?://\S+$")]] = Field(
        min_length=1, max_length=100, description="Where the crawler starts."
    )
    scope: Literal["HOST_ONLY", "SUBDOMAINS", "DEFAULT"] = Field(
        "HOST_ONLY", description="How far from the seed hosts it may crawl."
    )
    rate_limit: int = Field(60, ge=1, le=300, description="Pages per minute per host.")
    inclusion_filters: list[Regex] = Field(default_factory=list, description="URL regexes to keep.")
    exclusion_filters: list[Regex] = Field(default_factory=list, description="URL regexes to skip.")


class ConnectorSource(_SourceBase):
    type: Literal["connector"]
    connector_type: Literal[CONNECTOR_TYPES] = Field(description="The managed connector.")  # type: ignore[valid-type]
    parameters: dict[str, Any] = Field(
        default_factory=dict,
        description="Connector parameters in the API's camelCase form, passed through as given.",
    )
    secret_arn: Arn | None = Field(None, description="Secrets Manager secret with the source's credentials.")

    @model_validator(mode="after")
    def _credentials(self) -> ConnectorSource:
        if self.secret_arn:
            require_arn_service(self.secret_arn, ("secretsmanager",), "a Secrets Manager secret ARN")
        elif self.connector_type not in CONNECTORS_WITHOUT_CREDENTIALS:
            raise ValueError(
                f"connector {self.connector_type} signs in to the source: set secret_arn to the "
                "Secrets Manager secret holding its credentials"
            )
        return self


Source = Annotated[S3Source | WebSource | ConnectorSource, Field(discriminator="type")]
register_union_tags(("s3", "web", "connector"))


class Embedding(StrictModel):
    type: Literal["MANAGED", "CUSTOM"] = Field("MANAGED", description="Who picks the embedding model.")
    model_arn: Arn | None = Field(None, description="Embedding model ARN; CUSTOM only.")

    @model_validator(mode="after")
    def _model_arn_matches_type(self) -> Embedding:
        if self.type == "CUSTOM" and not self.model_arn:
            raise ValueError("embedding type CUSTOM needs model_arn (a Bedrock embedding model ARN)")
        if self.type == "MANAGED" and self.model_arn:
            raise ValueError("model_arn is only used with embedding type CUSTOM; remove it")
        return self


class KnowledgeBase(StrictModel):
    alias: Name = Field(description="How requests name this knowledge base (never its id).")
    description: NonBlank = Field(description="One sentence the planner routes sub-queries by: say what is inside.")
    sources: list[Source] = Field(min_length=1, description="Where its documents come from.")
    embedding: Embedding = Field(default_factory=Embedding, description="Embedding model choice.")
    kms_key_arn: Arn | None = Field(None, description="KMS key for the knowledge base's data.")

    @field_validator("kms_key_arn")
    @classmethod
    def _is_key(cls, value: str | None) -> str | None:
        if value and ":key/" not in require_arn_service(value, ("kms",), "a KMS key ARN"):
            raise ValueError(
                f"'{value}' is not a KMS key ARN (arn:...:kms:<region>:<account>:key/<id>); aliases are not accepted"
            )
        return value
