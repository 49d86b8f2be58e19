"""Would a nearest-neighbour lookup of training clauses add to the model? (issue 14 item 3)

ConReader's last ingredient gives a segment the labels of similar training clauses. Before
putting an index in the checkpoint, this measures what such a lookup knows that the model
does not. The index holds the fitting contracts' segments as `clausemill train` samples them
(every positive, its neighbours and 12% of the rest, weighted by inverse sampling rate), in two
representations:
- the backbone's mean-pooled state (what the router's MLP reads), by cosine similarity;
- the router's TF-IDF vector of word pieces, bigrams and heading (what its lexical term reads).

Each segment of the calibration and validation contracts gets, per category, the weighted vote
of its K nearest index segments (softmax of similarity / temperature) and its similarity to the
nearest positive. A logistic regression per category, fitted on the calibration contracts,
stacks the model's calibrated logit with those; the table compares the validation segments'
macro average precision (models/selection.py) of the model alone and of each stack. A stack
that ranks no better means the lookup holds nothing the model lacks. One that does is worth
building into the checkpoint and scoring with CUAD's metric: MODEL_CARD.md ("The
nearest-neighbour lookup") has both for the shipped model.

    python ops/benchmarks/neighbour_lookup.py [--checkpoint PATH] [--neighbours 16] [--temperature 0.05]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_ceiling import CUAD, calibration_documents  # noqa: E402

from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.corpus import LabelledDocument, load_cuad, read_split, segment_labels  # noqa: E402
from models.encoded import encode_segments  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.lexical import padded_lexical_bag  # noqa: E402
from models.sampling import sample_segments  # noqa: E402
from models.selection import macro_average_precision  # noqa: E402
from models.training import SPLIT_FILE, TrainSettings  # noqa: E402


class Segments:
    """The segments of some contracts: labels, weights, pooled states, TF-IDF vectors and,
    for query sets, the model's probabilities."""

    def __init__(self, model: ClauseModel, documents: list[LabelledDocument], rate: float | None,
                 rng: np.random.Generator) -> None:
        texts, heading_ids, labels, weights, probability = [], [], [], [], []
        categories = model.config.categories
        for doc in documents:
            segments = doc.segments()
            doc_labels = segment_labels(segments, doc.spans, categories)
            headings = model.heading_ids([segments], [""])
            if rate is None:  # a query set: every segment, scored by the model as the product scores it
                chosen, chosen_weights = np.arange(len(segments)), np.ones(len(segments), dtype=np.float32)
                probability.append(model.probabilities([segments])[0])
            else:
                sample = sample_segments(doc_labels, rate, rng)
                chosen, chosen_weights = sample.indices, sample.weights
            texts += [segments[i].text for i in chosen]
            heading_ids += [headings[i] for i in chosen] if headings else []
            labels.append(torch.from_numpy(doc_labels[chosen]).float())
            weights.append(torch.from_numpy(chosen_weights))
        backbone = model.backbone
        self.labels, self.weights = torch.cat(labels), torch.cat(weights)
        self.probability = torch.cat(probability) if probability else None
        self.pooled = encode_segments(backbone, texts, model.limits, lambda _: None).pooled
        bag = padded_lexical_bag(backbone.token_ids(texts), backbone.vocab_size, backbone.special_ids,
                                 heading_ids or None)
        with torch.inference_mode():
            tfidf = model.network.router.lexical.tfidf(bag)
        rows = torch.arange(len(texts)).repeat_interleave(bag.index.shape[1])
        size = model.network.router.lexical.idf.shape[0]
        self.tfidf = torch.sparse_coo_tensor(torch.stack([rows, bag.index.reshape(-1)]), tfidf.reshape(-1),
                                             (len(texts), size)).coalesce().to_sparse_csr()


