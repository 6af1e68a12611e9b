"""ARNs in config cannot widen IAM: every ARN field is typed, wildcards are refused with file and field.

Issue 14, item 5: `akb validate` accepted `*` inside ARNs that become IAM resources.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import AfterValidator, BaseModel, TypeAdapter, ValidationError

from schema import ConfigError, Environment, Tenant, load_project
from schema.arn_types import ARN_KINDS, ArnKind
from tests.conftest import REPO

PROFILE_WILDCARD = "arn:aws:bedrock:us-west-2:123456789012:inference-profile/*"
KEY_WILDCARD = "arn:aws:kms:us-west-2:123456789012:key/*"
SECRET_WILDCARD = "arn:aws:secretsmanager:us-west-2:123456789012:secret:*"
BUCKET_WILDCARD = "arn:aws:s3:::*"


def _problems(config_copy, env: str = "dev") -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, env)
    return [str(problem) for problem in caught.value.problems]


def _reported(problems: list[str], path, field: str) -> str:
    matching = [problem for problem in problems if problem.startswith(f"{path}: {field}:")]
    assert matching, problems
    return matching[0]


# --- the five findings of the issue, each through the loader --------------------------------


def _custom_rerank(env: dict) -> None:
    env["reranking"] = {"type": "CUSTOM", "model_arn": PROFILE_WILDCARD}


REPORTED_CASES = [
    # (id, file kind, file name, change, field path)
    (
        "guardrail-kms-star",
        "tenants",
        "acme",
        lambda t: t["guardrail"].update(kms_key_arn="*"),
        "guardrail.kms_key_arn",
    ),
    (
        "secret-star",
        "tenants",
        "globex",
        lambda t: t["knowledge_bases"][1]["sources"][0].update(secret_arn=SECRET_WILDCARD),
        "knowledge_bases[1].sources[0].secret_arn",
    ),
    (
        "knowledge-base-key-star",
        "tenants",
        "acme",
        lambda t: t["knowledge_bases"][0].update(kms_key_arn=KEY_WILDCARD),
        "knowledge_bases[0].kms_key_arn",
    ),
    (
        "planner-profile-star",
        "environments",
        "dev",
        lambda e: e["planner"].update(model_arn=PROFILE_WILDCARD),
        "planner.model_arn",
    ),
    (
        "bucket-star",
        "tenants",
        "acme",
        lambda t: t["knowledge_bases"][0]["sources"][0].update(bucket_arn=BUCKET_WILDCARD),
        "knowledge_bases[0].sources[0].bucket_arn",
    ),
]


@pytest.mark.parametrize(
    ("kind", "name", "change", "field"), [c[1:] for c in REPORTED_CASES], ids=[c[0] for c in REPORTED_CASES]
)
def test_wildcard_arn_from_the_issue_is_refused_naming_file_and_field(config_copy, kind, name, change, field):
    path = config_copy.edit(kind, name, change)
    problem = _reported(_problems(config_copy), path, field)
    assert "wildcard" in problem and "must name exactly one resource" in problem


def test_synth_of_wildcard_arns_stops_with_every_field_named_and_no_traceback(config_copy, tmp_path):
    for _, kind, name, change, _field in REPORTED_CASES:
        if kind == "tenants":
            config_copy.edit(kind, name, change)
    env = dict(
        os.environ,
        CDK_CONTEXT_JSON=json.dumps({"env": "dev", "config": str(config_copy.root)}),
        CDK_OUTDIR=str(tmp_path / "out"),
    )
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    for _, kind, name, _change, field in REPORTED_CASES:
        if kind == "tenants":
            assert f"tenants/{name}.yaml: {field}: " in result.stderr, result.stderr


def test_akb_policy_refuses_a_bucket_wildcard_instead_of_printing_get_object_on_every_bucket(config_copy):
    config_copy.edit("tenants", "acme", REPORTED_CASES[4][3])
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "client",
            "policy",
            "--env",
            "dev",
            "--tenant",
            "acme",
            "--config",
            str(config_copy.root),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode != 0
    assert "s3:GetObject" not in result.stdout
    assert "knowledge_bases[0].sources[0].bucket_arn" in result.stderr and "Traceback" not in result.stderr


# --- every ARN field of the schema, found by walking the models -----------------------------


def _arn_kind(annotation: object) -> ArnKind | None:
    for item in getattr(annotation, "__metadata__", ()):
        if isinstance(item, ArnKind):
            return item
    return None


def _members(annotation: object) -> Iterator[object]:
    """The annotation and everything nested in it (Optional, lists, unions, Annotated)."""
    yield annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        yield from _members(typing.get_args(annotation)[0])
        return
    if origin is typing.Literal:
        return
    for arg in typing.get_args(annotation):
        yield from _members(arg)


def arn_fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str, object]]:
    """(path, field name, annotation) of every field, recursing into nested models."""
    for name, field in model.model_fields.items():
        path = f"{prefix}.{name}" if prefix else f"{model.__name__}.{name}"
        annotation = field.rebuild_annotation()
        yield path, name, annotation
        for member in _members(annotation):
            if isinstance(member, type) and issubclass(member, BaseModel):
                yield from arn_fields(member, path)


def _typed_fields() -> dict[str, ArnKind]:
    typed = {}
    for path, _name, annotation in [*arn_fields(Environment), *arn_fields(Tenant)]:
        kinds = {kind for member in _members(annotation) if (kind := _arn_kind(member))}
        if kinds:
            (typed[path],) = kinds
    return typed


def test_every_field_named_like_an_arn_has_an_arn_type():
    untyped = [
        path
        for path, name, annotation in [*arn_fields(Environment), *arn_fields(Tenant)]
        if (
            "arn" in name.split("_") or name.endswith("_arns") or name in ("cross_account_readers", "break_glass_roles")
        )
        and not any(_arn_kind(member) for member in _members(annotation))
    ]
    assert untyped == []


# How to put a value into each ARN field of the example config; the walker must find exactly these.
def _domain(certificate_arn: str) -> dict:
    return {"domain_name": "search.example.com", "certificate_arn": certificate_arn}


def _set_tenant(name: str, setter):
    return ("tenants", name, setter)


FIELD_SETTERS = {
    "Environment.planner.model_arn": (
        ("environments", "dev", lambda e, v: e["planner"].update(type="CUSTOM", model_arn=v)),
        "planner.model_arn",
    ),
    "Environment.reranking.model_arn": (
        ("environments", "dev", lambda e, v: e.update(reranking={"type": "CUSTOM", "model_arn": v})),
        "reranking.model_arn",
    ),
    "Environment.log_kms_key_arn": (
        ("environments", "dev", lambda e, v: e.update(log_kms_key_arn=v)),
        "log_kms_key_arn",
    ),
    "Environment.quality_gate_role_arn": (
        ("environments", "dev", lambda e, v: e.update(quality_gate_role_arn=v)),
        "quality_gate_role_arn",
    ),
    "Tenant.knowledge_bases.sources.bucket_arn": (
        _set_tenant("acme", lambda t, v: t["knowledge_bases"][0]["sources"][0].update(bucket_arn=v)),
        "knowledge_bases[0].sources[0].bucket_arn",
    ),
    "Tenant.knowledge_bases.sources.secret_arn": (
        _set_tenant("globex", lambda t, v: t["knowledge_bases"][1]["sources"][0].update(secret_arn=v)),
        "knowledge_bases[1].sources[0].secret_arn",
    ),
    "Tenant.knowledge_bases.embedding.model_arn": (
        _set_tenant("acme", lambda t, v: t["knowledge_bases"][0].update(embedding={"type": "CUSTOM", "model_arn": v})),
        "knowledge_bases[0].embedding.model_arn",
    ),
    "Tenant.knowledge_bases.kms_key_arn": (
        _set_tenant("acme", lambda t, v: t["knowledge_bases"][1].update(kms_key_arn=v)),
        "knowledge_bases[1].kms_key_arn",
    ),
    "Tenant.guardrail.kms_key_arn": (
        _set_tenant("acme", lambda t, v: t["guardrail"].update(kms_key_arn=v)),
        "guardrail.kms_key_arn",
    ),
    "Tenant.agent.foundation_model": (
        _set_tenant("globex", lambda t, v: t["agent"].update(foundation_model=v)),
        "agent.foundation_model",
    ),
    "Tenant.invokers.arn": (
        _set_tenant("acme", lambda t, v: t["invokers"][0].update(arn=v)),
        "invokers[0].arn",
    ),
    "Tenant.knowledge_base_access.cross_account_readers": (
        _set_tenant("acme", lambda t, v: t.update(knowledge_base_access={"cross_account_readers": [v]})),
        "knowledge_base_access.cross_account_readers[0]",
    ),
    "Environment.endpoint.api_gateway.custom_domain.certificate_arn": (
        ("environments", "dev", lambda e, v: e["endpoint"].update(api_gateway={"custom_domain": _domain(v)})),
        "endpoint.api_gateway.custom_domain.certificate_arn",
    ),
    "Environment.endpoint.api_gateway.web_acl_arn": (
        ("environments", "dev", lambda e, v: e["endpoint"].update(api_gateway={"web_acl_arn": v})),
        "endpoint.api_gateway.web_acl_arn",
    ),
    "Tenant.endpoint.api_gateway.custom_domain.certificate_arn": (
        _set_tenant("acme", lambda t, v: t.update(endpoint={"api_gateway": {"custom_domain": _domain(v)}})),
        "endpoint.api_gateway.custom_domain.certificate_arn",
    ),
    "Tenant.endpoint.api_gateway.web_acl_arn": (
        _set_tenant("acme", lambda t, v: t.update(endpoint={"api_gateway": {"web_acl_arn": v}})),
        "endpoint.api_gateway.web_acl_arn",
    ),
    "Tenant.knowledge_base_access.break_glass_roles": (
        _set_tenant("acme", lambda t, v: t.update(knowledge_base_access={"break_glass_roles": [v]})),
        "knowledge_base_access.break_glass_roles[0]",
    ),
}


def test_the_walk_finds_every_arn_field_this_test_knows_how_to_set():
    assert sorted(_typed_fields()) == sorted(FIELD_SETTERS)


def _wildcard_variants(example: str) -> list[str]:
    """The example with `*` (or `?`) in each part an attacker could widen, plus bare `*`."""
    parts = example.split(":", 5)
    variants = ["*", example[:-1] + "*", example[:-1] + "?"]
    for index in (3, 4):  # region, account
        if parts[index]:
            variants.append(":".join([*parts[:index], "*", *parts[index + 1 :]]))
    head, _, _tail = parts[5].rpartition("/")
    variants.append(":".join([*parts[:5], f"{head}/*" if head else "*"]))
    return variants


@pytest.mark.parametrize("path", sorted(FIELD_SETTERS))
def test_each_arn_field_refuses_wildcards_through_the_loader_naming_file_and_field(config_copy, path):
    (kind, name, setter), field = FIELD_SETTERS[path]
    arn_kind = _typed_fields()[path]
    valid = config_copy.edit(kind, name, lambda data: setter(data, arn_kind.example))
    load_project(config_copy.root, "dev")  # the kind's example is accepted in this very field
    for value in _wildcard_variants(arn_kind.example):
        config_copy.edit(kind, name, lambda data, value=value: setter(data, value))
        problem = _reported(_problems(config_copy), valid, field)
        assert "wildcard" in problem, (value, problem)


@pytest.mark.parametrize("kind", ARN_KINDS, ids=[kind.what for kind in ARN_KINDS])
def test_each_kind_accepts_its_example_and_refuses_other_services_and_shapes(kind):
    adapter = TypeAdapter(typing.Annotated[str, kind, AfterValidator(kind.check)])
    assert adapter.validate_python(kind.example) == kind.example
    wrong_service = kind.example.replace(f":{kind.service}:", ":sqs:", 1)
    for bad in (wrong_service, "not-an-arn", kind.example + " x", kind.example.replace("arn:aws", "arn:xyz")):
        with pytest.raises(ValidationError, match=f"is not {kind.what}"):
            adapter.validate_python(bad)


def test_kms_alias_and_partial_secret_arns_are_refused_with_the_reason():
    from schema.arn_types import KMS_KEY, SECRET

    with pytest.raises(ValueError, match="aliases are not accepted"):
        KMS_KEY.check("arn:aws:kms:us-west-2:123456789012:alias/acme")
    with pytest.raises(ValueError, match=r"secret:<name>-<6 characters>"):
        SECRET.check("arn:aws:secretsmanager:us-west-2:123456789012:secret:acme")


def test_knowledge_base_readers_must_respect_the_environments_account(config_copy):
    same_account = "arn:aws:iam::123456789012:role/acme-partner"
    other_account = "arn:aws:iam::999999999999:role/console"
    path = config_copy.edit(
        "tenants",
        "acme",
        lambda t: t.update(
            knowledge_base_access={"cross_account_readers": [same_account], "break_glass_roles": [other_account]}
        ),
    )
    problems = _problems(config_copy)
    assert "environment's own account" in _reported(problems, path, "knowledge_base_access.cross_account_readers[0]")
    assert "not in the environment's account" in _reported(problems, path, "knowledge_base_access.break_glass_roles[0]")


# --- issue 26 (Low): ARNs are ASCII, traverse no path, and sit in the environment's partition ---


def _other_partitions(example: str) -> list[tuple[str, str]]:
    return [(example.replace("arn:aws:", f"arn:{partition}:", 1), partition) for partition in ("aws-cn", "aws-us-gov")]


@pytest.mark.parametrize("path", sorted(FIELD_SETTERS))
def test_each_arn_field_refuses_another_partition_than_the_environments(config_copy, path):
    """dev deploys to us-west-2 (partition aws): an aws-cn or aws-us-gov ARN names nothing there."""
    (kind, name, setter), field = FIELD_SETTERS[path]
    example = _typed_fields()[path].example
    for value, partition in _other_partitions(example):
        written = config_copy.edit(kind, name, lambda data, value=value: setter(data, value))
        problem = _reported(_problems(config_copy), written, field)
        assert f"partition {partition}" in problem and "expected partition aws" in problem, problem
        assert "us-west-2" in problem and "environments/dev.yaml" in problem, problem


@pytest.mark.parametrize("path", sorted(FIELD_SETTERS))
def test_each_arn_field_refuses_non_ascii_look_alikes(config_copy, path):
    (kind, name, setter), field = FIELD_SETTERS[path]
    example = _typed_fields()[path].example
    look_alike = example[:4] + example[4:].replace("e", "\u0435", 1)  # Cyrillic small ie (U+0435) for "e"
    written = config_copy.edit(kind, name, lambda data: setter(data, look_alike))
    problem = _reported(_problems(config_copy), written, field)
    assert "non-ASCII character U+0435" in problem and "\\u0435" in problem, problem


def test_a_cyrillic_homoglyph_in_an_invoker_role_is_refused(config_copy):
    forged = "arn:aws:iam::123456789012:role/\u0430cme-app"  # Cyrillic small a (U+0430): reads as acme-app
    path = config_copy.edit("tenants", "acme", lambda t: t["invokers"][0].update(arn=forged))
    problem = _reported(_problems(config_copy), path, "invokers[0].arn")
    assert "non-ASCII character U+0430" in problem


@pytest.mark.parametrize(
    ("field_setter", "field", "value"),
    [
        (lambda t, v: t["invokers"][0].update(arn=v), "invokers[0].arn", "arn:aws:iam::123456789012:role/../admin"),
        (lambda t, v: t["invokers"][0].update(arn=v), "invokers[0].arn", "arn:aws:iam::123456789012:role/team/./x"),
        (
            lambda t, v: t.update(knowledge_base_access={"break_glass_roles": [v]}),
            "knowledge_base_access.break_glass_roles[0]",
            "arn:aws:iam::123456789012:role/ops/../../x",
        ),
    ],
)
def test_path_traversal_segments_are_refused(config_copy, field_setter, field, value):
    path = config_copy.edit("tenants", "acme", lambda t: field_setter(t, value))
    problem = _reported(_problems(config_copy), path, field)
    assert "path segment" in problem and ("'..'" in problem or "'.'" in problem), problem


def test_a_secret_name_with_a_traversal_segment_is_refused(config_copy):
    value = "arn:aws:secretsmanager:us-west-2:123456789012:secret:globex/../acme-confluence-AbCdEf"
    path = config_copy.edit(
        "tenants", "globex", lambda t: t["knowledge_bases"][1]["sources"][0].update(secret_arn=value)
    )
    assert "path segment '..'" in _reported(_problems(config_copy), path, "knowledge_bases[1].sources[0].secret_arn")


def test_an_environment_in_another_partition_takes_that_partitions_arns(config_copy):
    """The rule follows the region: a China environment refuses `arn:aws:` and accepts `arn:aws-cn:`."""

    def china(env: dict) -> None:
        env.update(region="cn-north-1", tenants=["acme"])
        env["planner"] = {
            "type": "CUSTOM",
            "model_arn": "arn:aws-cn:bedrock:cn-north-1::foundation-model/amazon.nova-lite-v1:0",
        }

    env_path = config_copy.edit("environments", "dev", china)
    tenant_path = config_copy.path("tenants", "acme")
    problems = _problems(config_copy)
    assert not [p for p in problems if p.startswith(f"{env_path}: planner")], problems
    invoker = _reported(problems, tenant_path, "invokers[0].arn")
    assert "partition aws" in invoker and "expected partition aws-cn" in invoker and "cn-north-1" in invoker


def test_the_partition_table_matches_botocores_regions():
    """schema.arn_partition keeps the region patterns of botocore's partitions.json (ledger)."""
    import botocore

    from schema.arn_partition import PARTITION_REGIONS

    data = json.loads((Path(botocore.__file__).parent / "data" / "partitions.json").read_text())
    assert {p["id"]: p["regionRegex"] for p in data["partitions"]} == dict(PARTITION_REGIONS)
