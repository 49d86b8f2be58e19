"""The model as the gpu worker uses it: load once, then findings for batches of documents.

    model = load_clause_model()                    # CUDA + fp16 when present, else CPU fp32
    findings = model.predict(segments)             # one document
    per_document = model.predict_many([segs_a, segs_b])   # several waiting documents at once

Emitted categories are `model.config.emitted`: the 33 clause categories and the key-term
categories where the model measured better than the key-term extractors (Parties, Expiration
Date, Renewal Term, Notice Period To Terminate Renewal, Governing Law); Document Name,
Agreement Date and Effective Date are left to the extractors (models/config.py).  Every
candidate segment at or above `config.floor` (0.02) is returned, and each category's few best
segments of the document below it (the ranked tail, models/tail.py), so CUAD's threshold sweep
has recall; aggregation decides what to show.  Segments the router's lexical term rules out
(on a CPU), and repeats within a document, skip the backbone (the cascade, models/cascade.py).
Confidences are calibrated probabilities; each category's best segment carries the
probability that the document contains the category.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

import torch

from models.addon_inference import AddonPass, addon_findings
from models.addons import Addon
from models.backbone import Backbone
from models.batching import BatchLimits, length_batches, pad_ids
from models.calibration import apply_platt
from models.candidates import document_findings
from models.cascade import cascade_scores, first_occurrences
from models.checkpoint import DEFAULT_CHECKPOINT, Checkpoint, load_checkpoint
from models.features import N_FEATURES, segment_features
from models.headings import section_headings
from models.lexical import lexical_bag
from models.network import MODES, Mode
from models.presence import document_maxima, presence_probability, presence_score
from models.runtime import compute_dtype, pick_device
from models.tail import as_sizes
from pipelines.datamodel import Finding, Segment


class ClauseModel:
    """Backbone + clause network on one device."""

    def __init__(self, checkpoint: Checkpoint, device: torch.device, *, int8: bool = False) -> None:
        self.config = checkpoint.config
        self.version = checkpoint.version
        self.device = device
        self.backbone = Backbone(device, compute_dtype(device), self.config.max_length, int8=int8,
                                 layers=self.config.layers, tuned=checkpoint.backbone_layers)
        if (self.backbone.hidden, self.backbone.vocab_size) != (checkpoint.hidden, checkpoint.vocab_size):
            raise ValueError(f"checkpoint expects hidden size {checkpoint.hidden} and vocabulary {checkpoint.vocab_size}, "
                             f"backbone has {self.backbone.hidden} and {self.backbone.vocab_size}")
        self.network = checkpoint.network.to(device).eval()
        self.tail = as_sizes(self.network.tail_size)
        self.widen = tuple(self.network.widen_weight.tolist()) if bool(self.network.widen_weight.any()) else ()
        self.limits = BatchLimits.for_device(device)
        self.cascade = True  # False: every segment, repeats included, goes through the backbone (benchmarks compare)
        # The cascade's lexical pre-pass saves backbone work, which pays where the backbone is
        # the cost (a CPU).  On a GPU the pre-pass cost more than it saved: on an H100, sparse
        # predict ran 13.4k segments/s with it and 18.1k without (docs/BENCHMARKS.md).
        self.rule_out_unlikely = device.type != "cuda"
        self.counts: Counter[str] = Counter()  # running totals: segments, skipped by the cascade, repeated

    def predict(self, segments: list[Segment], *, mode: Mode = "sparse", top_k: int | None = None) -> list[Finding]:
        """Findings for one document's segments (all of them, in order: positions are features)."""
        return self.predict_many([segments], mode=mode, top_k=top_k)[0]

    def predict_many(self, batch: list[list[Segment]], *, mode: Mode = "sparse",
                     top_k: int | None = None) -> list[list[Finding]]:
        """Findings per document; segments of all documents share length-sorted backbone batches."""
        probabilities = self.probabilities(batch, mode=mode, top_k=top_k)
        c = self.config
        return [
            document_findings(segments, p, self.presence(p), c.categories, c.emitted, c.floor, self.version, self.tail,
                              self.widen)
            for segments, p in zip(batch, probabilities)
        ]

    def chunk_probabilities(self, chunks: list[list[Segment]], ends: list[int], headings: list[str] | None = None, *,
                            mode: Mode = "sparse", addons: list[list[Addon]] | None = None) -> list[torch.Tensor]:
        """Probabilities for parts of documents, each part with the end of its whole document (a
        position feature) and the section heading in force where it starts: the gpu worker scores
        a long document a part at a time, between other documents' parts, and joins them with
        document_findings.  `addons[i]`: part i's taught clause types, whose columns follow CUAD's."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        k = self.config.top_k
        headings = headings or [""] * len(chunks)
        addons = addons or [[] for _ in chunks]
        if self.backbone.int8 and len(chunks) > 1:
            return [self._probabilities([chunk], mode, k, [end], [heading], [mine])[0]
                    for chunk, end, heading, mine in zip(chunks, ends, headings, addons)]
        return self._probabilities(chunks, mode, k, ends, headings, addons)

    def document_findings(self, segments: list[Segment], probability: torch.Tensor,
                          addons: list[Addon] | None = None) -> list[Finding]:
        """One document's findings from all of its segments' probabilities [n, C], then [n, C + A]
        with the columns of its taught clause types `addons`."""
        c = self.config
        shipped = probability[:, :len(c.categories)]
        findings = document_findings(segments, shipped, self.presence(shipped), c.categories, c.emitted, c.floor,
                                     self.version, self.tail, self.widen)
        if addons:
            findings += addon_findings(segments, probability[:, len(c.categories):], addons, c.floor)
        return findings

    def presence(self, probability: torch.Tensor) -> torch.Tensor:
        """[C] presence score per category (>= 0.5: the document contains it), from its segments' [n, C]."""
        net = self.network
        calibrated = presence_probability(document_maxima(probability), net.presence_scale.cpu(), net.presence_bias.cpu())
        return presence_score(calibrated, net.presence_threshold.cpu())

    def probabilities(self, batch: list[list[Segment]], *, mode: Mode = "sparse",
                      top_k: int | None = None) -> list[torch.Tensor]:
        """Calibrated probabilities [n_segments, n_categories] per document, on CPU.

        Documents share backbone batches, except with the int8 backbone: it quantizes each
        batch's activations with one scale, so a document batched with others would score
        differently than alone, and a re-run could change its findings.  There each document
        gets its own batches (on a CPU its ~270 segments fill them anyway).
        """
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        k = top_k or self.config.top_k
        if self.backbone.int8 and len(batch) > 1:
            return [self._probabilities([segments], mode, k)[0] for segments in batch]
        return self._probabilities(batch, mode, k)

    def _probabilities(self, batch: list[list[Segment]], mode: Mode, k: int, ends: list[int] | None = None,
                       headings: list[str] | None = None, addons: list[list[Addon]] | None = None) -> list[torch.Tensor]:
        texts = [s.text for segments in batch for s in segments]
        ends = ends or [None] * len(batch)  # type: ignore[list-item]
        features = (torch.cat([segment_features(segments, end) for segments, end in zip(batch, ends)]) if batch
                    else torch.zeros((0, N_FEATURES)))
        ids = self.backbone.token_ids(texts)
        heading_ids = self.heading_ids(batch, headings or [""] * len(batch))
        out = torch.zeros((len(texts), len(self.config.categories)))
        first = self._first_occurrences(batch) if self.cascade else list(range(len(texts)))
        encode = [i for i, f in enumerate(first) if f == i]
        skipped: list[int] = []
        if self.cascade and self.rule_out_unlikely and mode == "sparse" and encode:
            lexical = self.lexical_logits([ids[i] for i in encode],
                                          [heading_ids[i] for i in encode] if heading_ids else None)
            worth = cascade_scores(lexical, self.network.cascade_offset.cpu()) >= float(self.network.cascade_cutoff)
            skipped = [i for i, w in zip(encode, worth.tolist()) if not w]
            out[skipped] = apply_platt(lexical[~worth], self.network.router_scale.cpu(), self.network.router_bias.cpu())
            encode = [i for i, w in zip(encode, worth.tolist()) if w]
        taught = None
        if addons and any(addons):
            documents = [d for d, segments in enumerate(batch) for _ in segments]
            taught = AddonPass(addons, documents, ids, self.backbone, self.network.router.lexical.idf.cpu())
        for positions in length_batches([len(ids[i]) for i in encode], self.limits):
            rows = [encode[j] for j in positions]
            input_ids, mask = (t.to(self.device) for t in pad_ids([ids[i] for i in rows], self.backbone.pad_id))
            states = self.backbone.states(input_ids, mask)
            heading = pad_ids([heading_ids[i] for i in rows], self.backbone.pad_id) if heading_ids else None
            bag = lexical_bag(input_ids, mask, self.backbone.vocab_size, self.backbone.special_ids, heading)
            scores = self.network.scores(states, mask, features[rows].to(self.device), bag, mode, k)
            out[rows] = scores.probability.cpu()
            if taught is not None:
                taught.observe(rows, states, mask)
        repeats = [i for i, f in enumerate(first) if f != i]
        out[repeats] = out[[first[i] for i in repeats]]
        self.counts.update(segments=len(texts), repeated=len(repeats), skipped=len(skipped))
        sizes = [len(segments) for segments in batch]
        if taught is None:
            return list(out.split(sizes))
        # segments only the taught types want: batches of their own (the module docstring of addon_inference)
        extra = sorted({r for r in taught.rows() if first[r] == r} - set(encode))
        for positions in length_batches([len(ids[i]) for i in extra], self.limits):
            rows = [extra[j] for j in positions]
            input_ids, mask = (t.to(self.device) for t in pad_ids([ids[i] for i in rows], self.backbone.pad_id))
            taught.observe(rows, self.backbone.states(input_ids, mask), mask)
        taught.repeat(first)
        self.counts.update(taught_only=len(extra))
        return [torch.cat([shipped, own], 1) for shipped, own in zip(out.split(sizes), taught.per_document(sizes))]

    @staticmethod
    def _first_occurrences(batch: list[list[Segment]]) -> list[int]:
        """Flat index of each segment's first occurrence in its own document."""
        first: list[int] = []
        for segments in batch:
            start = len(first)
            first += [start + i for i in first_occurrences([s.text for s in segments])]
        return first

    def heading_ids(self, batch: list[list[Segment]], leads: list[str]) -> list[list[int]] | None:
        """Word-piece ids of each segment's section heading, when the lexical term reads them;
        `leads` are the headings in force before each document (part) starts."""
        if not self.network.router.lexical.headings:
            return None
        headings = [h for segments, lead in zip(batch, leads) for h in section_headings(segments, lead)]
        distinct = list(dict.fromkeys(headings))  # a heading is in force over many segments
        ids = dict(zip(distinct, self.backbone.token_ids(distinct)))
        return [ids[h] for h in headings]

    @torch.inference_mode()
    def lexical_logits(self, ids: list[list[int]], heading_ids: list[list[int]] | None = None) -> torch.Tensor:
        """The router's lexical logits [n, C] (CPU) from word-piece ids alone: no backbone."""
        lexical = self.network.router.lexical
        parts = []
        for start in range(0, len(ids), 256):
            input_ids, mask = pad_ids(ids[start:start + 256], self.backbone.pad_id)
            heading = pad_ids(heading_ids[start:start + 256], self.backbone.pad_id) if heading_ids else None
            bag = lexical_bag(input_ids, mask, self.backbone.vocab_size, self.backbone.special_ids, heading)
            parts.append(lexical(bag.to(self.device)).float().cpu())
        return torch.cat(parts)


    @property
    def precision(self) -> str:
        """What the backbone computes in: 'fp16' (CUDA), 'int8' or 'fp32' (CPU)."""
        if self.backbone.int8:
            return "int8"
        return "fp16" if self.backbone.dtype == torch.float16 else "fp32"


@lru_cache(maxsize=2)
def _cached(path: Path, device: str, int8: bool) -> ClauseModel:
    return ClauseModel(load_checkpoint(path), torch.device(device), int8=int8)


def load_clause_model(path: Path | None = None, device: str | None = None, *, int8: bool = True,
                      threads: int = 0) -> ClauseModel:
    """The model from `path` (default: the committed checkpoint) on `device` (default: CUDA if
    present, else CPU with `threads` torch threads, 0: one per core), loaded once per process
    and reused.  `int8` quantizes the backbone when it runs on a CPU (CUDA always runs fp16)."""
    chosen = pick_device(device, threads)
    return _cached(Path(path or DEFAULT_CHECKPOINT).resolve(), str(chosen), int8 and chosen.type == "cpu")
