"""Can each synthesized alarm really notify? Walks alarm -> action -> topic -> topic policy and key policy.

Reads the templates the way CloudFormation and IAM will: an action is resolved to its topic through
`Ref`/`Fn::GetAtt`, cross-stack exports (`Fn::ImportValue`) and SSM parameters (a
`AWS::SSM::Parameter::Value<String>` parameter or a `{{resolve:ssm:...}}` reference) to a
`AWS::SSM::Parameter` some template writes; then the topic's `AWS::SNS::TopicPolicy` and its KMS key's
policy are evaluated for the request CloudWatch makes when an alarm fires: principal
`cloudwatch.amazonaws.com`, `sns:Publish` on the topic (and `kms:GenerateDataKey` + `kms:Decrypt` on
the key), with `aws:SourceAccount` = the account, `aws:SourceArn` = the alarm's ARN and
`aws:SecureTransport` = true. An explicit Deny that applies wins; without an Allow that applies the
request is denied (an `AWS::SNS::TopicPolicy` replaces SNS's default policy). A condition operator
this walker does not know makes an Allow not apply and a Deny apply: it fails closed.

Alarms without actions must be part of a composite alarm that can notify (tenants page once, through
their composite). Sources: https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any

from tests.stacks.templates import as_list, referenced_ids

CLOUDWATCH = "cloudwatch.amazonaws.com"
KEY_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")
ALARM_TYPES = ("AWS::CloudWatch::Alarm", "AWS::CloudWatch::CompositeAlarm")
ACTION_KEYS = ("AlarmActions", "OKActions", "InsufficientDataActions")
SSM_DYNAMIC = re.compile(r"^\{\{resolve:ssm:([^:}]+)(?::\d+)?\}\}$")


class Undeliverable(Exception):
    """Why one alarm action cannot be shown to reach a topic CloudWatch may publish to."""


@dataclass(frozen=True)
class Pseudo:
    """Values of the pseudo parameters both sides are rendered with (one account and region per env)."""

    account: str
    region: str
    partition: str = "aws"

    def values(self) -> dict[str, str]:
        return {
            "AWS::AccountId": self.account,
            "AWS::Region": self.region,
            "AWS::Partition": self.partition,
            "AWS::URLSuffix": "amazonaws.com",
        }


@dataclass(frozen=True)
class AlarmCheck:
    stack: str
    logical_id: str
    name: str
    kind: str
    problems: tuple[str, ...]


def render(node: Any, pseudo: Pseudo) -> str:
    """A string-valued intrinsic as text: pseudo parameters by value, other refs as `<ref:X>`."""
    if isinstance(node, str):
        return node
    if isinstance(node, dict) and len(node) == 1:
        ((key, arg),) = node.items()
        if key == "Fn::Join":
            return arg[0].join(render(part, pseudo) for part in arg[1])
        if key == "Ref":
            return pseudo.values().get(arg, f"<ref:{arg}>")
        if key == "Fn::GetAtt":
            target = arg if isinstance(arg, list) else arg.split(".")
            return f"<att:{'.'.join(target)}>"
        if key == "Fn::ImportValue":
            return f"<import:{render(arg, pseudo)}>"
    raise Undeliverable(f"cannot read {node!r}")


# --- action -> topic --------------------------------------------------------------------------------


def resolve_topic(templates: dict[str, dict], stack: str, value: Any, pseudo: Pseudo) -> tuple[str, str]:
    """(stack, logical id) of the AWS::SNS::Topic an alarm action value points at."""
    template = templates[stack]
    resources, parameters = template.get("Resources", {}), template.get("Parameters", {})
    if isinstance(value, dict) and ("Ref" in value or "Fn::GetAtt" in value):
        target = value["Ref"] if "Ref" in value else as_list(value["Fn::GetAtt"])[0].split(".")[0]
        if resources.get(target, {}).get("Type") == "AWS::SNS::Topic":
            return stack, target
        parameter = parameters.get(target, {})
        if parameter.get("Type") == "AWS::SSM::Parameter::Value<String>":
            return _from_ssm(templates, parameter.get("Default", ""), pseudo)
        raise Undeliverable(f"{stack}: {value} is not an SNS topic, an export or an SSM parameter")
    if isinstance(value, dict) and "Fn::ImportValue" in value:
        return _from_export(templates, render(value["Fn::ImportValue"], pseudo), pseudo)
    if isinstance(value, str) and SSM_DYNAMIC.match(value):
        return _from_ssm(templates, SSM_DYNAMIC.match(value)[1], pseudo)
    raise Undeliverable(f"{stack}: action {value!r} is not a topic this walker can trace (a literal ARN?)")


def _from_export(templates: dict[str, dict], name: str, pseudo: Pseudo) -> tuple[str, str]:
    for stack, template in templates.items():
        for output in template.get("Outputs", {}).values():
            export = output.get("Export", {}).get("Name")
            if export is not None and render(export, pseudo) == name:
                return resolve_topic(templates, stack, output["Value"], pseudo)
    raise Undeliverable(f"no template exports {name!r}")


def _from_ssm(templates: dict[str, dict], name: str, pseudo: Pseudo) -> tuple[str, str]:
    for stack, template in templates.items():
        for resource in template.get("Resources", {}).values():
            props = resource.get("Properties", {})
            if resource["Type"] == "AWS::SSM::Parameter" and render(props.get("Name", ""), pseudo) == name:
                return resolve_topic(templates, stack, props["Value"], pseudo)
    raise Undeliverable(f"no template writes the SSM parameter {name!r}")


# --- policy evaluation ------------------------------------------------------------------------------


def _principal_matches(statement: dict, service: str) -> bool:
    principal = statement.get("Principal")
    if principal == "*":
        return True
    if not isinstance(principal, dict):
        return False
    return service in as_list(principal.get("Service", [])) or "*" in as_list(principal.get("AWS", []))


def _matches_any(patterns: Any, value: str, pseudo: Pseudo, *, case: bool) -> bool:
    for pattern in as_list(patterns):
        text = render(pattern, pseudo)
        if (fnmatch.fnmatchcase if case else fnmatch.fnmatch)(
            value if case else value.lower(), text if case else text.lower()
        ):
            return True
    return False


KNOWN_OPERATORS = ("StringEquals", "ArnEquals", "StringLike", "ArnLike", "Bool")


def _conditions_hold(conditions: dict, context: dict[str, str], pseudo: Pseudo) -> bool | None:
    """True / False, or None when an operator is one this walker cannot evaluate."""
    if any(operator not in KNOWN_OPERATORS for operator in conditions):
        return None
    for operator, tests in conditions.items():
        for key, expected in tests.items():
            actual = context.get(key)
            if actual is None:
                return False  # a key absent from the request: the condition does not match
            values = [render(v, pseudo) for v in as_list(expected)]
            if operator in ("StringEquals", "ArnEquals"):
                ok = actual in values
            elif operator in ("StringLike", "ArnLike"):
                ok = any(fnmatch.fnmatchcase(actual, v) for v in values)
            else:  # Bool
                ok = actual.lower() in [v.lower() for v in values]
            if not ok:
                return False
    return True


def allowed(
    statements: list[dict], *, service: str, action: str, resource: str, context: dict, pseudo: Pseudo
) -> str | None:
    """None when the request is allowed; otherwise why not (IAM evaluation: explicit Deny wins)."""
    applicable = [
        s
        for s in statements
        if _principal_matches(s, service)
        and _matches_any(s.get("Action", []), action, pseudo, case=False)
        and _matches_any(s.get("Resource", "*"), resource, pseudo, case=True)
    ]
    for statement in applicable:
        holds = _conditions_hold(statement.get("Condition", {}), context, pseudo)
        if statement["Effect"] == "Deny" and holds is not False:
            return f"statement {statement.get('Sid', '?')!r} denies {action}"
    for statement in applicable:
        if statement["Effect"] == "Allow" and _conditions_hold(statement.get("Condition", {}), context, pseudo):
            return None
    return f"no statement allows {service} to {action} (source {context['aws:SourceArn']})"


# --- topic -> policies ------------------------------------------------------------------------------


def topic_problems(templates: dict[str, dict], stack: str, topic: str, alarm_arn: str, pseudo: Pseudo) -> list[str]:
    """What stops CloudWatch, publishing for `alarm_arn`, from reaching `topic` (empty: nothing)."""
    resources = templates[stack]["Resources"]
    context = {"aws:SourceAccount": pseudo.account, "aws:SourceArn": alarm_arn, "aws:SecureTransport": "true"}
    policies = [
        r["Properties"]["PolicyDocument"]["Statement"]
        for r in resources.values()
        if r["Type"] == "AWS::SNS::TopicPolicy" and {"Ref": topic} in r["Properties"]["Topics"]
    ]
    if not policies:
        return [f"{stack}/{topic} has no topic policy; this walker passes only an explicit Allow"]
    problems = []
    statements = [statement for policy in policies for statement in policy]
    why = allowed(
        statements, service=CLOUDWATCH, action="sns:Publish", resource=f"<ref:{topic}>", context=context, pseudo=pseudo
    )
    if why:
        problems.append(f"topic policy of {stack}/{topic}: {why}")
    key_id = resources[topic].get("Properties", {}).get("KmsMasterKeyId")
    if key_id is not None:
        problems += _key_problems(resources, stack, key_id, context, pseudo)
    return problems


def _key_problems(resources: dict, stack: str, key_id: Any, context: dict, pseudo: Pseudo) -> list[str]:
    target = key_id.get("Ref") if isinstance(key_id, dict) else None
    if isinstance(key_id, dict) and "Fn::GetAtt" in key_id:
        target = as_list(key_id["Fn::GetAtt"])[0]
    key = resources.get(target or "", {})
    if key.get("Type") != "AWS::KMS::Key":
        return [
            f"{stack}: topic key {key_id!r} is not a customer managed key of the stack "
            "(alias/aws/sns cannot allow CloudWatch)"
        ]
    statements = key["Properties"]["KeyPolicy"]["Statement"]
    problems = []
    for action in KEY_ACTIONS:
        why = allowed(statements, service=CLOUDWATCH, action=action, resource="*", context=context, pseudo=pseudo)
        if why:
            problems.append(f"key policy of {stack}/{target}: {why}")
    return problems


# --- every alarm --------------------------------------------------------------------------------------


def _alarm_arn(name: str, pseudo: Pseudo) -> str:
    return f"arn:{pseudo.partition}:cloudwatch:{pseudo.region}:{pseudo.account}:alarm:{name}"


def _action_problems(templates: dict[str, dict], stack: str, props: dict, pseudo: Pseudo) -> list[str]:
    name = props.get("AlarmName")
    if not isinstance(name, str):
        return ["no literal AlarmName: its ARN cannot be matched against aws:SourceArn"]
    problems = []
    for key in ACTION_KEYS:
        for action in props.get(key, []):
            try:
                topic_stack, topic = resolve_topic(templates, stack, action, pseudo)
            except Undeliverable as error:
                problems.append(f"{key}: {error}")
                continue
            problems += [
                f"{key}: {p}" for p in topic_problems(templates, topic_stack, topic, _alarm_arn(name, pseudo), pseudo)
            ]
    return problems


def walk_alarms(templates: dict[str, dict], pseudo: Pseudo) -> list[AlarmCheck]:
    """One AlarmCheck per alarm and composite alarm in every template; raises if there are none.

    An alarm with no action passes only when a composite alarm of its stack that can notify
    names it in its rule (the tenant's individual alarms page through their composite).
    """
    checks = []
    for stack, template in templates.items():
        resources = template.get("Resources", {})
        own = {
            lid: _action_problems(templates, stack, r["Properties"], pseudo)
            for lid, r in resources.items()
            if r["Type"] in ALARM_TYPES
        }
        notifying_composites = [
            lid
            for lid, r in resources.items()
            if r["Type"] == "AWS::CloudWatch::CompositeAlarm" and r["Properties"].get("AlarmActions") and not own[lid]
        ]
        for lid, problems in own.items():
            props = resources[lid]["Properties"]
            if not any(props.get(key) for key in ACTION_KEYS):
                paged_by = [
                    c for c in notifying_composites if lid in referenced_ids(resources[c]["Properties"]["AlarmRule"])
                ]
                problems = problems or ([] if paged_by else ["no action, and no notifying composite alarm names it"])
            elif not props.get("AlarmActions"):
                problems = [*problems, "no AlarmActions: ALARM notifies no one"]
            kind = resources[lid]["Type"].rsplit("::", 1)[1]
            checks.append(AlarmCheck(stack, lid, str(props.get("AlarmName")), kind, tuple(problems)))
    if not checks:
        raise Undeliverable("matched no alarm at all: the walker read nothing, so it proves nothing")
    return checks
