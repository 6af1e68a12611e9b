"""Every alarm in every synthesized stack can really notify: alarm -> action -> topic -> topic policy
and key policy, as IAM would evaluate CloudWatch's publish (tests/monitoring/alarm_delivery.py).

The negative tests mutate copies of the same synthesized templates, so the walker is shown to fail
for each way delivery breaks (the bug this guards against: a topic policy holding only the TLS Deny).
"""

from __future__ import annotations

import copy

import pytest

from tests.monitoring.alarm_delivery import Pseudo, Undeliverable, walk_alarms

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

PLATFORM = "dev-platform"


@pytest.fixture(scope="module")
def pseudo(synthesized) -> Pseudo:
    environment = synthesized.project.environment
    return Pseudo(account=environment.account or "111122223333", region=environment.region)


@pytest.fixture
def templates(synthesized) -> dict[str, dict]:
    return copy.deepcopy(synthesized.templates)


def _problems(templates, pseudo) -> dict[str, tuple[str, ...]]:
    return {f"{c.stack}/{c.name}": c.problems for c in walk_alarms(templates, pseudo) if c.problems}


def _resources(templates, stack, resource_type):
    return [r for r in templates[stack]["Resources"].values() if r["Type"] == resource_type]


def _topic_policy_statements(templates) -> list[dict]:
    (policy,) = _resources(templates, PLATFORM, "AWS::SNS::TopicPolicy")
    return policy["Properties"]["PolicyDocument"]["Statement"]


def _key_statements(templates) -> list[dict]:
    (key,) = _resources(templates, PLATFORM, "AWS::KMS::Key")
    return key["Properties"]["KeyPolicy"]["Statement"]


def _is_cloudwatch(statement: dict) -> bool:
    principal = statement.get("Principal")
    return isinstance(principal, dict) and principal.get("Service") == "cloudwatch.amazonaws.com"


def test_every_alarm_of_every_stack_can_publish_to_the_alarm_topic(templates, pseudo, synthesized):
    checks = walk_alarms(templates, pseudo)
    assert [c for c in checks if c.problems] == []
    stacks_with_alarms = {c.stack for c in checks}
    assert stacks_with_alarms == set(synthesized.templates), "a stack without alarms: not wired"
    assert {c.kind for c in checks} == {"Alarm", "CompositeAlarm"}
    for tenant in synthesized.project.tenants:
        assert any(c.kind == "CompositeAlarm" and c.stack == f"dev-{tenant}" for c in checks)


def test_the_walker_fails_when_it_matches_no_alarm(pseudo):
    with pytest.raises(Undeliverable, match="matched no alarm"):
        walk_alarms({"empty": {"Resources": {}}}, pseudo)


UNPAGED = "no notifying composite alarm names it"


def _every_alarm_fails_with(templates, pseudo, reason: str) -> None:
    """Alarms with actions fail for `reason`; the tenants' action-less alarms because their composite does."""
    problems = _problems(templates, pseudo)
    assert len(problems) == len(walk_alarms(templates, pseudo))
    for key, alarm_problems in problems.items():
        text = " ".join(alarm_problems)
        assert reason in text or UNPAGED in text, (key, text)
    assert any(reason in " ".join(p) for p in problems.values())


def test_a_topic_policy_with_only_the_tls_deny_fails_every_alarm(templates, pseudo):
    statements = _topic_policy_statements(templates)
    statements[:] = [s for s in statements if s["Effect"] == "Deny"]
    _every_alarm_fails_with(templates, pseudo, "no statement allows cloudwatch.amazonaws.com to sns:Publish")


def test_a_key_that_does_not_allow_cloudwatch_fails_every_alarm(templates, pseudo):
    statements = _key_statements(templates)
    statements[:] = [s for s in statements if not _is_cloudwatch(s)]
    _every_alarm_fails_with(templates, pseudo, "key policy")


def test_an_alarm_named_outside_the_allowed_source_arns_fails(templates, pseudo):
    (alarm,) = [
        r
        for r in _resources(templates, PLATFORM, "AWS::CloudWatch::Alarm")
        if r["Properties"]["AlarmName"].endswith("agentic-quota")
    ]
    alarm["Properties"]["AlarmName"] = "someone-elses-alarm"
    assert set(_problems(templates, pseudo)) == {f"{PLATFORM}/someone-elses-alarm"}