def votes(similarity: Callable[[slice], torch.Tensor], n: int, index: Segments, k: int,
          temperature: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Per query segment and category: the weighted label vote of its k nearest index segments,
    and its similarity to the nearest positive."""
    vote, nearest = [], []
    positives = [index.labels[:, c] > 0 for c in range(index.labels.shape[1])]
    for start in range(0, n, 512):
        sims = similarity(slice(start, min(start + 512, n)))
        top, at = sims.topk(k, dim=1)
        weight = index.weights[at] * torch.exp((top - top[:, :1]) / temperature)
        vote.append((weight.unsqueeze(-1) * index.labels[at]).sum(1) / weight.sum(1, keepdim=True))
        nearest.append(torch.stack([sims[:, p].max(1).values if p.any() else torch.full((len(sims),), -1.0)
                                    for p in positives], 1))
    return torch.cat(vote), torch.cat(nearest)


def pooled_similarity(index: Segments, query: Segments) -> Callable[[slice], torch.Tensor]:
    centre = index.pooled.mean(0)
    keys = F.normalize(index.pooled - centre, dim=1)
    return lambda rows: F.normalize(query.pooled[rows] - centre, dim=1) @ keys.T


def tfidf_similarity(index: Segments, query: Segments) -> Callable[[slice], torch.Tensor]:
    keys = index.tfidf
    def similarity(rows: slice) -> torch.Tensor:
        block = torch.sparse_csr_tensor(*_csr_rows(query.tfidf, rows), size=(rows.stop - rows.start, keys.shape[1]))
        return (keys @ block.to_dense().T).T
    return similarity


def _csr_rows(matrix: torch.Tensor, rows: slice) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    crow = matrix.crow_indices()
    lo, hi = int(crow[rows.start]), int(crow[rows.stop])
    return crow[rows.start : rows.stop + 1] - lo, matrix.col_indices()[lo:hi], matrix.values()[lo:hi]


def stacked(train: list[torch.Tensor], labels: torch.Tensor, test: list[torch.Tensor]) -> torch.Tensor:
    """Per category, a lightly regularised logistic regression on the columns of train[c]; its
    logits on test[c]. A category with fewer than two calibration positives keeps column 0.

    Not logistic.fit_logistic: this one starts from the model alone (weight 1 on column 0) and
    pulls only the lookup's columns toward 0, so a stack differs from the model only where the
    lookup earns it (with fit_logistic the TF-IDF stack scored 0.5276 against 0.5323)."""
    out = torch.zeros((len(test[0]), len(test)))
    for c, (x, x_test) in enumerate(zip(train, test)):
        y = labels[:, c]
        if y.sum() < 2:
            out[:, c] = x_test[:, 0]
            continue
        x, x_test = F.pad(x, (0, 1), value=1.0), F.pad(x_test, (0, 1), value=1.0)
        beta = torch.zeros(x.shape[1])
        beta[0] = 1.0
        beta.requires_grad_(True)
        optimiser = torch.optim.LBFGS([beta], max_iter=300, tolerance_grad=1e-12, tolerance_change=1e-14,
                                      line_search_fn="strong_wolfe")
        def loss() -> torch.Tensor:
            optimiser.zero_grad()
            value = F.binary_cross_entropy_with_logits(x @ beta, y) + 1e-3 * (beta[1:-1] ** 2).sum()
            value.backward()
            return value
        optimiser.step(loss)
        out[:, c] = (x_test @ beta).detach()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--neighbours", type=int, default=16)
    parser.add_argument("--temperature", type=float, default=0.05)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="Sparse", category=UserWarning)  # torch's CSR support is "beta"
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")
    started = time.perf_counter()
    model = ClauseModel(load_checkpoint(args.checkpoint), torch.device("cpu"), int8=True)
    documents, validation = load_cuad(CUAD), read_split(SPLIT_FILE)
    calibration = calibration_documents(documents, validation)
    held = {d.name for d in calibration}
    fitting = [d for d in documents if d.name not in validation and d.name not in held]
    settings = TrainSettings()
    index = Segments(model, fitting, settings.negative_rate, np.random.default_rng(settings.fit.seed))
    queries = {"calibration": Segments(model, calibration, None, np.random.default_rng(0)),
               "validation": Segments(model, [d for d in documents if d.name in validation], None,
                                      np.random.default_rng(0))}
    print(f"index: {len(index.labels)} segments of {len(fitting)} fitting contracts; queries: "
          f"{len(queries['calibration'].labels)} calibration segments ({len(calibration)} contracts), "
          f"{len(queries['validation'].labels)} validation segments; model {model.version} (int8); "
          f"K = {args.neighbours}, temperature {args.temperature}\n")
    features: dict[str, dict[str, tuple[torch.Tensor, torch.Tensor]]] = {}
    for name, query in queries.items():
        n = len(query.labels)
        features[name] = {
            "pooled state": votes(pooled_similarity(index, query), n, index, args.neighbours, args.temperature),
            "TF-IDF": votes(tfidf_similarity(index, query), n, index, args.neighbours, args.temperature),
        }
    logit = lambda p: torch.logit(p.clamp(1e-4, 1 - 1e-4))  # noqa: E731
    val, cal = queries["validation"], queries["calibration"]
    ones = torch.ones(len(val.labels))
    print("| scores | validation segments' macro AP |")
    print("| --- | ---: |")
    print(f"| the model | {macro_average_precision(val.probability, val.labels, ones):.4f} |")
    for lookup in ("pooled state", "TF-IDF"):
        vote = features["validation"][lookup][0]
        print(f"| the {lookup} lookup's vote alone | {macro_average_precision(vote, val.labels, ones):.4f} |")

    def columns(split: str, query: Segments, lookups: tuple[str, ...]) -> list[torch.Tensor]:
        parts = [logit(query.probability)]
        for lookup in lookups:
            vote, nearest = features[split][lookup]
            parts += [logit(vote.clamp(1e-3, 1 - 1e-3)), nearest * 10]
        return [torch.stack([p[:, c] for p in parts], 1) for c in range(query.labels.shape[1])]

    for lookups in (("pooled state",), ("TF-IDF",), ("pooled state", "TF-IDF")):
        score = stacked(columns("calibration", cal, lookups), cal.labels, columns("validation", val, lookups))
        print(f"| the model stacked with the {' and '.join(lookups)} lookup | "
              f"{macro_average_precision(score, val.labels, ones):.4f} |")
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
