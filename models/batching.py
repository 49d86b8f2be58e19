"""Length-sorted batches: segments of similar token length share a batch, so little is padding.

Used alike by inference, training and the speed benchmark, so that the model and the bare
backbone are always measured on the same batches.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np
import torch


@dataclass(frozen=True)
class BatchLimits:
    """At most `segments` rows and `tokens` padded tokens per batch."""

    segments: int
    tokens: int

    @classmethod
    def for_device(cls, device: torch.device) -> BatchLimits:
        """Large batches keep a GPU busy.  On a CPU small ones are faster: measured on CUAD
        segments, 2 cores, int8 backbone: 204 segments/s at (64 rows, 8192 tokens), 265-325 at
        1024-2048 tokens (a batch's activations then stay in cache); fp32 97 -> 121-129."""
        return cls(256, 65536) if device.type == "cuda" else cls(32, 2048)


def length_batches(lengths: list[int], limits: BatchLimits) -> list[list[int]]:
    """Indices into `lengths`, grouped in ascending length, each group within `limits`."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        widest = max(lengths[i], 1)  # ascending order: this row sets the batch's padded width
        if current and (len(current) + 1 > limits.segments or (len(current) + 1) * widest > limits.tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def pad_ids(rows: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids, attention_mask) right-padded to the longest row."""
    # The ids go in flat through numpy, filling the mask's places row by row: converting
    # nested lists with torch.tensor was the GPU worker's largest own cost (docs/BENCHMARKS.md),
    # and this is about 3.5x faster.
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    width = int(lengths.max())
    mask = np.arange(width) < lengths[:, None]
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    ids[mask] = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(lengths.sum()))
    return torch.from_numpy(ids), torch.from_numpy(mask.astype(np.int64))