def test_another_accounts_alarms_are_not_allowed(templates, synthesized):
    """Rendered with another account, the alarm ARNs and aws:SourceAccount no longer match the literal
    account the dev environment pins in its policies."""
    assert synthesized.project.environment.account, "the dev example pins an account"
    other = Pseudo(account="999999999999", region=synthesized.project.environment.region)
    _every_alarm_fails_with(templates, other, "no statement allows")


def test_a_deny_the_walker_cannot_evaluate_fails_closed(templates, pseudo):
    _topic_policy_statements(templates).append(
        {
            "Effect": "Deny",
            "Principal": "*",
            "Action": "sns:Publish",
            "Resource": "*",
            "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01T00:00:00Z"}},
        }
    )
    _every_alarm_fails_with(templates, pseudo, "denies sns:Publish")


def test_an_alarm_without_actions_outside_any_composite_fails(templates, pseudo, synthesized):
    tenant_stack = f"dev-{next(iter(synthesized.project.tenants))}"
    (composite,) = _resources(templates, tenant_stack, "AWS::CloudWatch::CompositeAlarm")
    composite["Properties"]["AlarmRule"] = "FALSE"
    problems = _problems(templates, pseudo)
    assert problems and all(key.startswith(tenant_stack) for key in problems)
    assert all(UNPAGED in " ".join(p) for p in problems.values())


def test_a_cross_stack_export_that_no_stack_makes_fails(templates, pseudo, synthesized):
    tenant_stack = f"dev-{next(iter(synthesized.project.tenants))}"
    (composite,) = _resources(templates, tenant_stack, "AWS::CloudWatch::CompositeAlarm")
    composite["Properties"]["AlarmActions"] = [{"Fn::ImportValue": "nobody-exports-this"}]
    problems = _problems(templates, pseudo)
    assert any("no template exports 'nobody-exports-this'" in " ".join(p) for p in problems.values())


def test_an_action_read_from_ssm_is_followed_to_the_topic(templates, pseudo, synthesized):
    """The same topic handed over through an SSM parameter (as a tenant stack could read it)."""
    (topic_id,) = [k for k, r in templates[PLATFORM]["Resources"].items() if r["Type"] == "AWS::SNS::Topic"]
    templates[PLATFORM]["Resources"]["AlarmTopicParameter"] = {
        "Type": "AWS::SSM::Parameter",
        "Properties": {"Name": "/akb/dev/alarm-topic", "Type": "String", "Value": {"Ref": topic_id}},
    }
    tenant_stack = f"dev-{next(iter(synthesized.project.tenants))}"
    templates[tenant_stack].setdefault("Parameters", {})["AlarmTopicArn"] = {
        "Type": "AWS::SSM::Parameter::Value<String>",
        "Default": "/akb/dev/alarm-topic",
    }
    (composite,) = _resources(templates, tenant_stack, "AWS::CloudWatch::CompositeAlarm")
    composite["Properties"]["AlarmActions"] = [{"Ref": "AlarmTopicArn"}]
    composite["Properties"]["OKActions"] = ["{{resolve:ssm:/akb/dev/alarm-topic}}"]
    assert _problems(templates, pseudo) == {}
    del templates[PLATFORM]["Resources"]["AlarmTopicParameter"]
    assert _problems(templates, pseudo)


def test_the_topic_and_key_statements_are_conditioned_on_account_and_alarm_arns(synthesized):
    templates = synthesized.templates
    for statement in (*_topic_policy_statements(templates), *_key_statements(templates)):
        if not _is_cloudwatch(statement):
            continue
        conditions = statement["Condition"]
        assert set(conditions) == {"StringEquals", "ArnLike"}
        assert set(conditions["StringEquals"]) == {"aws:SourceAccount"}
        assert set(conditions["ArnLike"]) == {"aws:SourceArn"}
    assert sum(_is_cloudwatch(s) for s in _topic_policy_statements(templates)) == 1
    assert sum(_is_cloudwatch(s) for s in _key_statements(templates)) == 1
