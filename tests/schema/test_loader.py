"""Each kind of bad config stops with a message naming the file, the field and what is allowed."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project
from schema.tenant import MAX_KNOWLEDGE_BASES


def _problems(config_copy, env="dev") -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, env)
    return [str(problem) for problem in caught.value.problems]


def test_the_example_environments_load_with_their_tenants():
    assert list(load_project("config", "dev").tenants) == ["acme", "globex"]
    assert list(load_project("config", "prod").tenants) == ["acme"]


def test_unknown_environment_lists_the_available_ones(config_copy):
    (problem,) = _problems(config_copy, env="staging")
    assert "staging.yaml" in problem and "available: dev, prod" in problem


def _kb(alias: str) -> dict:
    return {"alias": alias, "description": f"{alias} docs", "sources": [{"type": "s3", "prefix": f"{alias}/"}]}


TENANT_CASES = [
    # (id, change to acme.yaml, expected field path, expected words in the message)
    (
        "unknown-key",
        lambda t: t["retrieval"].update(max_result=3),
        "retrieval",
        ["unknown field 'max_result'", "did you mean 'max_results'"],
    ),
    (
        "six-knowledge-bases",
        lambda t: t.update(knowledge_bases=[_kb(f"kb{i}") for i in range(6)]),
        "knowledge_bases",
        [f"at most {MAX_KNOWLEDGE_BASES}"],
    ),
    (
        "duplicate-alias",
        lambda t: t.update(knowledge_bases=[_kb("docs"), _kb("docs")]),
        "knowledge_bases",
        ["duplicate knowledge base alias: docs"],
    ),
    (
        "empty-description",
        lambda t: t["knowledge_bases"][1].update(description="  "),
        "knowledge_bases[1].description",
        ["must not be empty"],
    ),
    (
        "bad-alias",
        lambda t: t["knowledge_bases"][0].update(alias="Docs_1"),
        "knowledge_bases[0].alias",
        ["lowercase letters, digits and hyphens"],
    ),
    (
        "anonymize-pii",
        lambda t: t["guardrail"]["pii_entities"][0].update(action="ANONYMIZE"),
        "guardrail.pii_entities[0].action",
        ["ANONYMIZE is not allowed", "only BLOCK"],
    ),
    (
        "mask-regex",
        lambda t: t["guardrail"].update(regexes=[{"name": "r", "pattern": "x", "action": "MASK"}]),
        "guardrail.regexes[0].action",
        ["MASK is not allowed"],
    ),
    ("guardrail-omitted", lambda t: t.pop("guardrail"), "guardrail", ["guardrail: none"]),
    (
        "custom-embedding-without-arn",
        lambda t: t["knowledge_bases"][0].update(embedding={"type": "CUSTOM"}),
        "knowledge_bases[0].embedding",
        ["needs model_arn"],
    ),
    (
        "managed-embedding-with-arn",
        lambda t: t["knowledge_bases"][0].update(
            embedding={
                "type": "MANAGED",
                "model_arn": "arn:aws:bedrock:us-west-2::foundation-model/amazon.titan-embed-text-v2:0",
            }
        ),
        "knowledge_bases[0].embedding",
        ["only used with embedding type CUSTOM"],
    ),
    (
        "unknown-source-type",
        lambda t: t["knowledge_bases"][0]["sources"][0].update(type="ftp"),
        "knowledge_bases[0].sources[0]",
        ["unknown type 'ftp'", "allowed: 's3', 'web', 'connector'"],
    ),
    (
        "unknown-connector-type",
        lambda t: t["knowledge_bases"][0].update(sources=[{"type": "connector", "connector_type": "DROPBOX"}]),
        "knowledge_bases[0].sources[0].connector_type",
        ["CONFLUENCE"],
    ),
    (
        "connector-without-secret",
        lambda t: t["knowledge_bases"][0].update(sources=[{"type": "connector", "connector_type": "SHAREPOINT"}]),
        "knowledge_bases[0].sources[0]",
        ["set secret_arn"],
    ),
    (
        "invalid-invoker-arn",
        lambda t: t["invokers"][0].update(arn="acme-app"),
        "invokers[0].arn",
        ["is not an IAM role or user ARN"],
    ),
    (
        "trusted-without-trusted-invoker",
        lambda t: t.update(user_context="trusted"),
        "",
        ["needs at least one invoker with trusted: true"],
    ),
    (
        "session-name-flag-without-acls",
        lambda t: t.update(user_context="none"),
        "",
        ["invokers[0].user_id_from_session_name is only used with user_context caller or trusted"],
    ),
    (
        "session-name-flag-on-an-iam-user",
        lambda t: t["invokers"][0].update(arn="arn:aws:iam::123456789012:user/acme-ops"),
        "",
        ["invokers[0].user_id_from_session_name", "is not a role"],
    ),
    (
        "caller-mode-with-no-vouched-identity",
        lambda t: t["invokers"][0].pop("user_id_from_session_name"),
        "",
        ["user_context: caller needs an invoker whose identity the endpoint can vouch for", "sts:RoleSessionName"],
    ),
    (
        "bad-iteration",
        lambda t: t["retrieval"].update(max_agent_iteration=50),
        "retrieval.max_agent_iteration",
        ["less than or equal to 10"],
    ),
]


@pytest.mark.parametrize(
    ("change", "field", "words"), [case[1:] for case in TENANT_CASES], ids=[case[0] for case in TENANT_CASES]
)
def test_bad_tenant_field_is_reported_with_file_and_field(config_copy, change, field, words):
    path = config_copy.edit("tenants", "acme", change)
    problems = _problems(config_copy)
    matching = [p for p in problems if p.startswith(f"{path}: {field}".rstrip(": ") + ":")]
    assert matching, problems
    assert all(word in matching[0] for word in words), matching[0]


ENV_CASES = [
    ("bad-account", lambda e: e.update(account="12345"), "account", ["12 digits"]),
    ("bad-region", lambda e: e.update(region="uswest2"), "region", ["not an AWS region"]),
    (
        "custom-planner-without-arn",
        lambda e: e.update(planner={"type": "CUSTOM"}),
        "planner",
        ["type CUSTOM needs model_arn"],
    ),
    (
        "custom-reranking-without-arn",
        lambda e: e.update(reranking={"type": "CUSTOM"}),
        "reranking",
        ["type CUSTOM needs model_arn"],
    ),
    (
        "invalid-model-arn",
        lambda e: e["planner"].update(model_arn="nova-lite"),
        "planner.model_arn",
        ["is not a Bedrock foundation model or inference profile ARN"],
    ),
    ("duplicate-tenant", lambda e: e.update(tenants=["acme", "acme"]), "tenants", ["duplicate tenant: acme"]),
    (
        "unknown-tenant",
        lambda e: e.update(tenants=["acme", "initech"]),
        "tenants[1]",
        ["unknown tenant 'initech'", "acme, globex"],
    ),
    ("bad-retention", lambda e: e.update(log_retention_days=31), "log_retention_days", ["allowed: 1, 3"]),
    ("bad-removal-policy", lambda e: e.update(removal_policy="delete"), "removal_policy", ["'retain' or 'destroy'"]),
    (
        "web-adapter-layer-that-appends-the-request-context",  # issue 14: layers 10-17 let callers forge it
        lambda e: e["endpoint"].update(web_adapter_layer_version=17),
        "endpoint.web_adapter_layer_version",
        ["older than 18", "v0.7.2", "x-amzn-request-context", "forge"],
    ),
    (
        "deadline-above-timeout",
        lambda e: e["endpoint"].update(deadline_seconds=400),
        "endpoint",
        ["must be below timeout_seconds"],
    ),
]


@pytest.mark.parametrize(
    ("change", "field", "words"), [case[1:] for case in ENV_CASES], ids=[case[0] for case in ENV_CASES]
)
def test_bad_environment_field_is_reported_with_file_and_field(config_copy, change, field, words):
    path = config_copy.edit("environments", "dev", change)
    problems = _problems(config_copy)
    matching = [p for p in problems if p.startswith(f"{path}: {field}:")]
    assert matching, problems
    assert all(word in matching[0] for word in words), matching[0]


def test_invalid_yaml_names_the_line(config_copy):
    config_copy.path("tenants", "globex").write_text("description: x\nknowledge_bases: [\n")
    (problem,) = _problems(config_copy)
    assert "globex.yaml" in problem and "not valid YAML at line" in problem


def test_a_key_written_twice_is_an_error_not_a_silent_override(config_copy):
    path = config_copy.path("environments", "dev")
    path.write_text(path.read_text() + "region: eu-west-1\n")
    (problem,) = _problems(config_copy)
    assert "duplicate key 'region'" in problem


def test_every_problem_in_every_file_is_reported_at_once(config_copy):
    config_copy.edit("tenants", "acme", lambda t: t.update(description=""))
    config_copy.edit("tenants", "globex", lambda t: t.update(reserved_concurrency=0))
    problems = _problems(config_copy)
    assert any("acme.yaml: description" in p for p in problems)
    assert any("globex.yaml: reserved_concurrency" in p for p in problems)


def test_guardrail_none_is_an_explicit_opt_out(config_copy):
    config_copy.edit("tenants", "acme", lambda t: t.update(guardrail="none"))
    assert load_project(config_copy.root, "dev").tenants["acme"].guardrail is None


def test_an_environment_error_does_not_hide_the_tenant_files_errors(config_copy):
    config_copy.edit("environments", "dev", lambda e: e.update(region="mars-1"))
    config_copy.edit("tenants", "acme", lambda t: t.update(description=""))
    config_copy.edit("tenants", "globex", lambda t: t.update(reserved_concurrency=0))
    problems = _problems(config_copy)
    assert any("dev.yaml: region" in p for p in problems)
    assert any("acme.yaml: description" in p for p in problems)
    assert any("globex.yaml: reserved_concurrency" in p for p in problems)


def test_an_unreadable_environment_still_reports_every_tenant_files_errors(config_copy):
    config_copy.path("environments", "dev").write_text("tenants: [\n")
    config_copy.edit("tenants", "globex", lambda t: t.update(reserved_concurrency=0))
    problems = _problems(config_copy)
    assert any("dev.yaml" in p and "not valid YAML" in p for p in problems)
    assert any("globex.yaml: reserved_concurrency" in p for p in problems)


@pytest.mark.parametrize("env_name", ["../..", "../environments/dev", "/etc/passwd", "Dev"])
def test_an_environment_name_that_is_not_a_name_is_refused_before_any_file_is_read(config_copy, env_name):
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, env_name)
    (problem,) = caught.value.problems
    assert f"environment name '{env_name}' is not a name" in str(problem)


def test_a_regular_expression_that_does_not_parse_is_a_config_error(config_copy):
    config_copy.edit("tenants", "acme", lambda t: t["guardrail"].update(regexes=[{"name": "ids", "pattern": "([A-Z"}]))
    problems = _problems(config_copy)
    field = "guardrail.regexes[0].pattern"
    assert any(f"acme.yaml: {field}: " in p and "not a valid regular expression" in p for p in problems), problems


def test_unicode_property_classes_are_left_to_the_service(config_copy):
    config_copy.edit("tenants", "acme", lambda t: t["guardrail"].update(regexes=[{"name": "w", "pattern": r"\p{Lu}+"}]))
    assert load_project(config_copy.root, "dev").tenants["acme"].guardrail.regexes[0].pattern == r"\p{Lu}+"
