"""Guardrails the emulator applies: a tenant's own policies, registered under the id and version its
requests name, checked on the question (input) and on the answer (output).

A guardrail is registered with the control API (`POST /_emulator/guardrails`; `akb local` registers
the tenant's) in the shape of Bedrock's CreateGuardrail request (botocore model `bedrock`,
CreateGuardrailRequest): `blockedInputMessaging`, `blockedOutputsMessaging`, `topicPolicyConfig`,
`wordPolicyConfig`, `sensitiveInformationPolicyConfig`, `contentPolicyConfig`. What each policy
matches is the emulator's own, deterministic stand-in for Bedrock's models (docs/emulator.md,
"Guardrails"): a denied topic matches text naming it, sharing the content words of one of its
examples or two of its definition; words and phrases match whole and case-insensitively; the
PROFANITY list and the INSULTS and PROMPT_ATTACK filters are short lists of the emulator's own;
sensitive-information types are detected by the patterns below (others are never detected); regexes
are Python regular expressions. Only BLOCK intervenes (agentic retrieval supports no other action).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from local.emulator.text import STOPWORDS, root, words

Source = Literal["INPUT", "OUTPUT"]
MIN_DEFINITION_WORDS = 2  # definition words a text must share to be on a denied topic
EXAMPLE_SHARE = 0.6  # share of an example's content words a text must hold
# The emulator's own short lists (Bedrock's managed list and classifiers are not public).
_PROFANITY = frozenset(["damn", "crap", "shit", "fuck", "fucking", "bastard", "bullshit"])
_INSULTS = frozenset(["idiot", "idiots", "stupid", "moron", "morons", "dumb", "useless", "incompetent"])
_PROMPT_ATTACK = re.compile(
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous|prior|above|earlier)\s+"
    r"(?:instructions|prompts?|rules)\b|\b(?:reveal|print|show)\s+(?:your|the)\s+system\s+prompt\b|\bjailbreak\b",
    re.IGNORECASE,
)


def _luhn(digits: str) -> bool:
    total = 0
    for n, char in enumerate(reversed(digits)):
        value = int(char) * (2 if n % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _card(text: str) -> bool:
    for match in re.finditer(r"\b(?:\d[ -]?){12,18}\d\b", text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return True
    return False


def _pattern(expression: str) -> Callable[[str], bool]:
    compiled = re.compile(expression)
    return lambda text: bool(compiled.search(text))


# Sensitive-information types the emulator detects (CreateGuardrail's GuardrailPiiEntityType names).
PII_DETECTORS: dict[str, Callable[[str], bool]] = {
    "EMAIL": _pattern(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"),
    "PHONE": _pattern(r"(?<![\w-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}(?![\w-])"),
    "CREDIT_DEBIT_CARD_NUMBER": _card,
    "US_SOCIAL_SECURITY_NUMBER": _pattern(r"\b\d{3}-\d{2}-\d{4}\b"),
    "IP_ADDRESS": _pattern(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
    "URL": _pattern(r"\bhttps?://\S+"),
    "AWS_ACCESS_KEY": _pattern(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "MAC_ADDRESS": _pattern(r"\b[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}\b"),
}


@dataclass(frozen=True)
class Verdict:
    """What the guardrail decided about one text: intervened or not, and which policy did."""

    intervened: bool
    policy: str = ""  # "denied topic salaries", "sensitive information EMAIL", ...

    def message(self, source: Source) -> str:
        """The warning's `message` (its wording is the emulator's: UNVERIFIED in the ledger)."""
        where = "input" if source == "INPUT" else "output"
        if not self.intervened:
            return f"The guardrail did not intervene on the {where}."
        return f"The guardrail intervened on the {where}: {self.policy}."


ALLOWED = Verdict(False)


def _roots(text: str) -> set[str]:
    return {root(w) for w in words(text) if w.lower() not in STOPWORDS}


def _enabled(entry: Mapping[str, Any], source: Source, default_action: str = "BLOCK") -> bool:
    """Does this entry BLOCK on this side? (`inputAction`/`outputAction`, `*Enabled`, then `action`.)"""
    side = "input" if source == "INPUT" else "output"
    if entry.get(f"{side}Enabled") is False:
        return False
    return str(entry.get(f"{side}Action") or entry.get("action") or default_action).upper() == "BLOCK"


class GuardrailPolicy:
    """One registered guardrail version. `definition` is CreateGuardrail-shaped (see the module docstring)."""

    def __init__(self, definition: Mapping[str, Any]) -> None:
        self.blocked_input = str(
            definition.get("blockedInputMessaging") or "Sorry, the model cannot answer this question."
        )
        self.blocked_output = str(definition.get("blockedOutputsMessaging") or self.blocked_input)
        self._topics = list((definition.get("topicPolicyConfig") or {}).get("topicsConfig") or [])
        word_policy = definition.get("wordPolicyConfig") or {}
        self._words = list(word_policy.get("wordsConfig") or [])
        self._managed = list(word_policy.get("managedWordListsConfig") or [])
        sensitive = definition.get("sensitiveInformationPolicyConfig") or {}
        self._pii = list(sensitive.get("piiEntitiesConfig") or [])
        self._regexes = [(entry, re.compile(str(entry["pattern"]))) for entry in sensitive.get("regexesConfig") or []]
        self._filters = list((definition.get("contentPolicyConfig") or {}).get("filtersConfig") or [])

    def check(self, text: str, source: Source) -> Verdict:
        """The first policy that blocks `text` on this side, in Bedrock's documented policy order."""
        for checker in (self._topic, self._word, self._sensitive, self._content):
            verdict = checker(text, source)
            if verdict.intervened:
                return verdict
        return ALLOWED

    def _topic(self, text: str, source: Source) -> Verdict:
        said = _roots(text)
        for topic in self._topics:
            if not _enabled(topic, source) or not said:
                continue
            named = _roots(str(topic.get("name", "")).replace("-", " ").replace("_", " "))
            defined = _roots(str(topic.get("definition", "")))
            examples = [_roots(_without_names(str(e))) for e in topic.get("examples") or []]
            if (
                (named and named <= said)
                or len(defined & said) >= MIN_DEFINITION_WORDS
                or any(e and len(e & said) >= EXAMPLE_SHARE * len(e) for e in examples)
            ):
                return Verdict(True, f"denied topic {topic.get('name')}")
        return ALLOWED

    def _word(self, text: str, source: Source) -> Verdict:
        lowered = text.lower()
        for entry in self._words:
            phrase = str(entry.get("text", "")).lower().strip()
            if phrase and _enabled(entry, source) and re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", lowered):
                return Verdict(True, "word filter")
        said = {w.lower() for w in words(text)}
        for entry in self._managed:
            if _enabled(entry, source) and str(entry.get("type")) == "PROFANITY" and said & _PROFANITY:
                return Verdict(True, "managed word list PROFANITY")
        return ALLOWED

    def _sensitive(self, text: str, source: Source) -> Verdict:
        for entry in self._pii:
            detect = PII_DETECTORS.get(str(entry.get("type")))
            if detect is not None and _enabled(entry, source) and detect(text):
                return Verdict(True, f"sensitive information {entry.get('type')}")
        for entry, pattern in self._regexes:
            if _enabled(entry, source) and pattern.search(text):
                return Verdict(True, f"regex {entry.get('name')}")
        return ALLOWED

    def _content(self, text: str, source: Source) -> Verdict:
        said = {w.lower() for w in words(text)}
        for entry in self._filters:
            strength = str(entry.get("inputStrength" if source == "INPUT" else "outputStrength") or "NONE")
            if strength == "NONE" or not _enabled(entry, source):
                continue
            kind = str(entry.get("type"))
            if (kind == "PROMPT_ATTACK" and _PROMPT_ATTACK.search(text)) or (kind == "INSULTS" and said & _INSULTS):
                return Verdict(True, f"content filter {kind}")
        return ALLOWED


