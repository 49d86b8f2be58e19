"""Document-level features of a segment, beside its pooled state, for the router.

Where a segment sits tells a lot that its text alone does not: titles, parties and dates open
a contract, governing law and notices close it.  Both features need the whole document's
segment list, which the gpu task always has.
"""
from __future__ import annotations

import math

import torch

from pipelines.datamodel import Segment

N_FEATURES = 2
_LENGTH_SCALE = math.log1p(800)  # MAX_SEGMENT_CHARS of the segmenter


def segment_features(segments: list[Segment], doc_end: int | None = None) -> torch.Tensor:
    """[n, N_FEATURES]: relative position in the document (0 = start) and scaled log length.

    `doc_end` is where the document ends, when `segments` are only a part of it."""
    doc_end = doc_end or max((s.end for s in segments), default=1) or 1
    rows = [(s.start / doc_end, math.log1p(len(s.text)) / _LENGTH_SCALE) for s in segments]
    return torch.tensor(rows, dtype=torch.float32).reshape(len(segments), N_FEATURES)
