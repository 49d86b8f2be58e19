"""The settings that define a checkpoint, stored in its metadata so inference matches training."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

from pipelines.categories import CUAD_CATEGORIES

KEY_TERMS_LEFT_TO_EXTRACTORS: frozenset[str] = frozenset({"Document Name", "Agreement Date", "Effective Date"})
"""Key-term categories the model does not emit: short answers (a title, a date) that a whole
segment never matches (validation AUPR, model vs key-term extractors: 0.34 vs 0.93, 0.01 vs
0.60, 0.07 vs 0.62).  On the other five key-term categories the model's segments beat the
extractors, so it emits them beside the 33 clause categories: Parties 0.97 vs 0.70 (CUAD
credits a candidate that contains the party's name), Expiration Date 0.77 vs 0.27, Renewal
Term 0.74 vs 0.30, Notice Period To Terminate Renewal 0.97 vs 0.13, Governing Law 0.94 vs
0.86 (MODEL_CARD.md)."""


@dataclass(frozen=True)
class ModelConfig:
    """Shape of the network and how its scores become findings.

    `categories[i]` is expert i's category: routing is category-aligned, so the router's score
    for a category both ranks it for top-k and is its probability when its expert did not run.
    """

    categories: tuple[str, ...] = CUAD_CATEGORIES
    emitted: tuple[str, ...] = tuple(c for c in CUAD_CATEGORIES if c not in KEY_TERMS_LEFT_TO_EXTRACTORS)
    top_k: int = 3
    max_length: int = 256  # tokens; 99.7% of CUAD segments fit
    rank: int = 96  # per-expert adapter rank
    router_hidden: int = 512
    floor: float = 0.02  # lowest calibrated probability emitted as a candidate
    headings: bool = True  # the lexical term reads each segment's section heading (models/headings.py)
    layers: int = 3  # the backbone's first N transformer layers (MiniLM has 6): MODEL_CARD.md, "Layers"
    training: dict[str, str] = field(default_factory=dict, compare=False)  # provenance, for the model card

    def to_metadata(self) -> dict[str, str]:
        """safetensors metadata holds strings only: every field as JSON."""
        return {f"config.{k}": json.dumps(v) for k, v in asdict(self).items()}

    @classmethod
    def from_metadata(cls, metadata: dict[str, str]) -> ModelConfig:
        # What a checkpoint from before a field existed was trained with: no headings, all six layers.
        values: dict[str, object] = {"headings": False, "layers": 6}
        for f in fields(cls):
            raw = metadata.get(f"config.{f.name}")
            if raw is not None:
                value = json.loads(raw)
                values[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**values)
