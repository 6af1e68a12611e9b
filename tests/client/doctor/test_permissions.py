"""The permission list is complete: every action a check calls is listed, documented and read-only."""

from __future__ import annotations

import re
from pathlib import Path

from client.doctor.permissions import READ_ONLY_ACTIONS

REPO = Path(__file__).resolve().parents[3]
ACTION = re.compile(r'"([a-z0-9-]+:[A-Z][A-Za-z]+)"')  # service prefixes may hold digits (ec2)


def _called_actions() -> set[str]:
    sources = [p for p in (REPO / "client" / "doctor").glob("*.py") if p.name != "permissions.py"]
    return {action for path in sources for action in ACTION.findall(path.read_text())}


def test_every_action_the_checks_call_is_listed_and_nothing_else():
    assert _called_actions() == set(READ_ONLY_ACTIONS)


def test_every_action_is_read_only_by_its_verb():
    assert all(action.split(":")[1].startswith(("Get", "List", "Describe")) for action in READ_ONLY_ACTIONS)


def test_the_operations_page_lists_every_action():
    page = (REPO / "docs" / "operations.md").read_text()
    missing = [action for action in READ_ONLY_ACTIONS if f'"{action}"' not in page]
    assert missing == []
