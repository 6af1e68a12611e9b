"""Issue 26 item 7: a tenant cannot point its knowledge bases at another tenant's or the platform's resources.

Each case goes through the real loader (what `akb validate`, `akb policy` and `cdk synth` call) and
expects one problem per offending field, naming the file and field and the other file.
"""

from __future__ import annotations

import shutil

import pytest

from schema import ConfigError, load_project

GLOBEX_SECRET = "arn:aws:secretsmanager:us-west-2:123456789012:secret:globex-confluence-AbCdEf"


def _problems(config_copy, env: str = "dev") -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, env)
    return [str(problem) for problem in caught.value.problems]


def _add_source(config_copy, tenant: str, source: dict):
    return config_copy.edit("tenants", tenant, lambda t: t["knowledge_bases"][0]["sources"].append(source))


def _connector(secret_arn: str) -> dict:
    return {
        "type": "connector",
        "connector_type": "CONFLUENCE",
        "secret_arn": secret_arn,
        "parameters": {"type": "CONFLUENCE", "connectionConfiguration": {"hostUrl": "https://acme.atlassian.net"}},
    }


def test_a_tenant_naming_another_tenants_connector_secret_is_refused(config_copy):
    acme = _add_source(config_copy, "acme", _connector(GLOBEX_SECRET))
    globex = config_copy.path("tenants", "globex")
    in_acme, in_globex = _problems(config_copy)  # the loader cannot tell which tenant owns it: both are named
    assert in_acme.startswith(f"{acme}: knowledge_bases[0].sources[1].secret_arn: secret {GLOBEX_SECRET} is ")
    assert f"tenant 'globex' ({globex}: knowledge_bases[1].sources[0].secret_arn; environments: dev)" in in_acme
    assert in_globex.startswith(f"{globex}: knowledge_bases[1].sources[0].secret_arn: ")
    assert f"tenant 'acme' ({acme}: knowledge_bases[0].sources[1].secret_arn; environments: dev, prod)" in in_globex


def _prod_only_tenant(config_copy, name: str) -> None:
    """A tenant that only prod deploys, made from globex's file (so it names globex's secret)."""
    shutil.copy(config_copy.path("tenants", "globex"), config_copy.path("tenants", name))
    config_copy.edit("environments", "prod", lambda e: e.update(tenants=["acme", name]))


def test_a_secret_belongs_to_one_tenant_across_every_environment(config_copy):
    """initech (prod only) copies globex's (dev only) Confluence secret: each environment's load refuses
    its own tenant's field and names the other tenant's file and environment."""
    _prod_only_tenant(config_copy, "initech")
    dev = [p for p in _problems(config_copy, "dev") if "secret_arn" in p]
    prod = [p for p in _problems(config_copy, "prod") if "secret_arn" in p]
    (in_dev,) = dev
    assert in_dev.startswith(f"{config_copy.path('tenants', 'globex')}: knowledge_bases[1].sources[0].secret_arn:")
    assert "tenant 'initech'" in in_dev and "environments: prod)" in in_dev
    (in_prod,) = prod
    assert in_prod.startswith(f"{config_copy.path('tenants', 'initech')}: knowledge_bases[1].sources[0].secret_arn:")
    assert "tenant 'globex'" in in_prod and "environments: dev)" in in_prod


def test_the_same_tenant_in_two_environments_owns_its_resources_in_both():
    assert load_project("config", "dev").tenants["acme"] == load_project("config", "prod").tenants["acme"]


