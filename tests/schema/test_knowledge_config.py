"""Knowledge and guardrail misuse the loader reports (beyond tests/schema/test_loader.py's cases)."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project

KEY_ALIAS = "arn:aws:kms:us-west-2:123456789012:alias/acme"
CASES = [
    (
        "anonymize-regex",
        lambda t: t["guardrail"].update(regexes=[{"name": "r", "pattern": "x", "action": "ANONYMIZE"}]),
        "guardrail.regexes[0].action",
        ["ANONYMIZE is not allowed", "only BLOCK"],
    ),
    (
        "mask-content-filter",
        lambda t: t["guardrail"]["content_filters"][0].update(output_action="MASK"),
        "guardrail.content_filters[0].output_action",
        ["MASK is not allowed"],
    ),
    (
        "prompt-attack-with-output",
        lambda t: t["guardrail"]["content_filters"][1].update(output_strength="HIGH"),
        "guardrail.content_filters[1]",
        ["PROMPT_ATTACK screens input only", "output_strength: NONE"],
    ),
    (
        "kms-alias",
        lambda t: t["knowledge_bases"][0].update(kms_key_arn=KEY_ALIAS),
        "knowledge_bases[0].kms_key_arn",
        ["is not a KMS key ARN", "aliases are not accepted"],
    ),
    (
        "topic-name-characters",
        lambda t: t["guardrail"].update(denied_topics=[{"name": "pay/salaries", "definition": "Pay."}]),
        "guardrail.denied_topics[0].name",
        ["should match pattern"],
    ),
    (
        "connector-secret-not-a-secret",
        lambda t: t["knowledge_bases"][0].update(
            sources=[{"type": "connector", "connector_type": "CONFLUENCE", "secret_arn": "arn:aws:s3:::bucket"}]
        ),
        "knowledge_bases[0].sources[0].secret_arn",
        ["is not a Secrets Manager secret ARN"],
    ),
]


def _source(tenant: dict, source: dict) -> None:
    tenant["knowledge_bases"][0].update(sources=[source])


WEB = {"type": "web", "seed_urls": ["https://example.com"]}
SECRET = "arn:aws:secretsmanager:us-west-2:123456789012:secret:s-AbCdEf"
SHAREPOINT = {"type": "connector", "connector_type": "SHAREPOINT", "secret_arn": SECRET}
CERTIFICATE = {"bucket": "acme-certs", "key": "sp/connector.pfx"}
SOURCE = "knowledge_bases[0].sources[0]"
CASES += [
    (
        "web-host-only-scope",
        lambda t: _source(t, {**WEB, "scope": "HOST_ONLY"}),
        SOURCE,
        ["'scope' was removed", "sync_scope"],
    ),
    (
        "web-url-filters",
        lambda t: _source(t, {**WEB, "exclusion_filters": [".*pdf"]}),
        SOURCE,
        ["'exclusion_filters' was removed", "no AWS source documents"],
    ),
    ("web-rate-limit", lambda t: _source(t, {**WEB, "rate_limit": 30}), SOURCE, ["max_crawled_urls_per_minute"]),
    (
        "web-eleven-seeds",
        lambda t: _source(t, {**WEB, "seed_urls": [f"https://e.com/{i}" for i in range(11)]}),
        f"{SOURCE}.seed_urls",
        ["at most 10"],
    ),
    (
        "web-four-sitemaps",
        lambda t: _source(t, {**WEB, "site_map_urls": [f"https://e.com/{i}.xml" for i in range(4)]}),
        f"{SOURCE}.site_map_urls",
        ["at most 3"],
    ),
    (
        "web-depth-11",
        lambda t: _source(t, {**WEB, "crawl_depth": 11}),
        f"{SOURCE}.crawl_depth",
        ["less than or equal to 10"],
    ),
    (
        "web-links-0",
        lambda t: _source(t, {**WEB, "max_links_per_url": 0}),
        f"{SOURCE}.max_links_per_url",
        ["greater than or equal to 1"],
    ),
    (
        "web-rate-1201",
        lambda t: _source(t, {**WEB, "max_crawled_urls_per_minute": 1201}),
        f"{SOURCE}.max_crawled_urls_per_minute",
        ["less than or equal to 1200"],
    ),
    (
        "web-scope-value",
        lambda t: _source(t, {**WEB, "sync_scope": "HOST_ONLY"}),
        f"{SOURCE}.sync_scope",
        ["'SUB_DOMAINS' or 'ALL_DOMAINS'"],
    ),
    (
        "web-auth-without-secret",
        lambda t: _source(t, {**WEB, "auth_type": "FORM"}),
        SOURCE,
        ["auth_type FORM needs secret_arn"],
    ),
    (
        "web-secret-without-auth",
        lambda t: _source(t, {**WEB, "secret_arn": SECRET}),
        SOURCE,
        ["only used when auth_type is not NO_AUTH"],
    ),
    (
        "salesforce-connector",
        lambda t: _source(t, {"type": "connector", "connector_type": "SALESFORCE", "secret_arn": SECRET}),
        f"{SOURCE}.connector_type",
        ["'CONFLUENCE', 'SHAREPOINT', 'GOOGLE_DRIVE', 'ONEDRIVE' or 'CUSTOM'"],
    ),
    (
        "custom-connector-schedule",
        lambda t: _source(t, {"type": "connector", "connector_type": "CUSTOM", "sync_schedule": {"every": "daily"}}),
        SOURCE,
        ["CUSTOM connector supports no sync_schedule", "remove it"],
    ),
    (
        "custom-connector-deletion-protection",
        lambda t: _source(t, {"type": "connector", "connector_type": "CUSTOM", "deletion_protection_threshold": 10}),
        SOURCE,
        ["CUSTOM connector supports no deletion_protection_threshold"],
    ),
    (
        "sharepoint-implicit-acl",
        lambda t: _source(t, SHAREPOINT),
        SOURCE,
        ["needs acl_enabled: true or false", "Graph"],
    ),
    (
        "sharepoint-retired-auth",
        lambda t: _source(
            t,
            {**SHAREPOINT, "acl_enabled": False, "parameters": {"connectionConfiguration": {"authType": "OAUTH2_APP"}}},
        ),
        SOURCE,
        ["OAUTH2_APP was retired", "ENTRA_ID_APP_ONLY"],
    ),
    (
        "sharepoint-app-only-without-certificate",
        lambda t: _source(
            t,
            {
                **SHAREPOINT,
                "acl_enabled": False,
                "parameters": {"connectionConfiguration": {"authType": "ENTRA_ID_APP_ONLY"}},
            },
        ),
        SOURCE,
        ["signs in with a certificate"],
    ),
    (
        "sharepoint-certificate-in-parameters",
        lambda t: _source(
            t,
            {**SHAREPOINT, "acl_enabled": False, "parameters": {"connectionConfiguration": {"certificateS3Path": {}}}},
        ),
        SOURCE,
        ["set certificate: {bucket, key} instead"],
    ),
    (
        "certificate-wildcard-key",
        lambda t: _source(t, {**SHAREPOINT, "acl_enabled": False, "certificate": {"bucket": "b-certs", "key": "sp/*"}}),
        f"{SOURCE}.certificate.key",
        ["must name one object"],
    ),
    (
        "acl-on-confluence",
        lambda t: _source(
            t, {"type": "connector", "connector_type": "CONFLUENCE", "secret_arn": SECRET, "acl_enabled": True}
        ),
        SOURCE,
        ["for SHAREPOINT and ONEDRIVE, not CONFLUENCE"],
    ),
    (
        "embedding-inference-profile",
        lambda t: t["knowledge_bases"][0].update(
            embedding={
                "type": "CUSTOM",
                "model_arn": "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.titan-embed-text-v2:0",
            }
        ),
        "knowledge_bases[0].embedding.model_arn",
        ["is not a Bedrock foundation model ARN", "no inference profile"],
    ),
]


@pytest.mark.parametrize(("change", "field", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_misuse_is_reported_with_file_field_and_fix(config_copy, change, field, words):
    path = config_copy.edit("tenants", "acme", change)
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    problems = [str(p) for p in caught.value.problems]
    matching = [p for p in problems if p.startswith(f"{path}: {field}:")]
    assert matching, problems
    assert all(word in matching[0] for word in words), matching[0]


def test_a_custom_connector_needs_no_secret(config_copy):
    config_copy.edit(
        "tenants",
        "acme",
        lambda t: t["knowledge_bases"][0].update(sources=[{"type": "connector", "connector_type": "CUSTOM"}]),
    )
    assert load_project(config_copy.root, "dev").tenants["acme"].knowledge_bases[0].sources[0].secret_arn is None


def test_a_custom_connector_with_a_secret_is_refused(config_copy):
    path = config_copy.edit(
        "tenants",
        "acme",
        lambda t: _source(t, {"type": "connector", "connector_type": "CUSTOM", "secret_arn": SECRET}),
    )
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    assert f"{path}: {SOURCE}: " in str(caught.value) and "signs in nowhere" in str(caught.value)


def test_sharepoint_with_explicit_acl_and_certificate_loads(config_copy):
    config_copy.edit(
        "tenants",
        "acme",
        lambda t: _source(
            t,
            {
                **SHAREPOINT,
                "acl_enabled": False,
                "certificate": CERTIFICATE,
                "parameters": {"connectionConfiguration": {"authType": "ENTRA_ID_APP_ONLY", "tenantId": "t"}},
            },
        ),
    )
    kb = load_project(config_copy.root, "dev").tenants["acme"].knowledge_bases[0]
    assert kb.certificate_bucket_arns("aws") == ["arn:aws:s3:::acme-certs"]
    assert kb.secret_arns() == [SECRET]


def test_two_tenants_cannot_share_a_source_bucket(config_copy):
    shared = {"type": "s3", "prefix": "x/", "bucket_arn": "arn:aws:s3:::shared-docs"}
    acme = config_copy.edit("tenants", "acme", lambda t: t["knowledge_bases"][0]["sources"].append(shared))
    path = config_copy.edit("tenants", "globex", lambda t: t["knowledge_bases"][0]["sources"].append(shared))
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    in_acme, problem = [str(p) for p in caught.value.problems]  # both sides: the loader cannot tell the owner
    assert in_acme.startswith(f"{acme}: knowledge_bases[0].sources[1].bucket_arn: ") and "tenant 'globex'" in in_acme
    assert problem.startswith(f"{path}: knowledge_bases[0].sources[1].bucket_arn: ")
    assert f"also named by tenant 'acme' ({acme}: knowledge_bases[0].sources[1].bucket_arn" in problem


def test_two_tenants_cannot_share_a_certificate_bucket_nor_use_anothers_source_bucket_for_it(config_copy):
    sharepoint = {
        **SHAREPOINT,
        "acl_enabled": False,
        "certificate": CERTIFICATE,
        "parameters": {"connectionConfiguration": {"authType": "ENTRA_ID_APP_ONLY", "tenantId": "t"}},
    }
    acme = config_copy.edit("tenants", "acme", lambda t: _source(t, sharepoint))
    path = config_copy.edit("tenants", "globex", lambda t: _source(t, sharepoint))
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    problems = [str(p) for p in caught.value.problems]  # each side, the certificate bucket and the secret
    assert len(problems) == 4 and sum(p.startswith(f"{acme}: ") for p in problems) == 2, problems
    (certificate,) = [
        p for p in problems if p.startswith(f"{path}: knowledge_bases[0].sources[0].certificate.bucket: ")
    ]
    assert "bucket acme-certs is also named by tenant 'acme'" in certificate
    assert any(p.startswith(f"{path}: knowledge_bases[0].sources[0].secret_arn: ") for p in problems)
