"""An extractive answer with citations: the best sentence per intent, taken from the results.

Extractive on purpose: every word of the answer is in a cited result, so tests can check that
citations point at text that exists, and nobody mistakes the emulator's answer for a model's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from local.emulator.text import sentences, tokenize

MAX_SENTENCES = 4
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


def extract_answer(queries: Sequence[str], result_texts: Sequence[str]) -> Answer:
    """For each query (question first, then sub-queries and leads) the best sentence in the results."""
    if not result_texts:
        return Answer(NOTHING_FOUND, ())
    split = [sentences(text) for text in result_texts]
    picked: list[tuple[str, int]] = []
    for query in queries:
        terms = set(tokenize(query))
        candidates = [
            (len(terms.intersection(tokenize(sentence))), -index, -position, sentence)
            for index, found in enumerate(split)
            for position, sentence in enumerate(found)
            if sentence not in (s for s, _ in picked)
        ]
        if candidates:
            overlap, negative_index, _, sentence = max(candidates)
            if overlap:
                picked.append((sentence, -negative_index))
        if len(picked) == MAX_SENTENCES:
            break
    if not picked:
        first = split[0]
        picked = [(first[0], 0)] if first else [(NOTHING_FOUND, -1)]
    text, citations = "", []
    for sentence, index in picked:
        start = len(text) + (1 if text else 0)
        text = f"{text} {sentence}" if text else sentence
        if index >= 0:
            citations.append(Citation(start, start + len(sentence), index))
    return Answer(text, tuple(citations))


def stream_pieces(text: str, words_per_piece: int = WORDS_PER_STREAM_CHUNK) -> list[str]:
    """The answer cut into word groups; joined, they are exactly `text`."""
    tokens = text.split(" ")
    return [
        " ".join(tokens[i : i + words_per_piece]) + (" " if i + words_per_piece < len(tokens) else "")
        for i in range(0, len(tokens), words_per_piece)
    ]
