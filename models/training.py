"""Train the router, the experts and the linear baseline on CUAD, calibrate them, save one file.

    from models.training import train
    train(Path("../shared/data/cuad"), Path("models/checkpoint/clause_experts.safetensors"))

Contracts in docs/validation_split.txt are never seen.  The rest (335) is cut by contract
(fixed seed) into k folds (4).  Every segment of every contract goes through the frozen backbone
once; the heads fit on a sample of them (models/sampling.py: positives, their neighbours and 12%
of the others), calibration reads them all.  Then, on those outputs:

1. the router's lexical logistic regression is fitted k times, each time on the other folds,
   which gives every segment an out-of-fold lexical logit; the router's MLP and the experts
   learn to correct those, so they learn to correct a router as wrong as it will be on new
   contracts;
2. cross-fitting: for each fold, the linear baseline, the router's MLP and the experts are
   trained on the other folds' contracts, keep the epoch that ranks the fold's segments best
   (models/selection.py, "no correction" included), and score every segment of the fold;
3. the shipped heads are trained the same way on every contract (the lexical regression too),
   keeping the epochs the folds chose (the median);
4. calibration reads the out-of-fold scores of all 335 contracts: Platt scaling per category
   for the expert-refined logits (pairs whose expert ran under top-k), the router's fallback
   logits (pairs whose expert did not run) and the linear baseline; the per-category presence
   calibration of each contract's best segment probability and its decision threshold
   (models/presence.py); the ranked tail's sizes (models/tail.py); the wider spans' weights
   (models/widening.py); which segments are not worth the backbone (models/cascade.py).

Fitted on one held-out draw of 50 contracts, as it was until 2026-12-05, a rare category's
calibration and the presence threshold rested on a handful of positives; out of fold, every
training contract counts.  The shipped heads saw 17% more contracts than the fold models whose
scores calibrate them, so they are a little more confident than their calibration assumes.

Deterministic: seeds fix the folds, the sampling, initialisation and batch order (CPU).
"""
from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
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
from models.fitting import (
    ExpertPairs, FitSettings, embedding_logits, fit_experts, fit_lexical, fit_linear, fit_router_mlp, lexical_logits,
)
from models.headings import section_headings
from models.lexical import LexicalBag, LexicalLayer, padded_lexical_bag
from models.network import ClauseNetwork
from models.presence import decision_threshold, document_maxima, fit_presence, presence_probability, presence_score
from models.selection import macro_average_precision
from models.runtime import compute_dtype, pick_device
from models.sampling import sample_segments
from models.tail import choose_tail_sizes
from models.widening import clause_texts, fit_weights

REPO = Path(__file__).resolve().parents[1]
SPLIT_FILE = REPO / "docs" / "validation_split.txt"


@dataclass(frozen=True)
class TrainSettings:
    fit: FitSettings = field(default_factory=FitSettings)
    negative_rate: float = 0.12
    folds: int = 4  # cross-fitting: each fold's contracts are scored by heads trained on the others
    expert_margin: int = 2  # experts train on their router's top (k + margin) segments


@dataclass
class TrainReport:
    version: str
    path: Path
    seconds: dict[str, float]
    counts: dict[str, int]
    routing_recall: float  # out-of-fold positives whose expert is in the router's top k


@dataclass
class _Rows:
    """Every segment of the fully annotated documents, and the decided ones of reviewed
    documents, in one table."""

    texts: list[str]
    headings: list[str]  # the section heading each sits under (models/headings.py)
    features: torch.Tensor
    labels: torch.Tensor  # [n, C] bool
    document: np.ndarray  # [n] document number
    fitting: np.ndarray  # [n] bool: the heads fit on it (sampled, or decided by a reviewer)
    scored: np.ndarray  # [n] bool: of a fully annotated document, so scored out of fold for calibration
    fold: np.ndarray  # [n] the fold of its document
    present: torch.Tensor  # [n_documents, C] bool: the document has a span of the category


@dataclass
class _Scores:
    """Uncalibrated out-of-fold logits of the scored rows: router, expert-refined, linear,
    lexical, and which experts ran."""

    router: torch.Tensor
    refined: torch.Tensor
    linear: torch.Tensor
    lexical: torch.Tensor
    ran: torch.Tensor


