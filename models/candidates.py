"""From per-segment probabilities to candidate spans, the unit CUAD's metric scores.

A prediction is credited when its word-set Jaccard with an annotated clause reaches 0.5.  The
segmenter is tuned for that: one segment matches 95.8% of annotated clauses, a run of up to
three neighbours 98.3% (ops/benchmarks/segment_coverage.py).  Candidates are single segments:
adding runs of neighbouring likely segments (a neighbour joining while its probability is at
least half the peak's) lowered validation AUPR (0.298 -> 0.294 with an early checkpoint), as
runs add more false positives than the 2.5% of split clauses they recover.

Every segment at or above the floor is a candidate with its own probability, and so are the
category's `tail` best segments of the document however low (models/tail.py), except each
category's best segment in the document, which carries the document's presence probability
(models/presence.py): the metric's presence score reads exactly that maximum.  The best two
are also offered joined with their neighbours, ranked below the floor (models/widening.py).
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from models.tail import kept_segments
from models.widening import widened_findings
from pipelines.datamodel import Finding, Segment

SOURCE = "model"


def document_findings(segments: list[Segment], probability: torch.Tensor, presence: torch.Tensor,
                      categories: tuple[str, ...], emitted: tuple[str, ...], floor: float,
                      version: str, tail: Sequence[int] = (), widen: Sequence[float] = ()) -> list[Finding]:
    """Findings for one document: `probability` [n_segments, C] in segment order, `presence` [C],
    `tail` [C] the ranked tail's size per category (none when empty), `widen` [C] the wider
    spans' weights (none when empty)."""
    findings: list[Finding] = []
    if not segments:
        return findings
    column = {c: i for i, c in enumerate(categories)}
    candidates = candidate_scores(probability, presence)
    for category in emitted:
        c = column[category]
        scores = candidates[:, c]
        for i in kept_segments(scores, floor, tail[c] if tail else 0):
            s = segments[i]
            findings.append(Finding(category=category, text=s.text, start=s.start, end=s.end, page=s.page,
                                    confidence=float(scores[i]), source=SOURCE, version=version, box=s.box))
        if widen:
            findings += widened_findings(segments, scores, category, widen[c], floor, version)
    return findings


def candidate_scores(probability: torch.Tensor, presence: torch.Tensor) -> torch.Tensor:
    """[n, C] each segment's score as a candidate: its probability, except that each category's
    best segment carries the document's presence score."""
    scores = probability.clone()
    if len(scores):
        scores[probability.argmax(0), torch.arange(probability.shape[1])] = presence.to(scores.dtype)
    return scores
