"""Backbone outputs of many segments, kept so the heads can train for epochs without re-encoding.

Token states are stored ragged (all rows concatenated, with offsets) in fp16: CUAD's ~35k
training segments that go through the backbone (~1.6M tokens x 384 dims) take 1.2 GB, not
the 14 GB they would take padded to 256 tokens in fp32.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from models.backbone import Backbone, mean_pool
from models.batching import BatchLimits, length_batches, pad_ids


@dataclass
class EncodedSegments:
    tokens: torch.Tensor  # [total_tokens, H] fp16, rows of all segments concatenated
    offsets: torch.Tensor  # [n + 1] int64: segment i is tokens[offsets[i]:offsets[i + 1]]
    pooled: torch.Tensor  # [n, H] fp32 mean-pooled states

    @property
    def lengths(self) -> torch.Tensor:
        return self.offsets[1:] - self.offsets[:-1]

    def padded(self, rows: torch.Tensor, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """(token states [b, T, H] fp32, mask [b, T]) of segments `rows`, right-padded."""
        lengths = self.lengths[rows]
        width = int(lengths.max())
        steps = torch.arange(width)
        mask = steps.unsqueeze(0) < lengths.unsqueeze(1)
        index = self.offsets[rows].unsqueeze(1) + torch.minimum(steps.unsqueeze(0), (lengths - 1).unsqueeze(1))
        states = self.tokens[index].to(device=device, dtype=torch.float32)
        return states, mask.to(device)


def encode_segments(backbone: Backbone, texts: list[str], limits: BatchLimits,
                    log: Callable[[str], None]) -> EncodedSegments:
    """Run the backbone over `texts` in length-sorted batches; outputs come back in input order."""
    ids = backbone.token_ids(texts)
    lengths = [len(row) for row in ids]
    offsets = torch.zeros(len(ids) + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(torch.tensor(lengths, dtype=torch.long), 0)
    tokens = torch.empty((int(offsets[-1]), backbone.hidden), dtype=torch.float16)
    pooled = torch.empty((len(ids), backbone.hidden), dtype=torch.float32)
    batches = length_batches(lengths, limits)
    started = last = time.monotonic()
    for done, batch in enumerate(batches, 1):
        input_ids, mask = pad_ids([ids[i] for i in batch], backbone.pad_id)
        states = backbone.states(input_ids, mask)
        pooled[batch] = mean_pool(states, mask.to(states.device)).cpu()
        states = states.to("cpu", torch.float16)
        for row, i in enumerate(batch):
            tokens[offsets[i] : offsets[i + 1]] = states[row, : lengths[i]]
        if time.monotonic() - last > 60 or done == len(batches):
            last = time.monotonic()
            log(f"backbone: {sum(len(b) for b in batches[:done])}/{len(ids)} segments, {last - started:.0f} s")
    return EncodedSegments(tokens, offsets, pooled)


def cached_encode(cache: Path | None, backbone: Backbone, texts: list[str], limits: BatchLimits,
                  log: Callable[[str], None]) -> EncodedSegments:
    """`encode_segments`, read from / written to `cache` (a folder) when given.

    The key hashes the texts, the backbone, its layers, their fine-tuned weights and the max
    length, so a stale cache is never read.
    Retraining the heads with other settings then skips the backbone, the slow part on CPU.
    """
    if cache is None:
        return encode_segments(backbone, texts, limits, log)
    digest = hashlib.sha256(f"{backbone.encoder.name_or_path}|{backbone.max_length}|{backbone.layers}".encode())
    for name in sorted(backbone.tuned):
        digest.update(name.encode() + backbone.tuned[name].float().numpy().tobytes())
    for text in texts:
        digest.update(text.encode("utf-8") + b"\0")
    path = cache / f"encoded-{digest.hexdigest()[:16]}.pt"
    if path.exists():
        log(f"backbone: reading {len(texts)} encoded segments from {path}")
        return EncodedSegments(**torch.load(path))
    encoded = encode_segments(backbone, texts, limits, log)
    cache.mkdir(parents=True, exist_ok=True)
    torch.save({"tokens": encoded.tokens, "offsets": encoded.offsets, "pooled": encoded.pooled}, path)
    return encoded