def train(data: Path, out: Path, *, split_file: Path = SPLIT_FILE, config: ModelConfig | None = None,
          settings: TrainSettings | None = None, device: str | None = None, cache: Path | None = None,
          extra: Sequence[Path] = (), log: Callable[[str], None] = print) -> TrainReport:
    """Train on the CUAD folder `data` minus the validation split, plus the reviewers' labels of
    each `extra` folder (`clausemill review export --training`); write the checkpoint to `out`.

    `cache` (a folder) keeps the backbone outputs between runs: retraining with other head
    settings then skips the backbone; the out-of-fold scores calibration read are written there
    too (`out-of-fold-<version>.pt`).  Device: CUDA when present unless `device` says otherwise.
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

    rows = _table(documents, config.categories, settings, np.random.default_rng(seed))
    clock.lap("segment+label")
    backbone = Backbone(chosen, compute_dtype(chosen), config.max_length, layers=config.layers)
    encoded = cached_encode(cache, backbone, rows.texts, BatchLimits.for_device(chosen), log)
    bag = padded_lexical_bag(backbone.token_ids(rows.texts), backbone.vocab_size, backbone.special_ids,
                             backbone.token_ids(rows.headings) if config.headings else None)
    clock.lap("backbone")

    def new_network() -> ClauseNetwork:
        return ClauseNetwork(len(config.categories), backbone.hidden, config.rank, config.router_hidden,
                             backbone.vocab_size, config.headings)

    heads = _Heads(encoded, rows, bag, config, settings, chosen, log)
    layers = heads.fit_lexical_by_fold(backbone.vocab_size)
    clock.lap("lexical")
    scored = np.flatnonzero(rows.scored)
    shape = (len(scored), len(config.categories))
    scores = _Scores(torch.zeros(shape), torch.zeros(shape), torch.zeros(shape), heads.lexical_oof[scored],
                     torch.zeros(shape, dtype=torch.bool))
    epochs = []
    for k, layer in enumerate(layers):
        at = np.flatnonzero(rows.fold[scored] == k)
        if not len(at):
            continue
        network = new_network()
        network.router.lexical.load_state_dict(layer.state_dict())
        log(f"fold {k + 1}/{len(layers)}: {len(np.unique(rows.document[scored[at]]))} contracts held out")
        epochs.append(heads.fit(network, np.flatnonzero(rows.fitting & (rows.fold != k)), scored[at]))
        round_to_storage(network)
        router, refined, linear, ran = _held_out_logits(network, encoded, rows, bag, scored[at], config.top_k, chosen)
        scores.router[at], scores.refined[at], scores.linear[at], scores.ran[at] = router, refined, linear, ran
    clock.lap("folds")

    keep = (statistics.median_low(e[0] for e in epochs), statistics.median_low(e[1] for e in epochs))
    log(f"every contract: router MLP epoch {keep[0]}, experts epoch {keep[1]} (the folds' median)")
    network = new_network()
    fitting = np.flatnonzero(rows.fitting)
    fit_lexical(network.router.lexical, bag.rows(fitting), rows.labels[fitting], settings.fit, chosen)
    heads.fit(network, fitting, None, keep)
    round_to_storage(network)
    clock.lap("heads")
    recall, presence_threshold = _calibrate(network, scores, rows, scored, config, documents)
    log(f"presence: the out-of-fold macro-F1 peaks at threshold {presence_threshold}")
    log(f"ranked tail: {int(network.tail_size.sum())} segments per contract below the floor at most")
    clock.lap("calibration")

    counts = {"contracts": len(documents), "folds": len(epochs), "segments_encoded": len(rows.texts),
              "fit_segments": len(fitting), "scored_segments": len(scored),
              "positive_segments": int(rows.labels.any(1).sum())}
    provenance = {"seed": str(seed), "counts": str(counts), "negative_rate": str(settings.negative_rate),
                  "device": chosen.type, "fold_epochs": str(epochs), "router_mlp_epoch": str(keep[0]),
                  "expert_epoch": str(keep[1]), "presence_threshold": str(presence_threshold)}
    version = save_checkpoint(out, network.cpu(), replace(config, training=provenance), backbone.hidden,
                              backbone.vocab_size)
    if cache is not None:  # calibration choices can then be studied without retraining
        torch.save({"scores": vars(scores), "labels": rows.labels[scored], "document": rows.document[scored],
                    "present": rows.present}, cache / f"out-of-fold-{version}.pt")
    clock.lap("save")
    log(f"saved {out} ({out.stat().st_size / 1e6:.1f} MB), version {version}; "
        f"out-of-fold routing recall@{config.top_k} {recall:.3f}; {clock.total():.0f} s")
    return TrainReport(version, out, clock.seconds, counts, recall)


def assign_folds(documents: Sequence[LabelledDocument], folds: int, rng: np.random.Generator) -> np.ndarray:
    """[n_documents] each document's fold: the fully annotated ones drawn first from the
    training seed's generator, the reviewed ones in turn (so adding reviewers' labels changes
    no CUAD contract's fold or sample)."""
    full = np.array([n for n, d in enumerate(documents) if d.reviewed is None], dtype=np.int64)
    k = max(1, min(folds, len(full)))
    fold = np.arange(len(documents)) % k
    fold[full] = rng.permutation(len(full)) % k
    return fold


