"""The ranked tail: each category's best few segments of a document are candidates, however unlikely.

CUAD's precision at 90% recall is 0 for any system whose candidates never reach 90% recall,
however precise.  With candidates cut at the floor (0.02) the product recalled 87% of the
validation snippets at threshold 0; every segment at every probability would recall 95.6%, at
10,700 lines per contract.  Most of what the floor drops is not spread thinly over a document:
it is a clause its category's ranking puts a few places down, behind that document's best
candidates.  So per category the document's top K segments are kept at their own calibrated
probabilities (low ones: they never reach the report or the review queue, which read the
playbook's floor and the presence decision), besides every segment over the floor.

K is chosen on the calibration contracts (training split, held out of fitting), where lines
are spent best: a positive segment below the floor is found by a tail K when it is within its
document's top K, and each step of a category's K costs a line per contract.  Greedily, the
category whose next steps find the most positives per line gets them, until `TAIL_TARGET` of
all positive segments are over the floor or in the tail, each K at most `MAX_TAIL`.  Clauses
the ranking puts deep are dear: on the calibration contracts 80.5% of positive segments clear
the floor, 85% cost 184 tail lines per contract, 88% 427 and a uniform K of 20 760 lines for
86.7% (segments are harder than CUAD's snippets: a long clause labels each of its segments).
ops/benchmarks/recall_ceiling.py measures what the tail buys on validation.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

TAIL_TARGET = 0.9
MAX_TAIL = 40


def kept_segments(scores: torch.Tensor, floor: float, tail: int) -> list[int]:
    """Indices (in segment order) of one category's candidates: over the floor, or among the
    document's `tail` best."""
    keep = scores >= floor
    if tail and len(scores):
        keep[torch.topk(scores, min(tail, len(scores))).indices] = True
    return torch.nonzero(keep).flatten().tolist()


def choose_tail_sizes(probability: torch.Tensor, labels: torch.Tensor, documents: np.ndarray, floor: float,
                      target: float = TAIL_TARGET, max_tail: int = MAX_TAIL) -> tuple[int, ...]:
    """K per category from held-out segments: `probability` and `labels` [n, C], `documents`
    [n] the document each segment belongs to (every segment of each document present)."""
    ranks = _ranks_in_document(probability, documents)
    positive = labels.bool()
    total = int(positive.sum())
    if not total:
        return (0,) * labels.shape[1]
    found = int((positive & (probability >= floor)).sum())
    deep = positive & (probability < floor)
    # gain[c, k]: positives below the floor that a tail of exactly k would add to one of k - 1
    gain = torch.stack([torch.bincount(ranks[deep[:, c], c].clamp(max=max_tail + 1), minlength=max_tail + 2)[: max_tail + 1]
                        for c in range(labels.shape[1])]).float()
    sizes = [0] * labels.shape[1]
    while found < target * total:
        best: tuple[float, int, int] | None = None
        for c, k in enumerate(sizes):
            if k == max_tail:
                continue
            per_line = gain[c, k + 1:].cumsum(0) / torch.arange(1, max_tail - k + 1)
            step = int(per_line.argmax())
            if best is None or float(per_line[step]) > best[0]:
                best = (float(per_line[step]), c, k + 1 + step)
        if best is None or best[0] == 0:
            break
        _, c, k = best
        found += int(gain[c, sizes[c] + 1:k + 1].sum())
        sizes[c] = k
    return tuple(sizes)


def _ranks_in_document(probability: torch.Tensor, documents: np.ndarray) -> torch.Tensor:
    """[n, C] each segment's rank (1 = best) among its document's segments, per category."""
    ranks = torch.zeros(probability.shape, dtype=torch.long)
    for number in np.unique(documents):
        rows = torch.from_numpy(np.flatnonzero(documents == number))
        order = torch.argsort(probability[rows], dim=0, descending=True, stable=True)
        rank = torch.empty_like(order)
        rank.scatter_(0, order, torch.arange(1, len(rows) + 1).unsqueeze(1).expand_as(order).contiguous())
        ranks[rows] = rank
    return ranks


def as_sizes(values: Sequence[float] | torch.Tensor) -> tuple[int, ...]:
    """Tail sizes as stored (a float buffer of the checkpoint) back to ints."""
    return tuple(int(round(float(v))) for v in values)
