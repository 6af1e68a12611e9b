"""A tenant's guardrail (BLOCK-only) and the immutable version the endpoint pins.

"When configuring guardrails, only the BLOCK action is supported. The MASK action is not supported
with agentic retrieval." — https://docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html
Versions are immutable, so the version's logical id carries a hash of the guardrail's properties:
an edit creates a new version, and an unchanged guardrail keeps its version.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_bedrock as bedrock
from constructs import Construct

from contract.resource_refs import GuardrailRef
from schema.guardrail_config import Guardrail as GuardrailConfig

ALLOWED_ACTIONS = ("BLOCK", "NONE")
# CfnGuardrail Name: 1-50 of [0-9a-zA-Z-_]; BlockedInputMessaging/BlockedOutputsMessaging: 1-500.
MAX_NAME = 50
# The prompt-attack filter only screens input; the Guardrails API requires output strength NONE.
INPUT_ONLY_FILTERS = ("PROMPT_ATTACK",)


class GuardrailMisuse(ValueError):
    """A guardrail setting agentic retrieval cannot use; the message says where and what to change."""


def guardrail_properties(config: GuardrailConfig, *, name: str) -> dict[str, Any]:
    """The CfnGuardrail properties, in CloudFormation's own shape (hashed for the version)."""
    properties: dict[str, Any] = {
        "Name": name,
        "Description": "Agentic retrieval guardrail (BLOCK-only)",
        "BlockedInputMessaging": config.blocked_message,
        "BlockedOutputsMessaging": config.blocked_message,
    }
    policies = {
        "ContentPolicyConfig": _content_policy(config),
        "TopicPolicyConfig": _topic_policy(config),
        "WordPolicyConfig": _word_policy(config),
        "SensitiveInformationPolicyConfig": _sensitive_information_policy(config),
        "ContextualGroundingPolicyConfig": _contextual_grounding_policy(config),
    }
    properties.update({key: policy for key, policy in policies.items() if policy})
    if config.kms_key_arn:
        properties["KmsKeyArn"] = config.kms_key_arn
    return properties


def _content_policy(config: GuardrailConfig) -> dict[str, Any]:
    filters = [
        {
            "Type": f.type,
            "InputStrength": f.input_strength,
            "OutputStrength": f.output_strength,
            "InputAction": f.input_action,
            "OutputAction": f.output_action,
        }
        for f in config.content_filters
    ]
    return {"FiltersConfig": filters} if filters else {}


def _topic_policy(config: GuardrailConfig) -> dict[str, Any]:
    topics = [
        {
            "Name": t.name,
            "Definition": t.definition,
            "Type": "DENY",
            **({"Examples": list(t.examples)} if t.examples else {}),
            "InputAction": t.input_action,
            "OutputAction": t.output_action,
        }
        for t in config.denied_topics
    ]
    return {"TopicsConfig": topics} if topics else {}


def _word_policy(config: GuardrailConfig) -> dict[str, Any]:
    words: dict[str, Any] = {}
    if config.words:
        words["WordsConfig"] = [{"Text": w, "InputAction": "BLOCK", "OutputAction": "BLOCK"} for w in config.words]
    if config.managed_word_lists:
        words["ManagedWordListsConfig"] = [
            {"Type": w, "InputAction": "BLOCK", "OutputAction": "BLOCK"} for w in config.managed_word_lists
        ]
    return words


def _sensitive_information_policy(config: GuardrailConfig) -> dict[str, Any]:
    sensitive: dict[str, Any] = {}
    if config.pii_entities:
        sensitive["PiiEntitiesConfig"] = [
            {"Type": p.type, "Action": p.action, "InputAction": p.action, "OutputAction": p.action}
            for p in config.pii_entities
        ]
    if config.regexes:
        sensitive["RegexesConfig"] = [
            {
                "Name": r.name,
                "Pattern": r.pattern,
                **({"Description": r.description} if r.description else {}),
                "Action": r.action,
                "InputAction": r.action,
                "OutputAction": r.action,
            }
            for r in config.regexes
        ]
    return sensitive


def _contextual_grounding_policy(config: GuardrailConfig) -> dict[str, Any]:
    filters = [{"Type": g.type, "Threshold": g.threshold, "Action": g.action} for g in config.contextual_grounding]
    return {"FiltersConfig": filters} if filters else {}


