"""`gateway:` in a tenant file: opt-in; refused where the interceptor could not tell whose documents a call reads."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project


def _problems(config_copy) -> list[str]:
    with pytest.raises(ConfigError) as raised:
        load_project(config_copy.root, "dev")
    return [str(problem) for problem in raised.value.problems]


def test_the_example_gateway_is_valid_and_opt_in(config_copy):
    project = load_project(config_copy.root, "dev")
    assert project.tenants["acme"].gateway is None
    gateway = project.tenants["globex"].gateway
    assert gateway.authorizer == "CUSTOM_JWT" and gateway.jwt.trusted_clients == ["globex-portal"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"authorizer": "AWS_IAM", "jwt": None},
            ["gateway.authorizer AWS_IAM cannot serve user_context: trusted", "CUSTOM_JWT"],
        ),
        ({"jwt": None}, ["CUSTOM_JWT needs `jwt:`"]),
        ({"requests_per_minute": 0}, ["requests_per_minute"]),
    ],
)
def test_an_unusable_gateway_is_reported_with_file_and_reason(config_copy, change, words):
    path = config_copy.edit("tenants", "globex", lambda t: t["gateway"].update(change))
    problems = [p for p in _problems(config_copy) if p.startswith(str(path))]
    assert problems and any(all(word in p for word in words) for p in problems), problems


def test_trusted_clients_must_be_allowed_clients(config_copy):
    path = config_copy.edit("tenants", "globex", lambda t: t["gateway"]["jwt"].update(trusted_clients=["stranger"]))
    assert any("trusted_clients stranger are not in allowed_clients" in p for p in _problems(config_copy)), path


def test_an_iam_gateway_serves_a_tenant_without_document_acls(config_copy):
    def iam_gateway(tenant: dict) -> None:
        tenant["user_context"] = "none"
        tenant["gateway"] = {"authorizer": "AWS_IAM"}
        for invoker in tenant["invokers"]:
            invoker.pop("user_id_from_session_name", None)  # only meaningful with document ACLs

    config_copy.edit("tenants", "acme", iam_gateway)
    gateway = load_project(config_copy.root, "dev").tenants["acme"].gateway
    assert gateway.authorizer == "AWS_IAM" and gateway.requests_per_minute == 60 and not gateway.retrieve_tool
