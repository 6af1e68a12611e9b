"""An extractive answer with citations: for each part of the question, the sentence that answers it first.

Extractive on purpose: every word of the answer is in a cited result, so tests can check that
citations point at text that exists, and nobody mistakes the emulator's answer for a model's.
For each need the planner found support for (sufficiency.py), the answer takes the sentence of the
supporting chain's last passage that says most of what that passage adds (the answer itself:
"Team lead: Dana Okafor."), then, for a chain, the sentence of each earlier passage that names the
entity the next hop followed ("Owner: Team Kestrel."), and a second sentence of the same passage
only when the first says less than half of what the need asks. A part nothing supports is said to
be missing, uncited; a question nothing supports gets NOTHING_FOUND alone: no invented text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from local.emulator.index import Hit
from local.emulator.sufficiency import Chain, Need, answer_weights, passage_roots, ranked_statements
from local.emulator.text import roots

MAX_SENTENCES = 6
COMPLEMENT_BELOW = 0.5  # a first sentence saying less than this share of the need gets a second one
NOTHING_FOUND = "I could not find information about this in the knowledge bases."
WORDS_PER_STREAM_CHUNK = 6


@dataclass(frozen=True)
class Citation:
    start: int  # index of the first character in the answer
    end: int  # index one past the last character (answer[start:end] is the cited span)
    result_index: int

    def to_wire(self) -> dict[str, object]:
        return {
            "startIndex": self.start,
            "endIndex": self.end,
            "references": [{"resultIndex": self.result_index}],
        }


@dataclass(frozen=True)
class Answer:
    text: str
    citations: tuple[Citation, ...]

    def to_wire(self) -> dict[str, object]:
        return {"answer": self.text, "citations": [c.to_wire() for c in self.citations]}


def missing_part(need: Need) -> str:
    """The uncited sentence saying a part of the question found no support."""
    return f"I could not find anything about {need.text} in the knowledge bases."


def sentences_for(need: Need, chain: Chain) -> list[tuple[str, Hit]]:
    """The answer to one need: the answering sentence first, then what links it to the question."""
    last = chain.links[-1]
    ranked = ranked_statements(need, last, answer_weights(need, chain))
    if not ranked or ranked[0][0] == 0:
        return []
    picked = [(ranked[0][-1], last)]
    said = passage_roots(ranked[0][-1])
    wanted = need.terms | need.focus | need.named
    if len(chain.links) == 1 and need.held(said) < COMPLEMENT_BELOW:
        gains = [(len((wanted - said) & passage_roots(s[-1])), -n, s[-1]) for n, s in enumerate(ranked[1:])]
        best = max(gains, default=(0, 0, ""))
        if best[0]:
            picked.append((best[2], last))
    for link, lead in zip(reversed(chain.links[:-1]), reversed(chain.leads), strict=True):
        weights = {r: 1 for r in wanted} | {r: 2 for r in roots(lead)}
        linking = [s[-1] for s in ranked_statements(need, link, weights) if roots(lead) <= roots(s[-1])]
        if linking:
            picked.append((linking[0], link))
    return picked


def compose_answer(needs: Sequence[Need], chains: Sequence[Chain | None], results: Sequence[Hit]) -> Answer:
    """The answer over `results` (the result event's items): each supported need's sentences, in the
    question's order, each cited; then a sentence per unsupported part. Nothing supported: NOTHING_FOUND."""
    index_of = {hit.chunk.chunk_id: n for n, hit in enumerate(results)}
    picked: list[tuple[str, int]] = []
    missing: list[Need] = []
    for need, chain in zip(needs, chains, strict=True):
        if chain is None or not chain.sufficient_for(need):
            missing.append(need)
            continue
        answer = sentences_for(need, chain)
        if answer and answer[0][0] in (s for s, _ in picked):
            continue  # an earlier part's sentence already answers this one
        for sentence, hit in answer:
            index = index_of.get(hit.chunk.chunk_id)
            if index is not None and sentence not in (s for s, _ in picked):
                picked.append((sentence, index))
    if not picked:
        return Answer(NOTHING_FOUND, ())
    text, citations = "", []
    for sentence, index in picked[:MAX_SENTENCES]:
        start = len(text) + (1 if text else 0)
        text = f"{text} {sentence}" if text else sentence
        citations.append(Citation(start, start + len(sentence), index))
    for need in missing:
        text = f"{text} {missing_part(need)}"
    return Answer(text, tuple(citations))


def stream_pieces(text: str, words_per_piece: int = WORDS_PER_STREAM_CHUNK) -> list[str]:
    """The answer cut into word groups; joined, they are exactly `text`."""
    tokens = text.split(" ")
    return [
        " ".join(tokens[i : i + words_per_piece]) + (" " if i + words_per_piece < len(tokens) else "")
        for i in range(0, len(tokens), words_per_piece)
    ]
