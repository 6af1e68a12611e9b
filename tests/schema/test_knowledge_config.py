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
