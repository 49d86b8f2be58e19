"""The cascade: which segments are worth the backbone at all.

On a CPU the backbone is nearly all of the model's time, and every segment went through it,
boilerplate included.  The router's lexical term (models/lexical.py) costs next to nothing
and needs only the word pieces, so it scores every segment first.  A segment goes through the
backbone when, for some emitted category, its lexical logit is not far below what that
category's clauses score: its cascade score is the largest `lexical[c] - offset[c]` over the
emitted categories, with `offset[c]` the median lexical logit of category c's positive
segments, and it is encoded when that score reaches `cutoff`.  The cut-off is set on the
calibration contracts (training split, every segment of them, held out of the lexical fit) so
that `PASS_SHARE` of their positive segments go through.

A segment left out keeps a probability for every category: the router's calibration applied to
its lexical logit alone (the MLP's correction needs the pooled state it did not get).  Such
segments are, by construction, the least likely; they can still be in the ranked tail.

A segment whose text repeats earlier in the same document (running headers, "[***]") is not
encoded again: it takes the first one's probabilities.

On a GPU only repeats are skipped: there the lexical pre-pass (padding and bagging every
segment a second time) cost more than the forward passes it saved (`ClauseModel.rule_out_unlikely`;
docs/BENCHMARKS.md, "On a GPU again").
"""
from __future__ import annotations

import torch

PASS_SHARE = 0.995
_NEVER = 1e4  # offset of a category that is not emitted: it never lets a segment through


def cascade_scores(lexical: torch.Tensor, offset: torch.Tensor) -> torch.Tensor:
    """[n] each segment's best lexical logit over the categories, each against its own offset."""
    if not len(lexical):
        return torch.zeros(0)
    return (lexical - offset).max(1).values


def fit_cascade(lexical: torch.Tensor, labels: torch.Tensor, emitted: torch.Tensor,
                share: float = PASS_SHARE) -> tuple[torch.Tensor, float]:
    """(offset [C], cutoff) from held-out lexical logits [n, C] and labels [n, C] (bool), with
    `emitted` [C] the categories the model emits (the others' positives need not pass)."""
    labels = labels.bool() & emitted
    offset = torch.full((lexical.shape[1],), _NEVER)
    for c in torch.nonzero(emitted).flatten().tolist():
        positives = lexical[labels[:, c], c]
        offset[c] = positives.median() if len(positives) else lexical[:, c].max()
    scores = cascade_scores(lexical, offset)[labels.any(1)]
    if not len(scores):
        return offset, float("-inf")
    return offset, float(torch.quantile(scores, 1.0 - share, interpolation="lower"))


def first_occurrences(texts: list[str]) -> list[int]:
    """For each text, the index of its first occurrence in the list (itself when new)."""
    first: dict[str, int] = {}
    return [first.setdefault(text, i) for i, text in enumerate(texts)]
