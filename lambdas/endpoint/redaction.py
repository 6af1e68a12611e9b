"""Caller-facing text without knowledge-base ARNs or account ids; the full text stays in the logs.

Bedrock's error and failure texts name what they were about: an AccessDenied names the endpoint's
role and the knowledge-base ARN, both carrying the account id. A caller needs the code, the denied
action and which of the tenant's knowledge bases (its alias) — not the account's resource names,
which help an attacker map the account. Every message that leaves the endpoint (4xx/5xx bodies,
`error` events, trace `failures` and `message`) passes through `redact`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_KB_ARN = re.compile(r"arn:[\w-]+:bedrock:[\w-]*:\d*:knowledge-base/(?P<id>[0-9A-Za-z]+)")
_ARN = re.compile(r"arn:(?P<partition>[\w-]+):(?P<service>[\w-]+):[\w-]*:\d*:(?P<resource>[^\s,;\"'()<>]+)")
_ACCOUNT_ID = re.compile(r"(?<!\d)\d{12}(?!\d)")
_RESOURCE_TYPE = re.compile(r"[A-Za-z-]+")


def _knowledge_base(kb_id: str, alias_of: Mapping[str, str]) -> str:
    alias = alias_of.get(kb_id)
    return f"knowledge base '{alias}'" if alias else "a knowledge base this tenant does not configure"


def _other_arn(match: re.Match[str]) -> str:
    kind = _RESOURCE_TYPE.match(match["resource"])
    what = f"{match['service']} {kind.group(0)}" if kind else match["service"]
    return f"<{what}; ARN in the endpoint's logs>"


def redact(text: str, alias_of: Mapping[str, str] | None = None) -> str:
    """`text` with knowledge-base ARNs and ids as their aliases, other ARNs and account ids replaced."""
    known = alias_of or {}
    text = _KB_ARN.sub(lambda match: _knowledge_base(match["id"], known), text)
    text = _ARN.sub(_other_arn, text)
    for kb_id, alias in known.items():
        text = text.replace(kb_id, f"'{alias}'")
    return _ACCOUNT_ID.sub("<account>", text)
