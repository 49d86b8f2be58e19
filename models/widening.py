"""Wider spans: a category's best segments joined with their neighbours, as extra candidates.

CUAD credits a candidate whose word-set Jaccard with an annotated clause reaches 0.5, and many
clauses (a licence grant, an exclusivity or volume clause, a right of first refusal) run over
two or three segments: the best segment alone then scores 0.3-0.45 against them, and no
candidate recalls the clause.  So each category's `PARENTS` best segments of a document are
also offered joined with one or two neighbours on either side (`VARIANTS`).

A wider span is the same evidence as its segment again, so it ranks below it: its probability
is the chance that it finds a clause its segment does not (fitted per category on the
calibration contracts, `fit_weights`), proportional to the segment's score, and never above the
floor, so that every wider span ranks below every segment over the floor and none reaches the
report or the review queue.  Categories whose wider spans rarely find anything new
(`MIN_NEW_RATE`) emit none.  In aggregation a wider span stays its own candidate
(pipelines/aggregate.py), never merged into the clause it widens.  The choice, measured on the
calibration contracts, is in MODEL_CARD.md.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from pipelines.datamodel import WIDER_SPAN_SOURCE, Finding, Segment

PARENTS = 2
VARIANTS: tuple[tuple[int, int], ...] = ((-1, 0), (0, 1), (-1, 1), (-2, 0), (0, 2))
MIN_NEW_RATE = 0.01
MATCH = 0.5  # CUAD's word-set Jaccard for a match


def spans_around(n_segments: int, parents: Sequence[int]) -> list[tuple[int, int, int]]:
    """(first, last, parent) segment indices of each wider span around each parent, in range;
    a span two parents share (neighbours both among the best) belongs to the first, the better."""
    out, seen = [], set()
    for parent in parents:
        for before, after in VARIANTS:
            first, last = parent + before, parent + after
            if first >= 0 and last < n_segments and (first, last) not in seen:
                seen.add((first, last))
                out.append((first, last, parent))
    return out


def best_segments(scores: torch.Tensor, parents: int = PARENTS) -> list[int]:
    return torch.topk(scores, min(parents, len(scores))).indices.tolist()


def widened_findings(segments: list[Segment], scores: torch.Tensor, category: str, weight: float,
                     floor: float, version: str) -> list[Finding]:
    """One category's wider spans for one document; `scores` [n] are the document's candidate
    scores for it (the best one carrying the presence score, as models/candidates.py emits them)."""
    if weight <= 0 or not segments:
        return []
    findings = []
    for first, last, parent in spans_around(len(segments), best_segments(scores)):
        text = " ".join(s.text for s in segments[first:last + 1])
        findings.append(Finding(category=category, text=text, start=segments[first].start, end=segments[last].end,
                                page=segments[first].page, confidence=min(float(scores[parent]) * weight, floor),
                                source=WIDER_SPAN_SOURCE, version=version))
    return findings


def fit_weights(documents: Sequence[tuple[list[str], torch.Tensor, dict[str, list[str]]]],
                categories: Sequence[str], emitted: Sequence[str]) -> torch.Tensor:
    """[C] weights from held-out documents, each (segment texts, candidate scores [n, C], the
    annotated clause texts per category): per category, the clauses its wider spans find that
    their segment does not, per unit of segment score; 0 where fewer than MIN_NEW_RATE of the
    wider spans find one."""
    weights = torch.zeros(len(categories))
    for c, category in enumerate(categories):
        if category not in emitted:
            continue
        spans = new = 0
        score_sum = 0.0
        for texts, scores, answers in documents:
            clauses = [cuad_words(a) for a in answers.get(category, [])]
            for first, last, parent in spans_around(len(texts), best_segments(scores[:, c])):
                spans += 1
                score_sum += float(scores[parent, c])
                wide, alone = cuad_words(" ".join(texts[first:last + 1])), cuad_words(texts[parent])
                new += any(word_jaccard(a, wide) >= MATCH > word_jaccard(a, alone) for a in clauses)
        if spans and new / spans >= MIN_NEW_RATE and score_sum:
            weights[c] = new / score_sum
    return weights


def clause_texts(text: str, spans: Sequence[tuple[str, int, int]]) -> dict[str, list[str]]:
    """The annotated clause texts of a document per category, from its (category, start, end) spans."""
    clauses: dict[str, list[str]] = {}
    for category, start, end in spans:
        clauses.setdefault(category, []).append(text[start:end])
    return clauses


def cuad_words(text: str) -> frozenset[str]:
    """The words CUAD's scorer compares: lower case, without . , ; :, with / as a space."""
    for mark in ".,;:":
        text = text.replace(mark, "")
    return frozenset(text.lower().replace("/", " ").split())


def word_jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0
