"""Alarm thresholds: bad values are reported with file and field; overrides and defaults resolve as documented."""

from __future__ import annotations

import pytest

from schema import ConfigError, load_project
from schema.alarm_config import account_thresholds, expected_iterations, tenant_thresholds


def _problems(config_copy) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    return [str(problem) for problem in caught.value.problems]


ENV_CASES = [
    ("zero-error-rate", {"error_rate_percent": 0}, "alarms.error_rate_percent", ["greater than 0"]),
    ("error-rate-above-100", {"error_rate_percent": 150}, "alarms.error_rate_percent", ["less than or equal to 100"]),
    ("no-evaluation-periods", {"evaluation_periods": 0}, "alarms.evaluation_periods", ["greater than or equal to 1"]),
    ("period-above-an-hour", {"period_minutes": 90}, "alarms.period_minutes", ["less than or equal to 60"]),
    (
        "ttfe-too-small",
        {"time_to_first_event_p95_ms": 5},
        "alarms.time_to_first_event_p95_ms",
        ["greater than or equal to 100"],
    ),
    ("negative-throttles", {"bedrock_throttles": -1}, "alarms.bedrock_throttles", ["greater than or equal to 0"]),
    (
        "quota-percent-above-100",
        {"quota_utilization_percent": 120},
        "alarms.quota_utilization_percent",
        ["less than or equal to 100"],
    ),
    ("iterations-above-cap", {"iterations_p90": 11}, "alarms.iterations_p90", ["less than or equal to 10"]),
    ("misspelled-threshold", {"error_rate": 5}, "alarms", ["unknown field 'error_rate'", "error_rate_percent"]),
]


@pytest.mark.parametrize(("change", "field", "words"), [c[1:] for c in ENV_CASES], ids=[c[0] for c in ENV_CASES])
def test_bad_environment_threshold_is_reported_with_file_and_field(config_copy, change, field, words):
    path = config_copy.edit("environments", "dev", lambda e: e["alarms"].update(change))
    matching = [p for p in _problems(config_copy) if p.startswith(f"{path}: {field}:")]
    assert matching, _problems(config_copy)
    assert all(word in matching[0] for word in words), matching[0]


def test_the_agentic_quota_must_be_positive(config_copy):
    path = config_copy.edit("environments", "dev", lambda e: e["quota"].update(agentic_requests_per_minute=0))
    assert any(p.startswith(f"{path}: quota.agentic_requests_per_minute:") for p in _problems(config_copy))


TENANT_CASES = [
    ("negative-deadline-stops", {"deadline_stops": -2}, "alarms.deadline_stops", ["greater than or equal to 0"]),
    ("zero-iterations", {"iterations_average": 0}, "alarms.iterations_average", ["greater than 0"]),
    # Who is notified and how long a breach lasts are the environment's, not a tenant's.
    ("emails-not-per-tenant", {"emails": ["a@example.com"]}, "alarms", ["unknown field 'emails'"]),
    ("periods-not-per-tenant", {"evaluation_periods": 1}, "alarms", ["unknown field 'evaluation_periods'"]),
]


@pytest.mark.parametrize(("change", "field", "words"), [c[1:] for c in TENANT_CASES], ids=[c[0] for c in TENANT_CASES])
def test_bad_tenant_threshold_is_reported_with_file_and_field(config_copy, change, field, words):
    path = config_copy.edit("tenants", "acme", lambda t: t.update(alarms=change))
    matching = [p for p in _problems(config_copy) if p.startswith(f"{path}: {field}:")]
    assert matching, _problems(config_copy)
    assert all(word in matching[0] for word in words), matching[0]


@pytest.mark.parametrize(
    ("knowledge_bases", "cap", "expected"),
    [(1, 5, 3), (1, 2, 2), (2, 3, 3), (2, 5, 4), (5, 10, 4), (1, 0, 1)],
)
def test_expected_iterations_follow_aws_guidance_and_never_exceed_the_cap(knowledge_bases, cap, expected):
    assert expected_iterations(knowledge_bases, cap) == expected


def test_tenant_value_wins_over_environment_which_wins_over_derived(config_copy):
    config_copy.edit("environments", "dev", lambda e: e["alarms"].update(error_rate_percent=7, iterations_average=6))
    config_copy.edit("tenants", "acme", lambda t: t.update(alarms={"error_rate_percent": 1.5}))
    project = load_project(config_copy.root, "dev")
    acme = tenant_thresholds(project.environment, project.tenants["acme"])
    globex = tenant_thresholds(project.environment, project.tenants["globex"])
    assert (acme.error_rate_percent, globex.error_rate_percent) == (1.5, 7)
    assert acme.iterations_average == globex.iterations_average == 6


def test_example_thresholds_derive_iterations_from_each_tenant():
    project = load_project("config", "dev")
    acme = tenant_thresholds(project.environment, project.tenants["acme"])  # 2 KBs, cap 3
    globex = tenant_thresholds(project.environment, project.tenants["globex"])  # 2 KBs, cap 4
    assert (acme.iterations_average, globex.iterations_average) == (3, 4)
    assert globex.time_to_first_event_p95_ms == 8000  # globex.yaml overrides the environment's 5000
    account = account_thresholds(project.environment, project.tenants.values())
    assert (account.iterations_average, account.iterations_p90) == (4, 4)
    assert account.quota_per_minute == 300 and account.quota_alarm_calls_per_minute == 240
