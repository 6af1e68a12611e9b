"""Managed-connector data sources: camelCase connector parameters, schedules, deletion protection."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from cdk_constructs.data_source import DataSource, DataSourceConfigError, connector_parameters, sync_schedule
from cdk_constructs.knowledge_base import KnowledgeBase as KnowledgeBaseConstruct
from schema.knowledge import ConnectorSource, KnowledgeBase, S3Source, SyncSchedule, WebSource
from tests.cdk_constructs.probe import probe_stack

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

SECRET = "arn:aws:secretsmanager:us-west-2:123456789012:secret:drive-AbCdEf"


def _sources(synthesized, stack_name: str) -> dict[str, dict]:
    """Data source name -> its ManagedKnowledgeBaseConnectorConfiguration."""
    return {
        ds["Properties"]["Name"]: ds["Properties"]["DataSourceConfiguration"]
        for ds in synthesized.resources(stack_name, "AWS::Bedrock::DataSource").values()
    }


def _keys(value, found=None) -> set[str]:
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, item in value.items():
            if not key.startswith("Fn::") and key != "Ref":
                found.add(key)
            _keys(item, found)
    elif isinstance(value, list):
        for item in value:
            _keys(item, found)
    return found


def test_every_example_source_is_a_managed_connector(synthesized):
    for stack_name in ("dev-acme", "dev-globex"):
        for configuration in _sources(synthesized, stack_name).values():
            assert configuration["Type"] == "MANAGED_KNOWLEDGE_BASE_CONNECTOR"
            parameters = configuration["ManagedKnowledgeBaseConnectorConfiguration"]["ConnectorParameters"]
            # Free-form JSON in the API's camelCase: no CloudFormation-style PascalCase key may leak in.
            assert all(key[0].islower() for key in _keys(parameters)), _keys(parameters)


def test_s3_source_reads_its_prefix_of_the_tenant_bucket_and_syncs_daily(synthesized):
    managed = _sources(synthesized, "dev-acme")["akb-dev-acme-docs-0"]["ManagedKnowledgeBaseConnectorConfiguration"]
    (bucket_id,) = [
        key for key in synthesized.resources("dev-acme", "AWS::S3::Bucket") if key.startswith("DocumentsBucket")
    ]
    assert managed["ConnectorParameters"] == {
        "type": "S3",
        "version": "1",
        "connectionConfiguration": {"bucketName": {"Ref": bucket_id}, "bucketOwnerAccountId": "123456789012"},
        "filterConfiguration": {"inclusionPrefixes": ["docs/"]},
    }
    assert managed["SyncSchedule"] == {"Daily": {}}
    assert "DeletionProtectionConfiguration" not in managed


def test_web_source_writes_the_samples_connection_and_crawl_keys_and_no_filters(synthesized):
    managed = _sources(synthesized, "dev-acme")["akb-dev-acme-tickets-1"]["ManagedKnowledgeBaseConnectorConfiguration"]
    assert managed["ConnectorParameters"] == {
        "type": "WEB",
        "version": "1",
        "connectionConfiguration": {"seedUrls": ["https://example.com/runbooks"], "authType": "NO_AUTH"},
        "crawlConfiguration": {
            "crawlDepth": 2,
            "maxLinksPerUrl": 100,
            "maxCrawledUrlsPerMinute": 30,
            "syncScope": "SUB_DOMAINS",
            "crawlAttachments": False,
        },
    }


def test_weekly_schedule_and_deletion_threshold_reach_the_template(synthesized):
    managed = _sources(synthesized, "dev-globex")["akb-dev-globex-handbook-0"][
        "ManagedKnowledgeBaseConnectorConfiguration"
    ]
    assert managed["SyncSchedule"] == {"Weekly": {"DayOfWeek": "MONDAY"}}
    assert managed["DeletionProtectionConfiguration"] == {
        "DeletionProtectionStatus": "ENABLED",
        "DeletionProtectionThreshold": 20,
    }


def test_connector_parameters_pass_through_with_the_secret_added(synthesized):
    parameters = _sources(synthesized, "dev-globex")["akb-dev-globex-wiki-0"][
        "ManagedKnowledgeBaseConnectorConfiguration"
    ]["ConnectorParameters"]
    tenant = synthesized.project.tenants["globex"]
    wiki = next(kb for kb in tenant.knowledge_bases if kb.alias == "wiki").sources[0]
    assert parameters["type"] == "CONFLUENCE" and parameters["version"] == "1"
    assert parameters["connectionConfiguration"] == {
        **wiki.parameters["connectionConfiguration"],
        "secretArn": wiki.secret_arn,
    }


@pytest.mark.parametrize(
    ("schedule", "expected"),
    [
        ({"every": "daily"}, {"daily": {}}),
        ({"every": "weekly", "day": "friday"}, {"weekly": {"dayOfWeek": "FRIDAY"}}),
        ({"every": "monthly", "day": 15}, {"monthly": {"dayOfMonth": {"dayNumber": 15}}}),
        ({"every": "monthly", "day": "last"}, {"monthly": {"dayOfMonth": {"lastDayOfMonth": {}}}}),
    ],
)
def test_sync_schedule_has_exactly_one_frequency(schedule, expected):
    stack = probe_stack()
    assert stack.resolve(sync_schedule(SyncSchedule.model_validate(schedule))) == expected


def test_an_existing_bucket_is_read_by_name_and_only_that_bucket_and_its_objects_are_granted():
    stack = probe_stack()
    config = KnowledgeBase.model_validate(
        {
            "alias": "legacy",
            "description": "Old docs.",
            "sources": [{"type": "s3", "bucket_arn": "arn:aws:s3:::legacy-docs", "prefix": "manuals/"}],
        }
    )
    KnowledgeBaseConstruct(
        stack, "Kb", config=config, name="legacy", documents=None, removal_policy=cdk.RemovalPolicy.RETAIN
    )
    template = Template.from_stack(stack)
    (source,) = template.find_resources("AWS::Bedrock::DataSource").values()
    parameters = source["Properties"]["DataSourceConfiguration"]["ManagedKnowledgeBaseConnectorConfiguration"][
        "ConnectorParameters"
    ]
    assert parameters["connectionConfiguration"]["bucketName"] == "legacy-docs"
    (policy,) = template.find_resources("AWS::IAM::Policy").values()
    statements = {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}
    assert statements["ReadDocumentBucketObjects"]["Resource"] == "arn:aws:s3:::legacy-docs/*"
    assert statements["ListDocumentBuckets"]["Resource"] == "arn:aws:s3:::legacy-docs"


def test_google_drive_is_spelled_as_the_connector_expects_and_gets_its_secret():
    source = ConnectorSource.model_validate(
        {"type": "connector", "connector_type": "GOOGLE_DRIVE", "secret_arn": SECRET}
    )
    assert connector_parameters(source, "p") == {
        "type": "GOOGLEDRIVE",
        "version": "1",
        "connectionConfiguration": {"secretArn": SECRET},
    }


def test_a_contradicting_connector_type_fails_naming_the_construct():
    source = ConnectorSource.model_validate(
        {
            "type": "connector",
            "connector_type": "SHAREPOINT",
            "secret_arn": SECRET,
            "acl_enabled": False,
            "parameters": {"type": "ONEDRIVE"},
        }
    )
    with pytest.raises(
        DataSourceConfigError, match=r"Probe/Source: parameters.type is 'ONEDRIVE' but connector_type is SHAREPOINT"
    ):
        _data_source(source)


def test_a_second_secret_in_the_parameters_is_refused():
    source = ConnectorSource.model_validate(
        {
            "type": "connector",
            "connector_type": "CONFLUENCE",
            "secret_arn": SECRET,
            "parameters": {"connectionConfiguration": {"secretArn": SECRET + "-other"}},
        }
    )
    with pytest.raises(DataSourceConfigError, match="name the secret once, in secret_arn"):
        connector_parameters(source, "where")


def _data_source(source) -> DataSource:
    return DataSource(
        probe_stack(),
        "Source",
        knowledge_base_id="kb",
        name="n",
        source=source,
        bucket_name=None,
        account="123456789012",
        removal_policy=cdk.RemovalPolicy.RETAIN,
    )


def test_web_defaults_are_the_samples_and_sync_every_domain():
    data_source = _data_source(WebSource.model_validate({"type": "web", "seed_urls": ["https://example.com"]}))
    assert data_source.connector_parameters["crawlConfiguration"] == {
        "crawlDepth": 2,
        "maxLinksPerUrl": 100,
        "maxCrawledUrlsPerMinute": 300,
        "syncScope": "ALL_DOMAINS",
        "crawlAttachments": True,
    }
    assert "filterConfiguration" not in data_source.connector_parameters
    assert data_source.bucket_name is None and data_source.prefix is None


def test_an_authenticated_crawl_names_its_secret_and_sitemaps():
    source = WebSource.model_validate(
        {
            "type": "web",
            "seed_urls": ["https://intranet.example.com"],
            "site_map_urls": ["https://intranet.example.com/sitemap.xml"],
            "auth_type": "BASIC_AUTH",
            "secret_arn": SECRET,
        }
    )
    assert _data_source(source).connector_parameters["connectionConfiguration"] == {
        "seedUrls": ["https://intranet.example.com"],
        "authType": "BASIC_AUTH",
        "siteMapUrls": ["https://intranet.example.com/sitemap.xml"],
        "secretArn": SECRET,
    }


CERTIFICATE = {"bucket": "globex-certs", "key": "sharepoint/connector.pfx"}


@pytest.mark.parametrize("acl_enabled", [True, False])
def test_sharepoint_writes_acl_enabled_explicitly_and_the_certificate_path(acl_enabled):
    source = ConnectorSource.model_validate(
        {
            "type": "connector",
            "connector_type": "SHAREPOINT",
            "secret_arn": SECRET,
            "acl_enabled": acl_enabled,
            "certificate": CERTIFICATE,
            "parameters": {"connectionConfiguration": {"tenantId": "t", "authType": "ENTRA_ID_APP_ONLY"}},
        }
    )
    parameters = connector_parameters(source, "p")
    assert parameters["aclEnabled"] is acl_enabled
    assert parameters["connectionConfiguration"] == {
        "tenantId": "t",
        "authType": "ENTRA_ID_APP_ONLY",
        "secretArn": SECRET,
        "certificateS3Path": {"s3BucketName": "globex-certs", "s3KeyName": "sharepoint/connector.pfx"},
    }


def test_the_role_may_read_the_certificate_object_and_nothing_else_of_its_bucket():
    stack = probe_stack()
    config = KnowledgeBase.model_validate(
        {
            "alias": "sites",
            "description": "SharePoint sites.",
            "sources": [
                {
                    "type": "connector",
                    "connector_type": "ONEDRIVE",
                    "secret_arn": SECRET,
                    "acl_enabled": True,
                    "certificate": CERTIFICATE,
                }
            ],
        }
    )
    KnowledgeBaseConstruct(
        stack, "Kb", config=config, name="sites", documents=None, removal_policy=cdk.RemovalPolicy.RETAIN
    )
    (policy,) = Template.from_stack(stack).find_resources("AWS::IAM::Policy").values()
    statements = {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}
    same_account = {"StringEquals": {"aws:ResourceAccount": "123456789012"}}
    assert statements["ReadConnectorCertificates"]["Action"] == "s3:GetObject"
    assert statements["ReadConnectorCertificates"]["Resource"] == "arn:aws:s3:::globex-certs/*"
    assert statements["ListConnectorCertificateBuckets"]["Resource"] == "arn:aws:s3:::globex-certs"
    assert statements["ReadConnectorCertificates"]["Condition"] == same_account
    assert statements["ListConnectorCertificateBuckets"]["Condition"] == same_account
    assert "ListDocumentBuckets" not in statements


def test_s3_source_records_its_bucket_and_prefix_for_outputs():
    stack = probe_stack()
    data_source = DataSource(
        stack,
        "Source",
        knowledge_base_id="kb",
        name="n",
        source=S3Source(type="s3", prefix="faq/"),
        bucket_name="b",
        account="123456789012",
        removal_policy=cdk.RemovalPolicy.RETAIN,
    )
    assert (data_source.bucket_name, data_source.prefix) == ("b", "faq/")
