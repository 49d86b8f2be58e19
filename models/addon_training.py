"""Training a taught clause type's add-on (models/addons.py) from its examples (issue 44).

Everything shipped stays frozen: the backbone with its fine-tuned layers, the router and its idf.
What trains is one lexical column, one expert and two calibrations, on the examples (positives),
the counter-examples and a draw of segments from audited contracts (negatives):

1. The backbone encodes every row once (the negatives through the encoding cache: they are the
   same draw for a type each time it is trained).
2. K-fold cross-validation, grouped (one quote, or one contract's segments, never on both
   sides): each fold's lexical column and expert score the rows it left out.  The gate is set
   from those out-of-fold lexical logits so that nearly every example passes it, unless that
   would let more than a fifth of the negatives through (the expert runs on what passes, so that
   is its cost in an audit); each fold keeps the expert epoch that ranks its held-out rows best
   (0: no correction).
3. The calibrations are fitted on the out-of-fold scores, and the quality figures come from them.
   Negatives the folds call the clause (probability 0.5 or more) are likely examples nobody gave
   (the draw is unlabelled): they are counted ("possible examples among negatives") and left
   out of the calibration, the figures and the final fit.
4. The final column and expert are fitted on every row (the expert for the folds' median epoch)
   and rounded to what is stored.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from models.addons import Addon, addon_tensors, addon_version
from models.backbone import Backbone
from models.batching import BatchLimits
from models.calibration import apply_platt, fit_platt
from models.checkpoint import Checkpoint
from models.encoded import EncodedSegments, cached_encode, encode_segments
from models.experts import ExpertBank
from models.fitting import ExpertPairs, FitSettings, fit_experts, fit_lexical, lexical_logits
from models.lexical import LexicalLayer, padded_lexical_bag
from models.runtime import compute_dtype, pick_device
from models.selection import macro_average_precision
from pipelines.clause_types.examples import MIN_EXAMPLES
from pipelines.clause_types.quality import quality


@dataclass(frozen=True)
class AddonSettings:
    folds: int = 5
    expert_epochs: int = 3
    lexical_c: float = 16.0
    gate_quantile: float = 0.02  # the share of examples' out-of-fold lexical logits below the gate's anchor
    gate_margin: float = 1.0  # and the gate sits this far below that anchor
    gate_pass_share: float = 0.2  # but never lets more than this share of the negatives through (the expert's cost)
    seed: int = 20261207


@dataclass(frozen=True)
class AddonRows:
    """Texts, their labels, and their groups: rows of one group are held out together."""

    texts: list[str]
    labels: np.ndarray  # bool
    groups: np.ndarray  # int


@dataclass
class TrainedAddon:
    addon: Addon
    seconds: dict[str, float]


class TooFewExamples(ValueError):
    """Training needs MIN_EXAMPLES examples at least."""


def train_addon(checkpoint: Checkpoint, examples: AddonRows, negatives: AddonRows, *, name: str, slug: str,
                number: int, settings: AddonSettings = AddonSettings(), device: str | None = None,
                cache: Path | None = None, log: Callable[[str], None] = print) -> TrainedAddon:
    """The add-on for `examples` (labelled: examples and counter-examples) against `negatives`
    (segments of audited contracts, all labelled not)."""
    positives = int(examples.labels.sum())
    if positives < MIN_EXAMPLES:
        raise TooFewExamples(f"{name} has {positives} example(s); training needs at least {MIN_EXAMPLES} "
                             "(25 to be trusted)")
    seconds: dict[str, float] = {}
    started = last = time.monotonic()

    def lap(phase: str) -> None:
        nonlocal last
        now = time.monotonic()
        seconds[phase], last = round(now - last, 1), now
        log(f"{name}: {phase} {seconds[phase]:.1f} s")

    torch.manual_seed(settings.seed)
    chosen = pick_device(device)
    config = checkpoint.config
    backbone = Backbone(chosen, compute_dtype(chosen), config.max_length, layers=config.layers,
                        tuned=checkpoint.backbone_layers)
    lap("load")
    limits = BatchLimits.for_device(chosen)
    encoded = _joined(encode_segments(backbone, examples.texts, limits, lambda _: None),
                      cached_encode(cache, backbone, negatives.texts, limits, lambda _: None))
    texts = examples.texts + negatives.texts
    labels = torch.from_numpy(np.concatenate([examples.labels, negatives.labels]).astype(bool))
    groups = np.concatenate([examples.groups, negatives.groups + int(examples.groups.max(initial=0)) + 1])
    bag = padded_lexical_bag(backbone.token_ids(texts), backbone.vocab_size, backbone.special_ids)
    lap(f"encode {len(texts)} segments")

    idf = checkpoint.network.router.lexical.idf
    fit = FitSettings(seed=settings.seed, lexical_c=settings.lexical_c, expert_epochs=settings.expert_epochs)
    fold = _folds(groups, labels.numpy(), settings)
    column = lambda: _column(backbone.vocab_size, config.headings, idf)  # noqa: E731
    oof = torch.zeros(len(texts))
    for k in range(settings.folds):
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        layer = column()
        fit_lexical(layer, bag.rows(train), labels[train, None], fit, chosen, keep_idf=True)
        oof[test] = lexical_logits(layer, bag.rows(test), chosen)[:, 0]
    gate = max(float(torch.quantile(oof[labels], settings.gate_quantile)) - settings.gate_margin,
               float(torch.quantile(oof[~labels], 1 - settings.gate_pass_share)))
    gated = oof >= gate
    lap("lexical folds")

    refined = oof.clone()
    epochs = []
    for k in range(settings.folds):
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        bank = ExpertBank(1, backbone.hidden, config.rank)
        test_gated = test[gated[test].numpy()]

        def ranking() -> float:
            score = oof[test] - 100.0
            score[gated[test]] = oof[test_gated] + _corrections(bank, encoded, test_gated, chosen)
            return macro_average_precision(score[:, None], labels[test, None], torch.ones(len(test)))

        epochs.append(fit_experts(bank, encoded, _pairs(train, oof, gated, labels), fit, chosen, ranking, lambda _: None))
        refined[test_gated] = oof[test_gated] + _corrections(bank, encoded, test_gated, chosen)
    lap("expert folds")

    platt_expert, platt_lexical, probability = _calibrated(oof, refined, gated, labels, torch.ones(len(texts), dtype=torch.bool))
    # Negatives drawn from contracts are unlabelled, not checked: the ones the folds call the
    # clause are likely examples nobody gave, so they leave the final fit and its calibration.
    suspect = probability >= 0.5
    suspect[:len(examples.texts)] = False
    if bool(suspect.any()):
        platt_expert, platt_lexical, probability = _calibrated(oof, refined, gated, labels, ~suspect)
    rows = np.flatnonzero((~suspect).numpy())

    layer = column()
    fit_lexical(layer, bag.rows(rows), labels[rows, None], fit, chosen, keep_idf=True)
    kept = int(np.median(epochs))
    bank = ExpertBank(1, backbone.hidden, config.rank)
    if kept:
        fit_experts(bank, encoded, _pairs(rows, oof, gated, labels), replace(fit, expert_epochs=kept),
                    chosen, None, lambda _: None)
    lap("final fit")

    weight = layer.table.weight.detach().cpu()[:, 0].half().float()
    index = torch.nonzero(weight).squeeze(1)
    with torch.no_grad():
        for parameter in bank.parameters():
            parameter.copy_(parameter.half().float())
    counter = int((~examples.labels).sum())
    suspects = int(suspect.sum())
    metrics = {
        **quality(probability[~suspect].numpy(), labels[~suspect].numpy(), positives),
        "examples": positives, "counter_examples": counter, "negatives": len(negatives.texts),
        "gate_pass_share": round(float(gated[~labels].float().mean()), 3),
        "expert_epochs": epochs, "expert_epochs_kept": kept,
        "possible_examples_among_negatives": suspects,
    }
    addon = Addon(name, "", checkpoint.version, index, weight[index], float(layer.bias.detach()[0]), bank.cpu().eval(),
                  gate, platt_expert, platt_lexical, metrics)
    addon.version = addon_version(slug, number, name, checkpoint.version, addon_tensors(addon))
    seconds["total"] = round(time.monotonic() - started, 1)
    metrics["seconds"] = seconds
    return TrainedAddon(addon, seconds)


def _calibrated(oof: torch.Tensor, refined: torch.Tensor, gated: torch.Tensor, labels: torch.Tensor,
                use: torch.Tensor) -> tuple[tuple[float, float], tuple[float, float], torch.Tensor]:
    """Platt pairs for the expert's rows (gated) and the lexical column's (the rest), fitted on
    the rows in `use`, and every row's calibrated out-of-fold probability."""
    ones = torch.ones(len(oof))
    expert = fit_platt(refined[gated & use], labels[gated & use].float(), ones[gated & use])
    lexical = fit_platt(oof[~gated & use], labels[~gated & use].float(), ones[~gated & use])
    probability = torch.where(gated, apply_platt(refined, torch.tensor(expert[0]), torch.tensor(expert[1])),
                              apply_platt(oof, torch.tensor(lexical[0]), torch.tensor(lexical[1])))
    return expert, lexical, probability