def properties_hash(properties: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(properties, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def block_only_violations(config: GuardrailConfig) -> list[str]:
    """Every action other than BLOCK/NONE, and every input-only filter with an output strength.

    The schema already rejects these; this is the same rule for callers who build the config in
    Python without validation (`model_construct`), so a bad guardrail never reaches a template.
    """
    problems: list[str] = []

    def check(policy: str, index: int, entry: str, field: str, value: object) -> None:
        if str(value).upper() not in ALLOWED_ACTIONS:
            problems.append(
                f"{policy}[{index}] ({entry}).{field} = {value}: agentic retrieval supports only BLOCK "
                "(or NONE) guardrail actions; MASK/ANONYMIZE are not supported "
                "(docs.aws.amazon.com/bedrock/latest/userguide/kb-test-agentic-retrieve.html); use BLOCK"
            )

    for i, f in enumerate(config.content_filters):
        check("content_filters", i, f.type, "input_action", f.input_action)
        check("content_filters", i, f.type, "output_action", f.output_action)
        if f.type in INPUT_ONLY_FILTERS and f.output_strength != "NONE":
            problems.append(
                f"content_filters[{i}] ({f.type}).output_strength = {f.output_strength}: the prompt-attack "
                "filter screens input only and the Guardrails API requires output_strength NONE"
            )
    for i, t in enumerate(config.denied_topics):
        check("denied_topics", i, t.name, "input_action", t.input_action)
        check("denied_topics", i, t.name, "output_action", t.output_action)
    for i, p in enumerate(config.pii_entities):
        check("pii_entities", i, p.type, "action", p.action)
    for i, r in enumerate(config.regexes):
        check("regexes", i, r.name, "action", r.action)
    for i, g in enumerate(config.contextual_grounding):
        check("contextual_grounding", i, g.type, "action", g.action)
    return problems


class Guardrail(Construct):
    """`AWS::Bedrock::Guardrail` plus an `AWS::Bedrock::GuardrailVersion` named by its content hash.

    :param config: the tenant's validated `guardrail:` block — content filters, denied topics,
        words and managed word lists, PII entities, regexes, contextual grounding, all BLOCK or
        NONE. https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-components.html
    :param name: the guardrail's name (cut to 50 characters with a hash suffix when longer).
    :param tenant: the tenant it belongs to (named in errors).
    :param removal_policy: the environment's; versions are kept with RETAIN as well.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: GuardrailConfig,
        name: str,
        tenant: str,
        removal_policy: RemovalPolicy,
    ):
        super().__init__(scope, construct_id)
        problems = block_only_violations(config)
        if problems:
            raise GuardrailMisuse(
                f"{self.node.path}: tenant {tenant}: guardrail is not usable with agentic retrieval:\n  "
                + "\n  ".join(problems)
            )
        self.properties = guardrail_properties(config, name=name)
        self.content_hash = properties_hash(self.properties)
        self.resource = bedrock.CfnGuardrail(
            self, "Resource", **{_snake(key): value for key, value in _cdk_properties(self.properties).items()}
        )
        self.resource.apply_removal_policy(removal_policy)
        # A new logical id per content: CloudFormation creates the new version after the guardrail
        # update (it references the guardrail) and removes the superseded one.
        self.version = bedrock.CfnGuardrailVersion(
            self,
            f"Version{self.content_hash[:12]}",
            guardrail_identifier=self.resource.attr_guardrail_id,
            description=f"config sha256 {self.content_hash[:16]}",
        )
        self.version.apply_removal_policy(removal_policy)

    @property
    def guardrail_id(self) -> str:
        return self.resource.attr_guardrail_id

    @property
    def guardrail_arn(self) -> str:
        return self.resource.attr_guardrail_arn

    @property
    def guardrail_version(self) -> str:
        return self.version.attr_version

    @property
    def ref(self) -> GuardrailRef:
        return GuardrailRef(
            guardrail_id=self.guardrail_id, guardrail_arn=self.guardrail_arn, guardrail_version=self.guardrail_version
        )


def _snake(name: str) -> str:
    """`BlockedOutputsMessaging` -> `blocked_outputs_messaging`."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def _cdk_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """CloudFormation-shaped dicts -> CfnGuardrail keyword arguments (snake_case) whose nested
    structs jsii reads by their camelCase names."""

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            return {k[0].lower() + k[1:]: convert(v) for k, v in value.items()}
        if isinstance(value, list):
            return [convert(v) for v in value]
        return value

    return {key: convert(value) for key, value in properties.items()}
