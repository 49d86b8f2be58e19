"""Train the router, the experts and the linear baseline on CUAD, calibrate them, save one file.

    from models.training import train
    train(Path("../shared/data/cuad"), Path("models/checkpoint/clause_experts.safetensors"))

Contracts in docs/validation_split.txt are never seen.  The rest is split by contract (fixed
seed) into a fitting part and a calibration part (15%).  Every contract is segmented and
labelled; of the fitting contracts, positives, their neighbours and a 12% sample of other
segments are kept (models/sampling.py), of the calibration contracts every segment.  The
backbone's layers are fine-tuned on the kept fitting segments (models/finetuning.py); then
every kept segment goes through the tuned backbone once, and, on those outputs:

1. the linear baseline learns the categories from pooled states;
2. the router's lexical logistic regression is fitted on all fitting segments, and on 4 folds
   of contracts for out-of-fold logits; the router's MLP (pooled state, position) learns to
   correct those out-of-fold logits, so it and the experts learn to correct a router as wrong
   as it will be on new contracts;
3. each expert learns to correct the out-of-fold lexical logit of its category on the
   segments whose router ranks it in the top k + 2, and on its category's positives; the
   router MLP and the experts keep the epoch that ranks the calibration contracts' segments
   best (models/selection.py), "no correction" included;
4. on the calibration contracts: Platt scaling per category for the expert-refined logits
   (pairs whose expert ran under top-k), the router's fallback logits (pairs whose expert did
   not run) and the linear baseline; then the per-category presence calibration of each
   contract's best segment probability (models/presence.py), and how many of each contract's
   best segments per category are kept below the floor (the ranked tail, models/tail.py), and
   which segments are not worth the backbone (the cascade, models/cascade.py).

Deterministic: seeds fix the splits, the sampling, initialisation and batch order (CPU).
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from models.backbone import Backbone
from models.batching import BatchLimits
from models.calibration import apply_platt, fit_per_category
from models.candidates import candidate_scores
from models.cascade import fit_cascade
from models.checkpoint import round_to_storage, save_checkpoint
from models.config import ModelConfig
from models.corpus import LabelledDocument, load_cuad, load_reviewed, read_split, segment_labels
from models.encoded import EncodedSegments, cached_encode
from models.features import segment_features
from models.finetuning import FineTuneSettings, cached_fine_tune, tuning_sample
from models.fitting import (
    ExpertPairs, FitSettings, embedding_logits, fit_experts, fit_lexical, fit_linear, fit_router_mlp, lexical_logits,
)
from models.headings import section_headings
from models.lexical import LexicalBag, LexicalLayer, padded_lexical_bag
from models.network import ClauseNetwork
from models.presence import decision_threshold, document_maxima, fit_presence, presence_probability, presence_score
from models.selection import macro_average_precision
from models.runtime import compute_dtype, pick_device
from models.sampling import Sample, sample_segments
from models.tail import choose_tail_sizes
from models.widening import clause_texts, fit_weights

REPO = Path(__file__).resolve().parents[1]
SPLIT_FILE = REPO / "docs" / "validation_split.txt"


@dataclass(frozen=True)
class TrainSettings:
    fit: FitSettings = field(default_factory=FitSettings)
    finetune: FineTuneSettings = field(default_factory=FineTuneSettings)
    negative_rate: float = 0.12
    calibration_share: float = 0.15
    router_folds: int = 4
    expert_margin: int = 2  # experts train on their router's top (k + margin) segments


@dataclass
class TrainReport:
    version: str
    path: Path
    seconds: dict[str, float]
    counts: dict[str, int]
    routing_recall: float  # calibration positives whose expert is in the router's top k


@dataclass
class _Rows:
    """The sampled segments of many documents, in one table."""

    texts: list[str]
    headings: list[str]  # the section heading each sits under (models/headings.py)
    features: torch.Tensor
    labels: torch.Tensor  # [n, C] bool
    weights: torch.Tensor  # [n] inverse sampling rates
    document: np.ndarray  # [n] document number
    calibration: np.ndarray  # [n] bool: belongs to a calibration contract
    present: torch.Tensor  # [n_documents, C] bool: the document has a span of the category


def train(data: Path, out: Path, *, split_file: Path = SPLIT_FILE, config: ModelConfig | None = None,
          settings: TrainSettings | None = None, device: str | None = None, cache: Path | None = None,
          extra: Sequence[Path] = (), log: Callable[[str], None] = print) -> TrainReport:
    """Train on the CUAD folder `data` minus the validation split, plus the reviewers' labels of
    each `extra` folder (`clausemill review export --training`); write the checkpoint to `out`.

    `cache` (a folder) keeps the backbone outputs between runs: retraining with other head
    settings then takes minutes.  Device: CUDA when present unless `device` says otherwise.
    """
    validation = read_split(split_file)
    documents = [d for d in load_cuad(data) if d.name not in validation]
    log(f"{len(documents)} training contracts ({len(validation)} validation contracts left out)")
    for folder in extra:
        reviewed = [d for d in load_reviewed(folder) if d.name not in validation]
        log(f"{len(reviewed)} reviewed contracts from {folder} ({sum(len(d.reviewed or ()) for d in reviewed)} "
            "decided spans; only those are labelled)")
        documents += reviewed
    return train_on_documents(documents, out, config=config, settings=settings, device=device, cache=cache, log=log)


def train_on_documents(documents: list[LabelledDocument], out: Path, *, config: ModelConfig | None = None,
                       settings: TrainSettings | None = None, device: str | None = None,
                       cache: Path | None = None, log: Callable[[str], None] = print) -> TrainReport:
    """Train on labelled documents (CUAD's or synthetic ones) and save the checkpoint."""
    config = config or ModelConfig()
    settings = settings or TrainSettings()
    seed = settings.fit.seed
    torch.manual_seed(seed)
    chosen = pick_device(device)
    clock = _Clock()

    rows = _sample_rows(documents, config.categories, settings, np.random.default_rng(seed))
    clock.lap("segment+label")
    tuned = _fine_tuned_layers(rows, config, settings, chosen, cache, log)
    clock.lap("fine-tuning")
    backbone = Backbone(chosen, compute_dtype(chosen), config.max_length, layers=config.layers, tuned=tuned)
    encoded = cached_encode(cache, backbone, rows.texts, BatchLimits.for_device(chosen), log)
    bag = padded_lexical_bag(backbone.token_ids(rows.texts), backbone.vocab_size, backbone.special_ids,
                             backbone.token_ids(rows.headings) if config.headings else None)
    clock.lap("backbone")

    fit = np.flatnonzero(~rows.calibration)
    held = np.flatnonzero(rows.calibration)
    network = ClauseNetwork(len(config.categories), backbone.hidden, config.rank, config.router_hidden,
                            backbone.vocab_size, config.headings)
    fit_linear(network.linear, encoded.pooled[fit], rows.labels[fit], settings.fit, chosen)
    clock.lap("linear")
    router = network.router
    lexical_oof = _out_of_fold_lexical_logits(rows, bag, fit, config, backbone.vocab_size, settings, chosen)
    fit_lexical(router.lexical, bag.rows(fit), rows.labels[fit], settings.fit, chosen)
    held_labels, held_weights = rows.labels[held], rows.weights[held]

    def router_ranking() -> float:
        router_logits = _held_out_logits(network, encoded, rows, bag, held, config.top_k, chosen, experts=False)[0]
        return macro_average_precision(router_logits, held_labels, held_weights)

    def sparse_ranking() -> float:
        router_logits, refined, _, ran = _held_out_logits(network, encoded, rows, bag, held, config.top_k, chosen)
        return macro_average_precision(torch.where(ran, refined, router_logits - 100.0), held_labels, held_weights)

    mlp_epoch = fit_router_mlp(router, encoded.pooled[fit], rows.features[fit], lexical_oof, rows.labels[fit],
                               settings.fit, chosen, router_ranking, log)
    log(f"router: kept MLP epoch {mlp_epoch}")
    oof = lexical_oof + embedding_logits(router, encoded.pooled[fit], rows.features[fit], chosen)
    clock.lap("router")
    pairs = _expert_pairs(fit, oof, lexical_oof, rows.labels[fit], config.top_k + settings.expert_margin)
    log(f"experts: {len(pairs)} (segment, expert) pairs from {len(fit)} segments")
    expert_epoch = fit_experts(network.experts, encoded, pairs, settings.fit, chosen, sparse_ranking, log)
    log(f"experts: kept epoch {expert_epoch}")
    clock.lap("experts")
    round_to_storage(network)
    recall, presence_threshold = _calibrate(network, encoded, rows, bag, held, config.top_k, config, chosen, documents)
    log(f"presence: calibration contracts' macro-F1 peaks at threshold {presence_threshold}")
    log(f"ranked tail: {int(network.tail_size.sum())} segments per contract below the floor at most")
    clock.lap("calibration")

    counts = {"contracts": len(documents), "calibration_contracts": int(len(np.unique(rows.document[held]))),
              "segments_encoded": len(rows.texts), "fit_segments": len(fit), "calibration_segments": len(held),
              "positive_segments": int(rows.labels.any(1).sum()), "expert_pairs": len(pairs)}
    provenance = {"seed": str(seed), "counts": str(counts), "negative_rate": str(settings.negative_rate),
                  "device": chosen.type, "router_mlp_epoch": str(mlp_epoch), "expert_epoch": str(expert_epoch),
                  "presence_threshold": str(presence_threshold),
                  "backbone_finetune": json.dumps(asdict(settings.finetune)) if tuned else "none"}
    version = save_checkpoint(out, network.cpu(), replace(config, training=provenance), backbone.hidden,
                              backbone.vocab_size, tuned)
    clock.lap("save")
    log(f"saved {out} ({out.stat().st_size / 1e6:.1f} MB), version {version}; "
        f"routing recall@{config.top_k} {recall:.3f}; {clock.total():.0f} s")
    return TrainReport(version, out, clock.seconds, counts, recall)


def pick_calibration(documents: Sequence[LabelledDocument], settings: TrainSettings,
                     rng: np.random.Generator) -> set[int]:
    """The numbers of the calibration contracts: a share of the fully annotated ones, drawn
    first from the training seed's generator (ops/benchmarks/recall_ceiling.py draws them again)."""
    full = [number for number, doc in enumerate(documents) if doc.reviewed is None]
    order = rng.permutation(len(full))
    n_calibration = max(1, round(len(full) * settings.calibration_share)) if len(full) > 1 else 0
    return {full[i] for i in order[:n_calibration].tolist()}


def _sample_rows(documents: list[LabelledDocument], categories: tuple[str, ...], settings: TrainSettings,
                 rng: np.random.Generator) -> _Rows:
    """Segment, label and sample every document; pick the calibration contracts."""
    calibration_docs = pick_calibration(documents, settings, rng)
    texts, headings, features, labels, weights, document, calibration = [], [], [], [], [], [], []
    for number, doc in enumerate(documents):
        segments = doc.segments()
        doc_labels = segment_labels(segments, doc.spans, categories)
        if doc.reviewed is not None:  # reviewers' labels: only what they decided, never calibration
            reviewed = doc.reviewed_segments(segments)
            sample = Sample(reviewed, np.ones(len(reviewed), dtype=np.float32))
        else:
            rate = 1.0 if number in calibration_docs else settings.negative_rate
            sample = sample_segments(doc_labels, rate, rng)
        doc_features = segment_features(segments)
        texts += [segments[i].text for i in sample.indices]
        doc_headings = section_headings(segments)
        headings += [doc_headings[i] for i in sample.indices]
        features.append(doc_features[sample.indices])
        labels.append(torch.from_numpy(doc_labels[sample.indices]))
        weights.append(torch.from_numpy(sample.weights))
        document += [number] * len(sample.indices)
        calibration += [number in calibration_docs] * len(sample.indices)
    column = {c: i for i, c in enumerate(categories)}
    present = torch.zeros((len(documents), len(categories)), dtype=torch.bool)
    for number, doc in enumerate(documents):
        for category, _, _ in doc.spans:
            if category in column:
                present[number, column[category]] = True
    return _Rows(texts, headings, torch.cat(features), torch.cat(labels), torch.cat(weights), np.array(document),
                 np.array(calibration, dtype=bool), present)


def _fine_tuned_layers(rows: _Rows, config: ModelConfig, settings: TrainSettings, device: torch.device,
                       cache: Path | None, log: Callable[[str], None]) -> dict[str, torch.Tensor]:
    """The backbone's layers fine-tuned on a sample of the fitting segments (none at 0 epochs)."""
    if settings.finetune.epochs <= 0:
        return {}
    seed = settings.fit.seed
    tuning, weights = tuning_sample(rows.weights, np.flatnonzero(~rows.calibration), settings.finetune.negative_share,
                                    np.random.default_rng(seed + 2))
    log(f"fine-tuning: the backbone's {config.layers} layers on {len(tuning)} fitting segments")
    tuner = Backbone(device, torch.float32, config.max_length, layers=config.layers)  # fp32: it trains
    return cached_fine_tune(cache, tuner, [rows.texts[i] for i in tuning], rows.labels[tuning], weights,
                            settings.finetune, seed, log)


def _out_of_fold_lexical_logits(rows: _Rows, bag: LexicalBag, fit: np.ndarray, config: ModelConfig,
                                vocab_size: int, settings: TrainSettings, device: torch.device) -> torch.Tensor:
    """Lexical logits for the fitting segments, each from a regression that never saw its contract."""
    docs = np.unique(rows.document[fit])
    folds = np.random.default_rng(settings.fit.seed + 1).permutation(len(docs)) % settings.router_folds
    fold = folds[np.searchsorted(docs, rows.document[fit])]
    logits = torch.zeros((len(fit), len(config.categories)))
    for k in range(settings.router_folds):
        train_rows, test_rows = fit[fold != k], fit[fold == k]
        if not len(test_rows) or not len(train_rows):
            continue
        layer = LexicalLayer(vocab_size, len(config.categories), config.headings)
        fit_lexical(layer, bag.rows(train_rows), rows.labels[train_rows], settings.fit, device)
        logits[torch.from_numpy(fold == k)] = lexical_logits(layer, bag.rows(test_rows), device)
    return logits


def _expert_pairs(fit: np.ndarray, routing: torch.Tensor, lexical: torch.Tensor, labels: torch.Tensor,
                  depth: int) -> ExpertPairs:
    """(segment, expert) pairs: each segment's top-`depth` categories by `routing` logits, and
    every positive; the experts learn to correct the (out-of-fold) `lexical` logits there."""
    chosen = torch.zeros_like(labels)
    top = routing.topk(min(depth, routing.shape[1]), dim=1).indices
    chosen.scatter_(1, top, True)
    chosen |= labels
    row, expert = chosen.nonzero(as_tuple=True)
    return ExpertPairs(
        row=fit[row.numpy()], expert=expert.numpy(), base=lexical[row, expert].numpy(),
        target=labels[row, expert].numpy().astype(np.float32),
    )


def _calibrate(network: ClauseNetwork, encoded: EncodedSegments, rows: _Rows, bag: LexicalBag, held: np.ndarray,
               k: int, config: ModelConfig, device: torch.device,
               contracts: Sequence[LabelledDocument]) -> tuple[float, float]:
    """Fit the Platt calibrations, the presence decision, the ranked tail's sizes, the wider
    spans' weights and the cascade's cut-off on the calibration segments (of `contracts`);
    returns routing recall@k and the presence threshold moved to 0.5."""
    router, refined, linear, ran = _held_out_logits(network, encoded, rows, bag, held, k, device)
    labels, weights = rows.labels[held], rows.weights[held]
    network.expert_scale[:], network.expert_bias[:] = fit_per_category(refined, labels, weights, ran)
    network.router_scale[:], network.router_bias[:] = fit_per_category(router, labels, weights, ~ran)
    everything = torch.ones_like(ran)
    network.linear_scale[:], network.linear_bias[:] = fit_per_category(linear, labels, weights, everything)
    probability = torch.where(ran, apply_platt(refined, network.expert_scale, network.expert_bias),
                              apply_platt(router, network.router_scale, network.router_bias))
    documents = rows.document[held]
    numbers = np.unique(documents)
    maxima = torch.stack([document_maxima(probability[torch.from_numpy(documents == d)]) for d in numbers])
    present = rows.present[numbers]
    network.presence_scale[:], network.presence_bias[:] = fit_presence(maxima, present)
    calibrated = presence_probability(maxima, network.presence_scale, network.presence_bias)
    threshold = decision_threshold(calibrated, present)
    network.presence_threshold.fill_(threshold)
    emitted = torch.tensor([c in config.emitted for c in config.categories])  # the rest is never emitted
    sizes = choose_tail_sizes(probability, labels & emitted, documents, config.floor)
    network.tail_size[:] = torch.tensor(sizes, dtype=torch.float32)
    presence = presence_score(calibrated, network.presence_threshold)
    held_documents = []
    for i, number in enumerate(numbers):
        at = np.flatnonzero(documents == number)
        contract = contracts[number]
        held_documents.append(([rows.texts[j] for j in held[at]],
                               candidate_scores(probability[torch.from_numpy(at)], presence[i]),
                               clause_texts(contract.text, contract.spans)))
    network.widen_weight[:] = fit_weights(held_documents, config.categories, config.emitted)
    lexical = lexical_logits(network.router.lexical, bag.rows(torch.from_numpy(held)), device)
    offset, cutoff = fit_cascade(lexical, labels, emitted)
    network.cascade_offset[:] = offset
    network.cascade_cutoff.fill_(cutoff)
    positives = labels.sum()
    return (float((labels & ran).sum() / positives) if positives else math.nan), threshold


@torch.no_grad()
def _held_out_logits(network: ClauseNetwork, encoded: EncodedSegments, rows: _Rows, bag: LexicalBag,
                     held: np.ndarray, k: int, device: torch.device,
                     experts: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Uncalibrated logits on the calibration segments: router; expert-refined (lexical logit +
    correction where the expert ran under top-k, no correction when not `experts`, the router
    logit elsewhere); linear; and which experts ran."""
    network.to(device).eval()
    shape = (len(held), rows.labels.shape[1])
    router, refined, linear = torch.zeros(shape), torch.zeros(shape), torch.zeros(shape)
    ran = torch.zeros(shape, dtype=torch.bool)
    for start in range(0, len(held), 128):
        batch = torch.arange(start, min(start + 128, len(held)))
        encoded_rows = torch.from_numpy(held[batch.numpy()])
        pooled = encoded.pooled[encoded_rows].to(device)
        logits, lexical, (segment_idx, expert_idx) = network.route(
            pooled, rows.features[encoded_rows].to(device), bag.rows(encoded_rows).to(device), k)
        pairs = (batch[segment_idx.cpu()], expert_idx.cpu())
        router[batch] = logits.cpu()
        refined[batch] = logits.cpu()
        refined[pairs] = lexical[segment_idx, expert_idx].cpu()
        if experts:
            tokens, mask = encoded.padded(encoded_rows, device)
            refined[pairs] += network.experts.sparse(tokens, mask, segment_idx, expert_idx).cpu()
        ran[pairs] = True
        linear[batch] = network.linear(pooled).cpu()
    return router, refined, linear, ran


class _Clock:
    """Wall-clock seconds per training phase, for the report and the model card."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = self._start = time.monotonic()

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.seconds[name] = round(now - self._last, 1)
        self._last = now

    def total(self) -> float:
        return time.monotonic() - self._start