def _without_names(example: str) -> str:
    """An example's words without its names ("What does Alice earn?" asks about earning, not Alice)."""
    return " ".join(w for n, w in enumerate(example.split()) if n == 0 or not w[:1].isupper())


class GuardrailRegistry:
    """Thread-safe (guardrail id, version) -> policy."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._policies: dict[tuple[str, str], GuardrailPolicy] = {}

    def register(self, guardrail_id: str, version: str, definition: Mapping[str, Any]) -> dict[str, Any]:
        """Registers (or replaces) one version; ValueError names what is wrong with the definition."""
        if not re.fullmatch(r"[a-z0-9]{1,64}", guardrail_id) or not re.fullmatch(r"[1-9][0-9]{0,7}|DRAFT", version):
            raise ValueError('"guardrailId" must match [a-z0-9]{1,64} and "guardrailVersion" a number or DRAFT')
        try:
            policy = GuardrailPolicy(definition)
        except (KeyError, TypeError, AttributeError, re.error) as error:
            raise ValueError(f"not a CreateGuardrail-shaped definition: {error}") from None
        with self._lock:
            self._policies[(guardrail_id, version)] = policy
        return {"guardrailId": guardrail_id, "guardrailVersion": version}

    def get(self, guardrail_id: str, version: str) -> GuardrailPolicy | None:
        with self._lock:
            return self._policies.get((guardrail_id, version))