def _column(vocab_size: int, headings: bool, idf: torch.Tensor) -> LexicalLayer:
    """One lexical column over the shipped feature space, with the shipped idf."""
    layer = LexicalLayer(vocab_size, 1, headings)
    layer.idf.copy_(idf)
    return layer


def _folds(groups: np.ndarray, labels: np.ndarray, settings: AddonSettings) -> np.ndarray:
    """A fold per row: groups dealt round-robin in a seeded order, those holding an example
    first, so that every fold holds examples."""
    rng = np.random.default_rng(settings.seed)
    with_example = np.unique(groups[labels])
    others = np.setdiff1d(np.unique(groups), with_example)
    order = np.concatenate([rng.permutation(with_example), rng.permutation(others)])
    fold_of = {int(g): i % settings.folds for i, g in enumerate(order)}
    return np.array([fold_of[int(g)] for g in groups])


def _pairs(rows: np.ndarray, oof: torch.Tensor, gated: torch.Tensor, labels: torch.Tensor) -> ExpertPairs:
    """The rows the expert will meet (gated) and every example, correcting the out-of-fold logit."""
    chosen = rows[(gated[rows] | labels[rows]).numpy()]
    return ExpertPairs(row=chosen, expert=np.zeros(len(chosen), dtype=np.int64), base=oof[chosen].numpy(),
                       target=labels[chosen].float().numpy())


@torch.no_grad()
def _corrections(bank: ExpertBank, encoded: EncodedSegments, rows: np.ndarray, device: torch.device) -> torch.Tensor:
    bank.eval()
    out = [bank.one(*encoded.padded(torch.from_numpy(part), device), 0).cpu()
           for part in np.array_split(rows, max(1, len(rows) // 64)) if len(part)]
    return torch.cat(out) if out else torch.zeros(0)


def _joined(first: EncodedSegments, second: EncodedSegments) -> EncodedSegments:
    return EncodedSegments(torch.cat([first.tokens, second.tokens]),
                           torch.cat([first.offsets, second.offsets[1:] + first.offsets[-1]]),
                           torch.cat([first.pooled, second.pooled]))


