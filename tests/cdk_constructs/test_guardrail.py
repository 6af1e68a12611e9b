"""The BLOCK-only guardrail, its content-hashed version, and `guardrail: none`."""

from __future__ import annotations

import re

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from cdk_constructs.guardrail import Guardrail, GuardrailMisuse
from contract.resource_refs import GuardrailRef
from schema.guardrail_config import ContentFilter, PiiEntity, RegexFilter
from schema.guardrail_config import Guardrail as GuardrailConfig
from tests.cdk_constructs.probe import probe_stack, tenant_stack

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _actions(value, found=None) -> list[str]:
    found = [] if found is None else found
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("Action"):
                found.append(item)
            _actions(item, found)
    elif isinstance(value, list):
        for item in value:
            _actions(item, found)
    return found


def _build(config: GuardrailConfig, stack: cdk.Stack | None = None) -> tuple[cdk.Stack, Guardrail]:
    stack = stack or probe_stack()
    return stack, Guardrail(
        stack,
        "Guardrail",
        config=config,
        name="probe-guardrail",
        tenant="acme",
        removal_policy=cdk.RemovalPolicy.RETAIN,
    )


def _version_ids(config: GuardrailConfig) -> list[str]:
    stack, _ = _build(config)
    return list(Template.from_stack(stack).find_resources("AWS::Bedrock::GuardrailVersion"))


def _config(**overrides) -> GuardrailConfig:
    data = {
        "content_filters": [{"type": "HATE"}, {"type": "PROMPT_ATTACK", "output_strength": "NONE"}],
        "pii_entities": [{"type": "EMAIL"}],
    }
    data.update(overrides)
    return GuardrailConfig.model_validate(data)


def test_example_guardrails_use_only_block_or_none(synthesized):
    for stack_name in ("dev-acme", "dev-globex"):
        (guardrail,) = synthesized.resources(stack_name, "AWS::Bedrock::Guardrail").values()
        actions = _actions(guardrail["Properties"])
        assert actions and set(actions) <= {"BLOCK", "NONE"}


def test_acme_guardrail_has_its_filters_pii_and_an_input_only_prompt_attack_filter(synthesized):
    (guardrail,) = synthesized.resources("dev-acme", "AWS::Bedrock::Guardrail").values()
    properties = guardrail["Properties"]
    filters = {f["Type"]: f for f in properties["ContentPolicyConfig"]["FiltersConfig"]}
    assert filters["PROMPT_ATTACK"]["OutputStrength"] == "NONE"
    assert filters["HATE"] == {
        "Type": "HATE",
        "InputStrength": "HIGH",
        "OutputStrength": "HIGH",
        "InputAction": "BLOCK",
        "OutputAction": "BLOCK",
    }
    assert properties["SensitiveInformationPolicyConfig"]["PiiEntitiesConfig"] == [
        {"Type": "EMAIL", "Action": "BLOCK", "InputAction": "BLOCK", "OutputAction": "BLOCK"}
    ]
    assert (
        properties["BlockedInputMessaging"] == properties["BlockedOutputsMessaging"] == "Sorry, I can't help with that."
    )


def test_the_version_references_its_guardrail(synthesized):
    (guardrail_id,) = synthesized.resources("dev-acme", "AWS::Bedrock::Guardrail")
    (version,) = synthesized.resources("dev-acme", "AWS::Bedrock::GuardrailVersion").values()
    assert version["Properties"]["GuardrailIdentifier"] == {"Fn::GetAtt": [guardrail_id, "GuardrailId"]}


def test_an_unchanged_guardrail_keeps_its_version():
    assert _version_ids(_config()) == _version_ids(_config())


@pytest.mark.parametrize(
    "change",
    [
        {
            "content_filters": [
                {"type": "HATE", "input_strength": "MEDIUM"},
                {"type": "PROMPT_ATTACK", "output_strength": "NONE"},
            ]
        },
        {"pii_entities": [{"type": "PHONE"}]},
        {"words": ["acme-internal"]},
        {"blocked_message": "No."},
    ],
    ids=["filter-strength", "pii-type", "word", "message"],
)
def test_an_edited_guardrail_gets_a_new_version(change):
    assert _version_ids(_config(**change)) != _version_ids(_config())


