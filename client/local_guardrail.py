"""A tenant's guardrail for the local emulator: its config as Bedrock's CreateGuardrail request shapes it.

`akb local` (and `akb eval --local --tenant`) register it with the emulator under the id and version
the tenant's local settings name (client/local_settings.py), so the emulated guardrail follows the
tenant's own policies — denied topics, words, managed word lists, sensitive-information types,
regexes, content filters — and answers with its blocked messaging (docs/emulator.md, "Guardrails").
The field names are botocore's `bedrock` model (CreateGuardrailRequest); the same config becomes the
deployed `AWS::Bedrock::Guardrail` in cdk_constructs/guardrail.py.
"""

from __future__ import annotations

from typing import Any

from schema.guardrail_config import Guardrail


def _sides(input_action: str, output_action: str) -> dict[str, str]:
    return {"inputAction": input_action, "outputAction": output_action}


def guardrail_definition(config: Guardrail) -> dict[str, Any]:
    """The CreateGuardrail-shaped definition of `config` (policies left out when empty)."""
    definition: dict[str, Any] = {
        "blockedInputMessaging": config.blocked_message,
        "blockedOutputsMessaging": config.blocked_message,
    }
    topics = [
        {"name": t.name, "definition": t.definition, "examples": list(t.examples), "type": "DENY"}
        | _sides(t.input_action, t.output_action)
        for t in config.denied_topics
    ]
    words = [{"text": w} | _sides("BLOCK", "BLOCK") for w in config.words]
    managed = [{"type": w} | _sides("BLOCK", "BLOCK") for w in config.managed_word_lists]
    pii = [{"type": p.type, "action": p.action} | _sides(p.action, p.action) for p in config.pii_entities]
    regexes = [
        {"name": r.name, "pattern": r.pattern, "action": r.action} | _sides(r.action, r.action) for r in config.regexes
    ]
    filters = [
        {"type": f.type, "inputStrength": f.input_strength, "outputStrength": f.output_strength}
        | _sides(f.input_action, f.output_action)
        for f in config.content_filters
    ]
    policies = {
        "topicPolicyConfig": {"topicsConfig": topics} if topics else None,
        "wordPolicyConfig": {k: v for k, v in (("wordsConfig", words), ("managedWordListsConfig", managed)) if v}
        or None,
        "sensitiveInformationPolicyConfig": {
            k: v for k, v in (("piiEntitiesConfig", pii), ("regexesConfig", regexes)) if v
        }
        or None,
        "contentPolicyConfig": {"filtersConfig": filters} if filters else None,
    }
    return definition | {key: value for key, value in policies.items() if value}


def register_tenant_guardrail(
    emulator: Any, config: Guardrail | None, guardrail_id: str | None, version: str | None
) -> bool:
    """Registers the tenant's guardrail with a running emulator (an EmulatorHandle); False when the
    tenant has none (`guardrail: none`)."""
    if config is None or not guardrail_id or not version:
        return False
    emulator.register_guardrail(guardrail_id, version, guardrail_definition(config))
    return True
