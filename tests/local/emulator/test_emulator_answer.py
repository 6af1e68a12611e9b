from __future__ import annotations

from local.emulator.answer import NOTHING_FOUND, extract_answer, stream_pieces

RESULTS = [
    "# BulkExport\n\nOne export can contain at most 500,000 rows. Larger exports fail with error ACME-4012.",
    "Owner: Team Orion (SkyLedger exports). It is fixed in SkyLedger 4.2.1; upgrade the workspace.",
]


def test_each_citation_spans_a_sentence_of_the_cited_result():
    answer = extract_answer(["How many rows can an export contain?", "Which team owns exports?"], RESULTS)
    assert len(answer.citations) == 2
    for citation in answer.citations:
        span = answer.text[citation.start : citation.end]
        assert span and span in RESULTS[citation.result_index]


def test_no_results_means_a_plain_not_found_answer_without_citations():
    answer = extract_answer(["anything"], [])
    assert (answer.text, answer.citations) == (NOTHING_FOUND, ())


def test_stream_pieces_rebuild_the_answer_exactly():
    text = "one two three four five six seven eight nine ten eleven twelve thirteen"
    pieces = stream_pieces(text, words_per_piece=4)
    assert len(pieces) == 4 and "".join(pieces) == text