PLATFORM_BUCKETS = [
    ("cdk-hnb659fds-assets-123456789012-us-west-2", "the CDK bootstrap assets bucket"),
    ("cdk-team1-assets-123456789012-eu-west-1", "the CDK bootstrap assets bucket"),
    ("dev-globex-documentsbucket9ec9deab-1a2b3c4d5e6f", "generated for stack dev-globex"),
    ("dev-acme-documentsaccesslogse0128bd5-1a2b3c4d5e6f", "generated for stack dev-acme"),
    ("prod-acme-documentsbucket9ec9deab-1a2b3c4d5e6fg", "generated for stack prod-acme"),
    ("dev-platform-alarmsbucket1234abcd-1a2b3c4d5e6f", "generated for stack dev-platform"),
    ("akb-pipeline-pipelineartifactsbucketaea9a052-1a2b3c4d5e6f", "generated for stack akb-pipeline"),
    ("akb-pipeline-artifactaccesslogsf8325158-1a2b3c4d5e6f", "generated for stack akb-pipeline"),
]


@pytest.mark.parametrize(("bucket", "words"), PLATFORM_BUCKETS)
def test_a_bucket_the_platform_owns_is_refused_as_a_source(config_copy, bucket, words):
    acme = _add_source(config_copy, "acme", {"type": "s3", "prefix": "x/", "bucket_arn": f"arn:aws:s3:::{bucket}"})
    (problem,) = _problems(config_copy)
    assert problem.startswith(f"{acme}: knowledge_bases[0].sources[1].bucket_arn: bucket {bucket} is ")
    assert words in problem and "a knowledge base would read all of it" in problem


def test_another_tenants_generated_bucket_names_that_tenants_file():
    from schema.resource_ownership import platform_bucket

    what = platform_bucket("dev-globex-documentsbucket9ec9deab-1a2b3c4d5e6f", {"dev-globex": "tenants/globex.yaml"})
    assert what is not None and "tenants/globex.yaml" in what


@pytest.mark.parametrize("bucket", ["acme-docs", "dev-acme-legal", "dev-acme-archive-2024", "cdk-assets", "globex"])
def test_ordinary_buckets_are_not_taken_for_platform_buckets(config_copy, bucket):
    _add_source(config_copy, "acme", {"type": "s3", "prefix": "x/", "bucket_arn": f"arn:aws:s3:::{bucket}"})
    assert load_project(config_copy.root, "dev").tenants["acme"]


def test_a_certificate_in_a_platform_bucket_is_refused(config_copy):
    source = {
        "type": "connector",
        "connector_type": "SHAREPOINT",
        "secret_arn": "arn:aws:secretsmanager:us-west-2:123456789012:secret:acme-sp-AbCdEf",
        "acl_enabled": False,
        "certificate": {"bucket": "cdk-hnb659fds-assets-123456789012-us-west-2", "key": "sp.pfx"},
        "parameters": {"connectionConfiguration": {"authType": "ENTRA_ID_APP_ONLY", "tenantId": "t"}},
    }
    acme = _add_source(config_copy, "acme", source)
    (problem,) = _problems(config_copy)
    assert problem.startswith(f"{acme}: knowledge_bases[0].sources[1].certificate.bucket: ")


def test_every_problem_is_reported_at_once(config_copy):
    """Isolation problems of two tenants, an unrelated error in one of them and one in the environment
    file come back in one ConfigError: ownership is read from the files, not from validated models."""
    acme = _add_source(config_copy, "acme", _connector(GLOBEX_SECRET))
    _add_source(config_copy, "acme", {"type": "s3", "prefix": "a/", "bucket_arn": "arn:aws:s3:::cdk-x-assets-1-2"})
    config_copy.edit("tenants", "acme", lambda t: t["retrieval"].update(max_results=0))  # acme fails validation too
    env = config_copy.edit("environments", "dev", lambda e: e.update(log_retention_days=31))
    _prod_only_tenant(config_copy, "initech")
    globex = config_copy.path("tenants", "globex")
    where = sorted(": ".join(p.split(": ")[:2]) for p in _problems(config_copy, "dev"))
    assert where == [
        f"{env}: log_retention_days",
        f"{acme}: knowledge_bases[0].sources[1].secret_arn",
        f"{acme}: knowledge_bases[0].sources[2].bucket_arn",
        f"{acme}: retrieval.max_results",
        f"{globex}: knowledge_bases[1].sources[0].secret_arn",
    ], where
