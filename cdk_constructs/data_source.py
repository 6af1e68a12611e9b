"""A knowledge base's data source: a managed connector (`MANAGED_KNOWLEDGE_BASE_CONNECTOR`).

`ConnectorParameters` is free-form JSON in the API's camelCase (not CloudFormation's PascalCase).
The shapes built here and where each came from are listed in docs/data-sources.md.
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed.html
"""

from __future__ import annotations

from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_bedrock as bedrock
from constructs import Construct

from schema.knowledge import ConnectorSource, S3Source, Source, SyncSchedule, WebSource

CONNECTOR_TYPE = "MANAGED_KNOWLEDGE_BASE_CONNECTOR"
# `connector_type` in config -> `type` in ConnectorParameters. GOOGLEDRIVE is how the public
# aws-samples managed-KB code spells it; the others are the config names unchanged.
CONNECTOR_PARAMETER_TYPES = {"GOOGLE_DRIVE": "GOOGLEDRIVE"}


class DataSourceConfigError(ValueError):
    """A source that the schema accepted but that cannot become a valid data source."""


def s3_connector_parameters(*, bucket_name: str, bucket_owner_account: str, prefix: str) -> dict[str, Any]:
    return {
        "type": "S3",
        "version": "1",
        "connectionConfiguration": {"bucketName": bucket_name, "bucketOwnerAccountId": bucket_owner_account},
        "filterConfiguration": {"inclusionPrefixes": [prefix]},
    }


def web_connector_parameters(source: WebSource) -> dict[str, Any]:
    """The sample's WEB shape (utils/managed_knowledge_base.py), every crawl setting written out.

    No `filterConfiguration`: no AWS source shows the web connector's filter keys (docs/data-sources.md).
    """
    connection: dict[str, Any] = {"seedUrls": list(source.seed_urls), "authType": source.auth_type}
    if source.site_map_urls:
        connection["siteMapUrls"] = list(source.site_map_urls)
    if source.secret_arn:
        connection["secretArn"] = source.secret_arn
    return {
        "type": "WEB",
        "version": "1",
        "connectionConfiguration": connection,
        "crawlConfiguration": {
            "crawlDepth": source.crawl_depth,
            "maxLinksPerUrl": source.max_links_per_url,
            "maxCrawledUrlsPerMinute": source.max_crawled_urls_per_minute,
            "syncScope": source.sync_scope,
            "crawlAttachments": source.crawl_attachments,
        },
    }


def connector_parameters(source: ConnectorSource, where: str) -> dict[str, Any]:
    """The configured parameters, completed with `type`, `version`, the credentials secret and,
    for SharePoint/OneDrive, `aclEnabled` and `connectionConfiguration.certificateS3Path`
    (sample 03-sharepoint-connector.ipynb).

    The secret is named once (`secret_arn`, which also scopes the role's GetSecretValue), so a
    different `connectionConfiguration.secretArn` in the parameters is an error, not a silent pick.
    """
    parameters = dict(source.parameters)
    expected_type = CONNECTOR_PARAMETER_TYPES.get(source.connector_type, source.connector_type)
    given_type = parameters.setdefault("type", expected_type)
    if given_type not in (expected_type, source.connector_type):
        raise DataSourceConfigError(
            f"{where}: parameters.type is '{given_type}' but connector_type is {source.connector_type}; "
            f"remove parameters.type or set it to {expected_type}"
        )
    parameters.setdefault("version", "1")
    if source.secret_arn:
        connection = dict(parameters.get("connectionConfiguration") or {})
        given_secret = connection.setdefault("secretArn", source.secret_arn)
        if given_secret != source.secret_arn:
            raise DataSourceConfigError(
                f"{where}: parameters.connectionConfiguration.secretArn differs from secret_arn; "
                "name the secret once, in secret_arn"
            )
        parameters["connectionConfiguration"] = connection
    if source.acl_enabled is not None:
        parameters["aclEnabled"] = source.acl_enabled
    if source.certificate is not None:
        connection = dict(parameters.get("connectionConfiguration") or {})
        connection["certificateS3Path"] = {
            "s3BucketName": source.certificate.bucket,
            "s3KeyName": source.certificate.key,
        }
        parameters["connectionConfiguration"] = connection
    return parameters


