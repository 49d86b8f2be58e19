"""A clause type taught from examples, as an add-on to the shipped model (issue 44).

The shipped network is never changed: a taught type brings its own lexical column over the
router's features (the shipped idf, so the two read a segment's words alike), one expert of the
shipped shape reading the shared backbone's token states, and its own calibration.  The expert
runs only on segments whose lexical logit reaches the add-on's gate, fitted so that nearly every
example passes, which keeps a type's cost to a small share of segments.

Stored as safetensors bytes (in the database, so every gpu worker reads the same): the lexical
column sparse (the features its examples and negatives used; the rest stay exactly zero under
the L2 fit), weights in fp16, calibration in fp32.  The version is a hash of every tensor, the
name and the checkpoint it extends, so the same training gives the same version.
"""
from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass, field

import torch
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors

from models.calibration import apply_platt
from models.experts import ExpertBank
from models.lexical import BIGRAM_BUCKETS, LexicalBag
from pipelines.categories import TAUGHT_PREFIX

FORMAT = "clausemill-clause-type/1"
_EXPERT = ("down", "down_bias", "up", "up_bias", "query", "head", "head_bias")


@dataclass
class Addon:
    """One taught type's parameters, ready to score segments."""

    name: str
    version: str
    base_version: str
    index: torch.Tensor  # int64 [m], ascending: lexical features with a weight
    weight: torch.Tensor  # fp32 [m]
    bias: float
    experts: ExpertBank  # one expert
    gate: float  # lexical logit from which the expert runs
    platt_expert: tuple[float, float]
    platt_lexical: tuple[float, float]
    metrics: dict = field(default_factory=dict)

    def lexical_logits(self, bag: LexicalBag, idf: torch.Tensor, vocab_size: int) -> torch.Tensor:
        """[n] logits of the add-on's column for a bag of the shipped router's features.  Section
        headings are left out: examples pasted as quotes have none, so a heading's words would
        teach where a segment sits, not what it says."""
        words = torch.where(bag.index <= vocab_size + BIGRAM_BUCKETS, bag.index, 0)
        tfidf = torch.where(bag.count > 0, 1 + torch.log(bag.count.clamp(min=1)), 0.0) * idf[words]
        tfidf = torch.where(words > 0, tfidf, 0.0)
        tfidf = tfidf / tfidf.norm(dim=1, keepdim=True).clamp(min=1e-12)
        if not len(self.index):
            return torch.full((len(words),), self.bias)
        at = torch.searchsorted(self.index, words).clamp(max=len(self.index) - 1)
        weight = torch.where(self.index[at] == words, self.weight[at], 0.0)
        return (weight * tfidf).sum(1) + self.bias

    def probabilities(self, lexical: torch.Tensor, corrections: torch.Tensor | None, gated: torch.Tensor) -> torch.Tensor:
        """Calibrated probabilities [n]: the expert's where it ran (`gated`, with `corrections` for
        those rows in order), the lexical column's elsewhere."""
        probability = apply_platt(lexical, torch.tensor(self.platt_lexical[0]), torch.tensor(self.platt_lexical[1]))
        if corrections is not None and bool(gated.any()):
            refined = lexical[gated] + corrections
            probability[gated] = apply_platt(refined, torch.tensor(self.platt_expert[0]), torch.tensor(self.platt_expert[1]))
        return probability


def addon_version(slug: str, number: int, name: str, base_version: str, tensors: dict[str, torch.Tensor]) -> str:
    """'ct-force-majeure-3-9f1c2ab4': the type, its version number and a hash of what it computes."""
    digest = hashlib.sha256(f"{name}\0{base_version}".encode())
    for key in sorted(tensors):
        tensor = tensors[key].contiguous()
        digest.update(f"{key}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return f"{TAUGHT_PREFIX}{slug[:24].strip('-')}-{number}-{digest.hexdigest()[:8]}"


def addon_tensors(addon: Addon) -> dict[str, torch.Tensor]:
    """The tensors as stored: weights in fp16, calibration and the gate in fp32."""
    tensors = {"lexical.index": addon.index.to(torch.int32), "lexical.weight": addon.weight.half(),
               "lexical.bias": torch.tensor([addon.bias], dtype=torch.float32),
               "gate": torch.tensor([addon.gate], dtype=torch.float32),
               "platt.expert": torch.tensor(addon.platt_expert, dtype=torch.float32),
               "platt.lexical": torch.tensor(addon.platt_lexical, dtype=torch.float32)}
    for key in _EXPERT:
        tensors[f"expert.{key}"] = getattr(addon.experts, key).detach().cpu().half()
    return {key: t.contiguous() for key, t in tensors.items()}


def save_addon(addon: Addon) -> bytes:
    metadata = {"format": FORMAT, "name": addon.name, "version": addon.version, "base_version": addon.base_version,
                "metrics": json.dumps(addon.metrics)}
    return save_tensors(addon_tensors(addon), metadata=metadata)


def load_addon(data: bytes, base_version: str) -> Addon:
    """The add-on in `data`; refused (ValueError) when it was trained for another checkpoint."""
    metadata = _metadata(data)
    if metadata.get("format") != FORMAT:
        raise ValueError(f"not a clause-type add-on (format {metadata.get('format')!r})")
    if metadata.get("base_version") != base_version:
        raise ValueError(f"{metadata.get('name')!r} {metadata.get('version')} was trained for checkpoint "
                         f"{metadata.get('base_version')}, not {base_version}: train it again (`clausemill clauses train`)")
    tensors = load_tensors(data)
    down = tensors["expert.down"]
    experts = ExpertBank(1, down.shape[1], down.shape[2])
    with torch.no_grad():
        for key in _EXPERT:
            getattr(experts, key).copy_(tensors[f"expert.{key}"].float())
    expert, lexical = tensors["platt.expert"].tolist(), tensors["platt.lexical"].tolist()
    return Addon(metadata["name"], metadata["version"], metadata["base_version"], tensors["lexical.index"].long(),
                 tensors["lexical.weight"].float(), float(tensors["lexical.bias"][0]), experts.eval(),
                 float(tensors["gate"][0]), (expert[0], expert[1]), (lexical[0], lexical[1]),
                 json.loads(metadata.get("metrics", "{}")))


def _metadata(data: bytes) -> dict[str, str]:
    """The safetensors header's metadata: 8 bytes of length, then a JSON header."""
    if len(data) < 8:
        raise ValueError("not a clause-type add-on (too short)")
    (length,) = struct.unpack("<Q", data[:8])
    try:
        header = json.loads(data[8:8 + length])
    except ValueError:
        raise ValueError("not a clause-type add-on (unreadable header)") from None
    return header.get("__metadata__") or {}