def _table(documents: list[LabelledDocument], categories: tuple[str, ...], settings: TrainSettings,
           rng: np.random.Generator) -> _Rows:
    """Segment and label every document, draw the folds and the segments the heads fit on."""
    document_fold = assign_folds(documents, settings.folds, rng)
    texts, headings, features, labels, document, fitting, scored = [], [], [], [], [], [], []
    for number, doc in enumerate(documents):
        segments = doc.segments()
        doc_labels = segment_labels(segments, doc.spans, categories)
        full = doc.reviewed is None
        if full:  # every segment, a sample of them fitted on
            kept = np.arange(len(segments))
            sampled = np.zeros(len(segments), dtype=bool)
            sampled[sample_segments(doc_labels, settings.negative_rate, rng)] = True
        else:  # reviewers' labels: only what they decided, all of it fitted on, never scored
            kept = doc.reviewed_segments(segments)
            sampled = np.ones(len(kept), dtype=bool)
        doc_headings = section_headings(segments)
        texts += [segments[i].text for i in kept]
        headings += [doc_headings[i] for i in kept]
        features.append(segment_features(segments)[kept])
        labels.append(torch.from_numpy(doc_labels[kept]))
        document += [number] * len(kept)
        fitting.append(sampled)
        scored += [full] * len(kept)
    column = {c: i for i, c in enumerate(categories)}
    present = torch.zeros((len(documents), len(categories)), dtype=torch.bool)
    for number, doc in enumerate(documents):
        for category, _, _ in doc.spans:
            if category in column:
                present[number, column[category]] = True
    document_numbers = np.array(document, dtype=np.int64)
    return _Rows(texts, headings, torch.cat(features), torch.cat(labels), document_numbers,
                 np.concatenate(fitting), np.array(scored, dtype=bool), document_fold[document_numbers], present)


