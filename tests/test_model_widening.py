"""Wider spans (models/widening.py) on hand-made segments and scores: no checkpoint needed."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from models.candidates import candidate_scores, document_findings  # noqa: E402
from models.widening import MIN_NEW_RATE, clause_texts, fit_weights, spans_around, widened_findings  # noqa: E402
from pipelines.datamodel import WIDER_SPAN_SOURCE, Segment  # noqa: E402

TEXTS = ["1. Licence.", "Licensor grants Licensee a non-exclusive licence to use the Software",
         "in the Territory during the Term for its internal business purposes only,",
         "and may not sublicense, rent or lend it to any third party.", "2. Fees. Licensee shall pay the fees."]


def segments() -> list[Segment]:
    out, at = [], 0
    for i, text in enumerate(TEXTS):
        out.append(Segment(i, text, at, at + len(text), 1))
        at += len(text) + 1
    return out


def test_spans_around_a_segment_stay_in_the_document():
    assert spans_around(5, [0]) == [(0, 1, 0), (0, 2, 0)]
    assert spans_around(5, [4]) == [(3, 4, 4), (2, 4, 4)]
    assert len(spans_around(5, [2])) == 5
    # neighbours both among the best share three spans, which go to the better one only
    assert spans_around(5, [2, 1]) == [(1, 2, 2), (2, 3, 2), (1, 3, 2), (0, 2, 2), (2, 4, 2), (0, 1, 1)]


def test_wider_spans_rank_below_their_segment_and_the_floor():
    scores = torch.tensor([0.05, 0.9, 0.4, 0.01, 0.02])
    found = widened_findings(segments(), scores, "License Grant", 0.5, 0.02, "v")
    assert found and all(f.source == WIDER_SPAN_SOURCE and f.confidence <= 0.02 for f in found)
    joined = next(f for f in found if (f.start, f.end) == (segments()[1].start, segments()[2].end))
    assert joined.text == TEXTS[1] + " " + TEXTS[2]
    weak = widened_findings(segments(), torch.tensor([0.001, 0.002, 0.0, 0.0, 0.0]), "License Grant", 0.5, 0.02, "v")
    assert max(f.confidence for f in weak) == pytest.approx(0.001)  # proportional to the segment's score
    assert widened_findings(segments(), scores, "License Grant", 0.0, 0.02, "v") == []


def test_weights_count_the_clauses_a_segment_alone_misses():
    text = " ".join(TEXTS)
    clause = " ".join(TEXTS[1:4])  # a three-segment clause: each part alone is under Jaccard 0.5
    start = text.index(clause)
    answers = clause_texts(text, [("License Grant", start, start + len(clause))])
    probability = torch.tensor([[0.1, 0.0], [0.8, 0.0], [0.6, 0.0], [0.0, 0.3], [0.0, 0.9]])
    scores = candidate_scores(probability, torch.tensor([0.9, 0.7]))
    assert scores[1, 0] == pytest.approx(0.9) and scores[4, 1] == pytest.approx(0.7)
    weights = fit_weights([(TEXTS, scores, answers)] * 3, ("License Grant", "Audit Rights"),
                          ("License Grant", "Audit Rights"))
    # around the best two segments (0.9 and 0.6) six distinct wider spans, five of which match
    # the clause (three around the first, two around the second): 5 per 4 * 0.9 + 2 * 0.6 of score
    assert float(weights[0]) == pytest.approx(5 / 4.8)
    assert weights[1] == 0  # nothing to find for a category with no clause
    assert 5 / 6 >= MIN_NEW_RATE


def test_document_findings_emit_wider_spans_only_where_weighted():
    probability = torch.tensor([[0.1, 0.0], [0.8, 0.0], [0.6, 0.0], [0.0, 0.3], [0.0, 0.9]])
    presence = torch.tensor([0.9, 0.7])
    categories = ("License Grant", "Audit Rights")
    plain = document_findings(segments(), probability, presence, categories, categories, 0.02, "v")
    widened = document_findings(segments(), probability, presence, categories, categories, 0.02, "v",
                                widen=(0.5, 0.0))
    extra = [f for f in widened if f not in plain]
    assert extra and {f.category for f in extra} == {"License Grant"}
    assert all(f.source == WIDER_SPAN_SOURCE for f in extra)
