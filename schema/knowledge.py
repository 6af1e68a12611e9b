"""Knowledge bases and their data sources, as a tenant file describes them.

Agentic retrieval works only with MANAGED knowledge bases; their sources are managed connectors
(`MANAGED_KNOWLEDGE_BASE_CONNECTOR`). https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed.html
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from schema.arn_types import EmbeddingModelArn, KmsKeyArn, S3BucketArn, SecretArn
from schema.common import Name, NonBlank, StrictModel
from schema.config_errors import register_union_tags

# Managed connector types an AWS source lists (docs/facts-and-decisions.md, Ledger): CONFLUENCE,
# SHAREPOINT, ONEDRIVE, GOOGLEDRIVE (config: GOOGLE_DRIVE) from the sample's VALID_CONNECTOR_TYPES;
# CUSTOM from the Bedrock user guide (kb-managed-ds-custom). S3 and WEB have their own source types.
CONNECTOR_TYPES = ("CONFLUENCE", "SHAREPOINT", "GOOGLE_DRIVE", "ONEDRIVE", "CUSTOM")
# A custom connector receives documents through the API; the others log in to a SaaS source.
CONNECTORS_WITHOUT_CREDENTIALS = ("CUSTOM",)
# Microsoft 365 connectors: ACL crawling defaults to on server side and needs extra Graph permissions.
MICROSOFT_CONNECTORS = ("SHAREPOINT", "ONEDRIVE")
# Retired by Microsoft on 2026-04-02 (sample 03-sharepoint-connector.ipynb).
RETIRED_SHAREPOINT_AUTH = ("OAUTH2_APP",)
WEB_AUTH_TYPES = ("NO_AUTH", "BASIC_AUTH", "FORM", "SAML")
# S3 bucket names (3-63 of lowercase letters, digits, dots, hyphens).
BUCKET_NAME_PATTERN = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
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
    bucket_arn: S3BucketArn | None = Field(
        None, description="An existing bucket; default: the tenant's document bucket."
    )


HttpUrl = Annotated[str, Field(pattern=r"^https?://\S+$")]


class WebSource(_SourceBase):
    """The managed Web Crawler. Keys, limits and defaults are those of AWS's sample
    (utils/managed_knowledge_base.py); https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-ds-webcrawler.html
    """

    removed_fields: ClassVar[dict[str, str]] = {
        "scope": "use sync_scope: SUB_DOMAINS | ALL_DOMAINS (HOST_ONLY appears in no AWS source)",
        "rate_limit": "use max_crawled_urls_per_minute (1-1200, default 300)",
        "inclusion_filters": "no AWS source documents the web connector's filter keys; narrow the crawl "
        "with seed_urls, site_map_urls, crawl_depth and sync_scope",
        "exclusion_filters": "no AWS source documents the web connector's filter keys; narrow the crawl "
        "with seed_urls, site_map_urls, crawl_depth and sync_scope",
    }

    type: Literal["web"]
    seed_urls: list[HttpUrl] = Field(min_length=1, max_length=10, description="Where the crawler starts (1-10).")
    site_map_urls: list[HttpUrl] = Field(default_factory=list, max_length=3, description="Sitemaps to read (0-3).")
    auth_type: Literal[WEB_AUTH_TYPES] = Field(  # type: ignore[valid-type]
        "NO_AUTH", description="NO_AUTH, BASIC_AUTH, FORM or SAML; all but NO_AUTH need secret_arn."
    )
    secret_arn: SecretArn | None = Field(
        None, description="Secrets Manager secret with the site's credentials (the full ARN)."
    )
    crawl_depth: int = Field(2, ge=0, le=10, description="Link hops from a seed URL (0-10).")
    max_links_per_url: int = Field(100, ge=1, le=1000, description="Links followed per page (1-1000).")
    max_crawled_urls_per_minute: int = Field(300, ge=1, le=1200, description="Crawl rate (1-1200).")
    sync_scope: Literal["SUB_DOMAINS", "ALL_DOMAINS"] = Field(
        "ALL_DOMAINS", description="SUB_DOMAINS keeps to the seed hosts' domains; ALL_DOMAINS follows any link."
    )
    crawl_attachments: bool = Field(True, description="Also ingest linked files (PDF, ...).")

    @model_validator(mode="after")
    def _secret_matches_auth(self) -> WebSource:
        if self.auth_type == "NO_AUTH" and self.secret_arn:
            raise ValueError("secret_arn is only used when auth_type is not NO_AUTH; remove it or set auth_type")
        if self.auth_type != "NO_AUTH" and not self.secret_arn:
            raise ValueError(f"auth_type {self.auth_type} needs secret_arn (the Secrets Manager secret with the login)")
        return self


class CertificateLocation(StrictModel):
    """An S3 object (a .pfx/.p12 bundle) the connector signs in with; the KB role may read it and no other."""

    bucket: Annotated[str, Field(pattern=BUCKET_NAME_PATTERN)] = Field(description="Bucket name (same account).")
    key: Annotated[str, Field(min_length=1, max_length=1024)] = Field(description="Object key of the certificate.")

    @field_validator("key")
    @classmethod
    def _no_wildcards(cls, value: str) -> str:
        if "*" in value or "?" in value:
            raise ValueError("key must name one object: * and ? would widen the role's s3:GetObject grant")
        return value


class ConnectorSource(_SourceBase):
    type: Literal["connector"]
    connector_type: Literal[CONNECTOR_TYPES] = Field(description="The managed connector.")  # type: ignore[valid-type]
    parameters: dict[str, Any] = Field(
        default_factory=dict,
        description="Connector parameters in the API's camelCase form, passed through as given.",
    )
    secret_arn: SecretArn | None = Field(
        None, description="Secrets Manager secret with the source's credentials (the full ARN)."
    )
    acl_enabled: bool | None = Field(
        None, description="SHAREPOINT/ONEDRIVE: required; true crawls document ACLs (needs extra Graph permissions)."
    )
    certificate: CertificateLocation | None = Field(
        None, description="SHAREPOINT/ONEDRIVE: the certificate object (connectionConfiguration.certificateS3Path)."
    )

    @model_validator(mode="after")
    def _credentials(self) -> ConnectorSource:
        if self.connector_type in CONNECTORS_WITHOUT_CREDENTIALS:
            _check_custom(self)
        elif not self.secret_arn:
            raise ValueError(
                f"connector {self.connector_type} signs in to the source: set secret_arn to the "
                "Secrets Manager secret holding its credentials"
            )
        if self.connector_type in MICROSOFT_CONNECTORS:
            _check_microsoft(self)
        elif self.acl_enabled is not None or self.certificate is not None:
            raise ValueError(f"acl_enabled and certificate are for SHAREPOINT and ONEDRIVE, not {self.connector_type}")
        return self


def _check_custom(source: ConnectorSource) -> None:
    """The API: sync schedules and deletion protection are "Not supported for the Custom connector"
    (botocore bedrock-agent ManagedKnowledgeBaseConnectorConfiguration.syncSchedule and
    DeletionProtectionConfiguration.deletionProtectionThreshold)."""
    unsupported = [
        name for name in ("sync_schedule", "deletion_protection_threshold") if getattr(source, name) is not None
    ]
    if unsupported:
        raise ValueError(
            f"the CUSTOM connector supports no {' or '.join(unsupported)} (documents arrive through the "
            "KnowledgeBaseDocuments API); remove it"
        )
    if source.secret_arn:
        raise ValueError("the CUSTOM connector signs in nowhere; remove secret_arn")


def _check_microsoft(source: ConnectorSource) -> None:
    kind = source.connector_type
    if source.acl_enabled is None:
        raise ValueError(
            f"{kind} needs acl_enabled: true or false, explicitly (the service default is true, which "
            "needs extra Microsoft Graph permissions)"
        )
    if "aclEnabled" in source.parameters:
        raise ValueError("set acl_enabled instead of parameters.aclEnabled (named once)")
    connection = source.parameters.get("connectionConfiguration") or {}
    if not isinstance(connection, dict):
        raise ValueError("parameters.connectionConfiguration must be a mapping")
    if "certificateS3Path" in connection:
        raise ValueError(
            "set certificate: {bucket, key} instead of parameters.connectionConfiguration.certificateS3Path, "
            "so the knowledge base role may read that object"
        )
    auth = connection.get("authType")
    if kind == "SHAREPOINT" and auth in RETIRED_SHAREPOINT_AUTH:
        raise ValueError(f"SharePoint authType {auth} was retired by Microsoft on 2026-04-02; use ENTRA_ID_APP_ONLY")
    if kind == "SHAREPOINT" and auth == "ENTRA_ID_APP_ONLY" and source.certificate is None:
        raise ValueError("SharePoint ENTRA_ID_APP_ONLY signs in with a certificate: set certificate: {bucket, key}")
    if kind == "ONEDRIVE" and source.acl_enabled and source.certificate is None:
        raise ValueError("OneDrive with acl_enabled: true needs certificate: {bucket, key}")


Source = Annotated[S3Source | WebSource | ConnectorSource, Field(discriminator="type")]
register_union_tags(("s3", "web", "connector"))


class Embedding(StrictModel):
    """Changing `type` or `model_arn` replaces the knowledge base (new id, re-ingestion)."""

    type: Literal["MANAGED", "CUSTOM"] = Field("MANAGED", description="Who picks the embedding model.")
    model_arn: EmbeddingModelArn | None = Field(
        None, description="CUSTOM only: a foundation-model ARN (inference profiles are rejected by the service)."
    )

    @model_validator(mode="after")
    def _model_arn_matches_type(self) -> Embedding:
        if self.type == "CUSTOM" and not self.model_arn:
            raise ValueError("embedding type CUSTOM needs model_arn (a Bedrock foundation-model ARN)")
        if self.type == "MANAGED" and self.model_arn:
            raise ValueError("model_arn is only used with embedding type CUSTOM; remove it")
        return self


class KnowledgeBase(StrictModel):
    alias: Name = Field(description="How requests name this knowledge base (never its id).")
    description: NonBlank = Field(description="One sentence the planner routes sub-queries by: say what is inside.")
    sources: list[Source] = Field(min_length=1, description="Where its documents come from.")
    embedding: Embedding = Field(default_factory=Embedding, description="Embedding model choice.")
    kms_key_arn: KmsKeyArn | None = Field(None, description="KMS key for the knowledge base's data.")

    # What the knowledge base's service role must reach, derived once for the construct and `akb policy`.

    def secret_arns(self) -> list[str]:
        """Credentials secrets of its web and connector sources."""
        return [s.secret_arn for s in self.sources if isinstance(s, WebSource | ConnectorSource) and s.secret_arn]

    def bucket_arns(self, documents_bucket_arn: str) -> list[str]:
        """Buckets its `s3` sources read; `documents_bucket_arn` stands for the tenant's document bucket."""
        return [s.bucket_arn or documents_bucket_arn for s in self.sources if isinstance(s, S3Source)]

    def certificate_bucket_arns(self, partition: str) -> list[str]:
        """The buckets holding the certificates SharePoint/OneDrive sources sign in with (each once)."""
        buckets = [s.certificate.bucket for s in self.sources if isinstance(s, ConnectorSource) and s.certificate]
        return [f"arn:{partition}:s3:::{bucket}" for bucket in dict.fromkeys(buckets)]