class _Heads:
    """Fits a network's heads on some rows: the linear baseline, the router's MLP and the
    experts; the lexical regression is fitted apart (per fold, or on everything)."""

    def __init__(self, encoded: EncodedSegments, rows: _Rows, bag: LexicalBag, config: ModelConfig,
                 settings: TrainSettings, device: torch.device, log: Callable[[str], None]) -> None:
        self.encoded, self.rows, self.bag, self.config = encoded, rows, bag, config
        self.settings, self.device, self.log = settings, device, log
        self.lexical_oof = torch.zeros((len(rows.texts), len(config.categories)))

    def fit_lexical_by_fold(self, vocab_size: int) -> list[LexicalLayer]:
        """One lexical regression per fold, on the other folds' fitting rows; fills the
        out-of-fold lexical logit of every row."""
        rows, layers = self.rows, []
        for k in range(int(rows.fold.max()) + 1):
            layer = LexicalLayer(vocab_size, len(self.config.categories), self.config.headings)
            train_rows = np.flatnonzero(rows.fitting & (rows.fold != k))
            test_rows = np.flatnonzero(rows.fold == k)
            if len(train_rows):
                fit_lexical(layer, self.bag.rows(train_rows), rows.labels[train_rows], self.settings.fit, self.device)
            if len(test_rows):
                self.lexical_oof[test_rows] = lexical_logits(layer, self.bag.rows(test_rows), self.device)
            layers.append(layer)
        return layers

    def fit(self, network: ClauseNetwork, train_rows: np.ndarray, held: np.ndarray | None,
            keep: tuple[int, int] | None = None) -> tuple[int, int]:
        """Fit on `train_rows`, keeping the epochs that rank `held` best (or the epochs `keep`);
        returns the (router MLP, experts) epochs kept."""
        rows, encoded, fit, device = self.rows, self.encoded, self.settings.fit, self.device
        fit_linear(network.linear, encoded.pooled[train_rows], rows.labels[train_rows], fit, device)
        router, base = network.router, self.lexical_oof[train_rows]
        router_ranking = sparse_ranking = None
        if held is not None:
            held_labels, held_weights = rows.labels[held], torch.ones(len(held))
            top_k = self.config.top_k

            def router_ranking() -> float:
                logits = _held_out_logits(network, encoded, rows, self.bag, held, top_k, device, experts=False)[0]
                return macro_average_precision(logits, held_labels, held_weights)

            def sparse_ranking() -> float:
                logits, refined, _, ran = _held_out_logits(network, encoded, rows, self.bag, held, top_k, device)
                return macro_average_precision(torch.where(ran, refined, logits - 100.0), held_labels, held_weights)

        mlp_epoch = fit_router_mlp(router, encoded.pooled[train_rows], rows.features[train_rows], base,
                                   rows.labels[train_rows], fit, device, router_ranking, keep and keep[0])
        routing = base + embedding_logits(router, encoded.pooled[train_rows], rows.features[train_rows], device)
        pairs = _expert_pairs(train_rows, routing, base, rows.labels[train_rows],
                              self.config.top_k + self.settings.expert_margin)
        self.log(f"router: MLP epoch {mlp_epoch}; experts: {len(pairs)} (segment, expert) pairs "
                 f"from {len(train_rows)} segments")
        expert_epoch = fit_experts(network.experts, encoded, pairs, fit, device, sparse_ranking, self.log,
                                   keep and keep[1])
        self.log(f"experts: kept epoch {expert_epoch}")
        return mlp_epoch, expert_epoch


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


def _calibrate(network: ClauseNetwork, scores: _Scores, rows: _Rows, scored: np.ndarray, config: ModelConfig,
               contracts: Sequence[LabelledDocument]) -> tuple[float, float]:
    """Fit the Platt calibrations, the presence decision, the ranked tail's sizes, the wider
    spans' weights and the cascade's cut-off on the out-of-fold scores of `scored` rows (of
    `contracts`); returns routing recall@k and the presence threshold moved to 0.5."""
    router, refined, linear, ran = scores.router, scores.refined, scores.linear, scores.ran
    labels, weights = rows.labels[scored], torch.ones(len(scored))
    network.expert_scale[:], network.expert_bias[:] = fit_per_category(refined, labels, weights, ran)
    network.router_scale[:], network.router_bias[:] = fit_per_category(router, labels, weights, ~ran)
    everything = torch.ones_like(ran)
    network.linear_scale[:], network.linear_bias[:] = fit_per_category(linear, labels, weights, everything)
    probability = torch.where(ran, apply_platt(refined, network.expert_scale, network.expert_bias),
                              apply_platt(router, network.router_scale, network.router_bias))
    documents = rows.document[scored]
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
        held_documents.append(([rows.texts[j] for j in scored[at]],
                               candidate_scores(probability[torch.from_numpy(at)], presence[i]),
                               clause_texts(contract.text, contract.spans)))
    network.widen_weight[:] = fit_weights(held_documents, config.categories, config.emitted)
    offset, cutoff = fit_cascade(scores.lexical, labels, emitted)
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