def sync_schedule(schedule: SyncSchedule | None) -> bedrock.CfnDataSource.SyncScheduleProperty | None:
    """Config `{every, day}` -> CloudFormation's SyncSchedule (exactly one frequency key)."""
    if schedule is None:
        return None
    if schedule.every == "daily":
        return bedrock.CfnDataSource.SyncScheduleProperty(daily={})
    if schedule.every == "weekly":
        return bedrock.CfnDataSource.SyncScheduleProperty(
            weekly=bedrock.CfnDataSource.WeeklyScheduleProperty(day_of_week=str(schedule.day).upper())
        )
    if schedule.day == "last":
        day = bedrock.CfnDataSource.DayOfMonthProperty(last_day_of_month={})
    elif isinstance(schedule.day, int):
        day = bedrock.CfnDataSource.DayOfMonthProperty(day_number=schedule.day)
    else:  # the schema allows 1-28 or 'last' for monthly; anything else is a bug upstream of here
        raise DataSourceConfigError(f"monthly sync needs day 1-28 or 'last', not {schedule.day!r}")
    return bedrock.CfnDataSource.SyncScheduleProperty(
        monthly=bedrock.CfnDataSource.MonthlyScheduleProperty(day_of_month=day)
    )


def deletion_protection(threshold: int | None) -> bedrock.CfnDataSource.DeletionProtectionConfigurationProperty | None:
    """A threshold turns deletion protection on; none leaves the service default."""
    if threshold is None:
        return None
    return bedrock.CfnDataSource.DeletionProtectionConfigurationProperty(
        deletion_protection_status="ENABLED", deletion_protection_threshold=threshold
    )


class DataSource(Construct):
    """One `AWS::Bedrock::DataSource` of a managed knowledge base.

    :param knowledge_base_id: the knowledge base it feeds.
    :param name: the data source's name (1-100 of `[0-9a-zA-Z_-]`, no doubled separators).
    :param source: the validated config entry (`s3`, `web` or `connector`).
    :param bucket_name: for `s3`: the bucket the source reads (the tenant's document bucket when
        the entry names no `bucket_arn`). Ignored otherwise.
    :param account: owner of that bucket (`bucketOwnerAccountId`); buckets of other accounts are
        not supported.
    :param removal_policy: the environment's removal policy.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        knowledge_base_id: str,
        name: str,
        source: Source,
        bucket_name: str | None,
        account: str,
        removal_policy: RemovalPolicy,
    ):
        super().__init__(scope, construct_id)
        self.source = source
        self.bucket_name = bucket_name if isinstance(source, S3Source) else None
        self.prefix = source.prefix if isinstance(source, S3Source) else None
        self.connector_parameters = self._parameters(source, account)
        self.resource = bedrock.CfnDataSource(
            self,
            "Resource",
            knowledge_base_id=knowledge_base_id,
            name=name,
            data_source_configuration=bedrock.CfnDataSource.DataSourceConfigurationProperty(
                type=CONNECTOR_TYPE,
                managed_knowledge_base_connector_configuration=(
                    bedrock.CfnDataSource.ManagedKnowledgeBaseConnectorConfigurationProperty(
                        connector_parameters=self.connector_parameters,
                        sync_schedule=sync_schedule(source.sync_schedule),
                        deletion_protection_configuration=deletion_protection(source.deletion_protection_threshold),
                    )
                ),
            ),
        )
        self.resource.apply_removal_policy(removal_policy)

    def _parameters(self, source: Source, account: str) -> dict[str, Any]:
        if isinstance(source, S3Source):
            if not self.bucket_name:
                raise DataSourceConfigError(f"{self.node.path}: an s3 source needs a bucket; pass bucket_name")
            return s3_connector_parameters(
                bucket_name=self.bucket_name, bucket_owner_account=account, prefix=source.prefix
            )
        if isinstance(source, WebSource):
            return web_connector_parameters(source)
        return connector_parameters(source, self.node.path)

    @property
    def data_source_id(self) -> str:
        return self.resource.attr_data_source_id
