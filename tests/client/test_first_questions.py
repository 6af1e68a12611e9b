"""A new user's first five questions about the sample corpus, asked as a new user asks them: `akb local`
in one process, `akb ask --local` in another. Each must end complete (exit 0, no "possibly incomplete"),
with the answering sentence first, a short answer, and a few cited sources."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.children import REPO

FIRST_QUESTIONS = [
    ("What are the rate limits of the Pro plan?", "Pro plan: 1,000 requests per minute."),
    ("How do I rotate an API key?", "To rotate a key without downtime, create a second key with the same scopes"),
    ("How long are exports kept?", "Exports are kept for 7 days."),
    ("Which regions does TaxEngine support?", "Supported regions: all US states, Canadian provinces"),
    (
        "How many times does WebhookRelay retry a failed delivery?",
        "If a delivery fails, WebhookRelay retries it up to 5 times",
    ),
]
FOCUSED_CHARACTERS = 300  # an answer, not a page of loosely related sentences
MAX_CITED_SOURCES = 3


# `akb local` for the default tenant (acme), as a user starts it (the akb_local fixture, its options' defaults).
pytestmark = pytest.mark.akb_local()


def ask(akb_local, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client", "ask", "--local", *args],
        cwd=REPO,
        env=akb_local.client_env(COLUMNS="200"),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(("question", "answer_starts"), FIRST_QUESTIONS)
def test_a_new_users_first_questions_get_complete_focused_answers(akb_local, question, answer_starts):
    viewed = ask(akb_local, question)
    assert viewed.returncode == 0, (viewed.stdout[-800:], viewed.stderr)
    assert "possibly incomplete" not in viewed.stdout + viewed.stderr and "PARTIAL" not in viewed.stdout
    events = [json.loads(line) for line in ask(akb_local, "--json", question).stdout.splitlines()]
    done = events[-1].get("data", events[-1])
    result = next(e.get("data", e) for e in events if e["type"] == "result")
    assert done["stopReason"] == "complete" and not done.get("partial")
    assert result["answer"].startswith(answer_starts), result["answer"]
    assert len(result["answer"]) <= FOCUSED_CHARACTERS
    cited = {index for citation in result["citations"] for index in citation["results"]}
    assert 1 <= len(cited) <= MAX_CITED_SOURCES < len(result["results"])  # the rest stay retrieved results
    spans = [result["answer"][c["start"] : c["end"]] for c in result["citations"]]
    assert " ".join(spans) == result["answer"]  # every sentence is cited
