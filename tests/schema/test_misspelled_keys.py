"""A misspelled key hides nothing: what is nested under it, and everything beside it, is reported in one run."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project


def _problems(config_copy, env: str = "dev") -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, env)
    return [str(problem) for problem in caught.value.problems]


def _misspell(data: dict, key: str, typo: str) -> None:
    data[typo] = data.pop(key)


def test_a_typod_top_level_key_reports_the_errors_nested_below_it_and_beside_it(config_copy):
    def change(tenant: dict) -> None:
        tenant["retrieval"]["max_agent_iteration"] = 99
        _misspell(tenant, "retrieval", "retreival")
        tenant["guardrail"]["content_filters"][0]["input_strength"] = "HUGE"
        tenant["reserved_concurrency"] = -1

    config_copy.edit("tenants", "globex", change)
    problems = _problems(config_copy)
    file = str(config_copy.path("tenants", "globex"))
    assert problems[0] == (
        f"{file}: unknown field 'retreival' (did you mean 'retrieval'?); allowed fields: "
        "agent, alarms, cache, canary, cost_center, description, endpoint, gateway, guardrail, ingestion_logs, "
        "invokers, knowledge_base_access, knowledge_bases, memory, quality, quota, reserved_concurrency, retrieval, "
        "routing, "
        "user_context"
    )
    assert any(
        p.startswith(f"{file}: retreival.max_agent_iteration: Input should be less than or equal to 10")
        and p.endswith("(checked as retrieval.max_agent_iteration)")
        for p in problems
    ), problems
    assert any(p.startswith(f"{file}: guardrail.content_filters[0].input_strength:") for p in problems), problems
    assert any(p.startswith(f"{file}: reserved_concurrency:") for p in problems), problems


def test_typos_nested_under_a_typo_are_found_in_the_same_run(config_copy):
    def change(tenant: dict) -> None:
        source = tenant["knowledge_bases"][0]["sources"][0]
        source["deletion_protection_threshold"] = 500
        _misspell(source, "deletion_protection_threshold", "deletion_protection_treshold")
        _misspell(tenant["knowledge_bases"][0], "sources", "sourcse")

    config_copy.edit("tenants", "acme", change)
    problems = _problems(config_copy)
    file = str(config_copy.path("tenants", "acme"))
    assert any(
        p.startswith(f"{file}: knowledge_bases[0]: unknown field 'sourcse' (did you mean 'sources'?)") for p in problems
    ), problems
    assert any("knowledge_bases[0].sourcse[0]: unknown field 'deletion_protection_treshold'" in p for p in problems), (
        problems
    )
    assert any(
        p.startswith(f"{file}: knowledge_bases[0].sourcse[0].deletion_protection_treshold:") for p in problems
    ), problems


def test_a_key_without_a_close_field_is_reported_and_the_rest_still_checked(config_copy):
    def change(tenant: dict) -> None:
        tenant["colour"] = "blue"
        tenant["reserved_concurrency"] = -1

    config_copy.edit("tenants", "globex", change)
    problems = _problems(config_copy)
    assert any("unknown field 'colour';" in p for p in problems) and any("reserved_concurrency" in p for p in problems)


def test_a_typo_beside_the_right_key_is_dropped_not_merged(config_copy):
    config_copy.edit("tenants", "globex", lambda t: t.update(retreival={"max_agent_iteration": 99}))
    problems = _problems(config_copy)
    assert len(problems) == 1 and "unknown field 'retreival'" in problems[0]


def test_the_environment_file_is_read_the_same_way(config_copy):
    def change(env: dict) -> None:
        env["endpoint"]["memory_mb"] = 1
        _misspell(env, "endpoint", "endpiont")

    config_copy.edit("environments", "dev", change)
    problems = _problems(config_copy)
    assert any("unknown field 'endpiont' (did you mean 'endpoint'?)" in p for p in problems), problems
    assert any(": endpiont.memory_mb:" in p and "(checked as endpoint.memory_mb)" in p for p in problems), problems