def test_every_policy_kind_reaches_the_template():
    stack, _ = _build(
        _config(
            denied_topics=[
                {"name": "salaries", "definition": "Pay of individuals.", "examples": ["What does Bob earn?"]}
            ],
            words=["project-x"],
            managed_word_lists=["PROFANITY"],
            regexes=[{"name": "token", "pattern": "tk_[0-9]+", "description": "API tokens"}],
            contextual_grounding=[{"type": "GROUNDING", "threshold": 0.7}],
        )
    )
    (guardrail,) = Template.from_stack(stack).find_resources("AWS::Bedrock::Guardrail").values()
    properties = guardrail["Properties"]
    assert properties["TopicPolicyConfig"]["TopicsConfig"][0]["Type"] == "DENY"
    assert properties["WordPolicyConfig"]["WordsConfig"] == [
        {"Text": "project-x", "InputAction": "BLOCK", "OutputAction": "BLOCK"}
    ]
    assert properties["WordPolicyConfig"]["ManagedWordListsConfig"][0]["Type"] == "PROFANITY"
    assert properties["SensitiveInformationPolicyConfig"]["RegexesConfig"][0]["Description"] == "API tokens"
    assert properties["ContextualGroundingPolicyConfig"] == {
        "FiltersConfig": [{"Type": "GROUNDING", "Threshold": 0.7, "Action": "BLOCK"}]
    }


# Defence in depth: a caller who builds the config in Python without validation (model_construct)
# still cannot synthesize an action agentic retrieval does not support.
UNVALIDATED = [
    (
        "anonymize-pii",
        {"pii_entities": [PiiEntity.model_construct(type="EMAIL", action="ANONYMIZE")]},
        r"pii_entities\[0\] \(EMAIL\)\.action = ANONYMIZE",
    ),
    (
        "mask-regex",
        {"regexes": [RegexFilter.model_construct(name="token", pattern="x", description=None, action="MASK")]},
        r"regexes\[0\] \(token\)\.action = MASK",
    ),
    (
        "anonymize-regex",
        {"regexes": [RegexFilter.model_construct(name="id", pattern="x", description=None, action="ANONYMIZE")]},
        r"regexes\[0\] \(id\)\.action = ANONYMIZE",
    ),
    (
        "prompt-attack-output",
        {
            "content_filters": [
                ContentFilter.model_construct(
                    type="PROMPT_ATTACK",
                    input_strength="HIGH",
                    output_strength="HIGH",
                    input_action="BLOCK",
                    output_action="BLOCK",
                )
            ]
        },
        r"content_filters\[0\] \(PROMPT_ATTACK\)\.output_strength = HIGH.*requires output_strength NONE",
    ),
]


@pytest.mark.parametrize(
    ("fields", "detail"), [case[1:] for case in UNVALIDATED], ids=[case[0] for case in UNVALIDATED]
)
def test_unsupported_actions_fail_naming_path_tenant_policy_entry_and_value(fields, detail):
    config = _config().model_copy(update=fields)
    with pytest.raises(GuardrailMisuse, match=r"Probe/Guardrail: tenant acme: guardrail is not usable") as caught:
        _build(config)
    assert re.search(detail, str(caught.value)), str(caught.value)


def test_ref_carries_id_arn_and_version():
    stack, guardrail = _build(_config())
    ref = guardrail.ref
    assert isinstance(ref, GuardrailRef)
    logical_id = stack.get_logical_id(guardrail.resource)
    assert stack.resolve(ref.guardrail_id) == {"Fn::GetAtt": [logical_id, "GuardrailId"]}
    assert stack.resolve(ref.guardrail_arn) == {"Fn::GetAtt": [logical_id, "GuardrailArn"]}
    assert stack.resolve(ref.guardrail_version) == {"Fn::GetAtt": [stack.get_logical_id(guardrail.version), "Version"]}


def test_guardrail_none_creates_no_guardrail_resources():
    stack = tenant_stack("acme", guardrail=None)
    template = Template.from_stack(stack)
    assert stack.guardrail is None
    template.resource_count_is("AWS::Bedrock::Guardrail", 0)
    template.resource_count_is("AWS::Bedrock::GuardrailVersion", 0)
    assert not [
        p for p in template.find_resources("AWS::SSM::Parameter").values() if "guardrail" in p["Properties"]["Name"]
    ]


def test_changes_elsewhere_in_the_tenant_keep_the_guardrail_version():
    def version_ids(**updates) -> list[str]:
        return list(
            Template.from_stack(tenant_stack("acme", **updates)).find_resources("AWS::Bedrock::GuardrailVersion")
        )

    assert version_ids() == version_ids(description="Acme support assistant, v2", reserved_concurrency=20)
