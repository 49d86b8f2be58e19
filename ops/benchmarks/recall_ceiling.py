"""How much of CUAD can the candidates reach at all?  The ranked tail's recall, measured.

CUAD's precision at 90% recall is 0 for predictions that never recall 90%, so the recall at
threshold 0 (every candidate kept) is a ceiling on that metric.  From one run of the model
over the validation contracts this scores, with and without the ranked tail (models/tail.py),
the model alone and the model beside the rules and key terms (a plain union, as
model_accuracy.py does): AUPR, P@80R, P@90R, recall at threshold 0, and prediction lines per
contract (predictions.jsonl must stay usable); then, per category, the snippets no candidate
reaches.

`--fit` first chooses the tail's size per category on the calibration contracts (training
split, held out of fitting; the same draw and function as `clausemill train`) and writes it
into the checkpoint, for a checkpoint trained before the tail existed; `--fit-widening` does
the same for the wider spans' weights (models/widening.py).

    python ops/benchmarks/recall_ceiling.py [--fit] [--fit-widening] [--checkpoint PATH]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from models.candidates import document_findings  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint, save_checkpoint  # noqa: E402
from models.corpus import LabelledDocument, load_cuad, read_split, segment_labels  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.runtime import pick_device  # noqa: E402
from models.candidates import candidate_scores  # noqa: E402
from models.tail import as_sizes, choose_tail_sizes  # noqa: E402
from models.widening import clause_texts, fit_weights  # noqa: E402
from models.training import SPLIT_FILE, TrainSettings, pick_calibration  # noqa: E402
from pipelines.datamodel import Segment  # noqa: E402
from pipelines.rules import analyse_segments  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SCORER = REPO.parent / "shared" / "tools" / "cuad_score.py"


def scorer_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cuad_score", SCORER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def calibration_documents(documents: list[LabelledDocument], validation: set[str]) -> list[LabelledDocument]:
    training = [d for d in documents if d.name not in validation]
    settings = TrainSettings()
    chosen = pick_calibration(training, settings, np.random.default_rng(settings.fit.seed))
    return [training[i] for i in sorted(chosen)]


def fit_tail(model: ClauseModel, checkpoint: Path, documents: list[LabelledDocument]) -> None:
    """Choose the tail on the calibration contracts and write it into the checkpoint."""
    c = model.config
    probability, labels, numbers = [], [], []
    emitted = torch.tensor([category in c.emitted for category in c.categories])  # as training masks them
    for number, doc in enumerate(documents):
        segments = doc.segments()
        probability.append(model.probabilities([segments])[0])
        labels.append(torch.from_numpy(segment_labels(segments, doc.spans, c.categories)) & emitted)
        numbers += [number] * len(segments)
    sizes = choose_tail_sizes(torch.cat(probability), torch.cat(labels), np.array(numbers), c.floor)
    model.network.tail_size[:] = torch.tensor(sizes, dtype=torch.float32)
    model.tail = sizes
    version = save_checkpoint(checkpoint, model.network.cpu(), c, model.backbone.hidden, model.backbone.vocab_size,
                              model.backbone.tuned)
    model.version = version
    print(f"tail fitted on {len(documents)} calibration contracts: {sum(sizes)} segments per contract at most "
          f"below the floor; checkpoint {checkpoint} is now version {version}")
    print("  " + ", ".join(f"{category} {k}" for category, k in zip(c.categories, sizes) if k))


def fit_widening(model: ClauseModel, checkpoint: Path, documents: list[LabelledDocument]) -> None:
    """Fit the wider spans' weights on the calibration contracts and write them into the checkpoint."""
    held = []
    for doc in documents:
        segments = doc.segments()
        p = model.probabilities([segments])[0]
        held.append(([s.text for s in segments], candidate_scores(p, model.presence(p)), clause_texts(doc.text, doc.spans)))
    c = model.config
    model.network.widen_weight[:] = fit_weights(held, c.categories, c.emitted)
    model.widen = tuple(model.network.widen_weight.tolist())
    model.version = save_checkpoint(checkpoint, model.network.cpu(), c, model.backbone.hidden,
                                    model.backbone.vocab_size, model.backbone.tuned)
    print(f"wider spans fitted on {len(documents)} calibration contracts for "
          f"{int((model.network.widen_weight > 0).sum())} categories; checkpoint {checkpoint} is now version {model.version}")


def rule_lines(documents: list[LabelledDocument], segments_of: list[list[Segment]]) -> list[dict]:
    """The rules' and key terms' prediction lines, which the model's are scored beside."""
    return [{"document": doc.name, "category": f.category, "text": f.text, "probability": f.confidence}
            for doc, segments in zip(documents, segments_of) for f in analyse_segments(doc.text, segments)]


def prediction_lines(model: ClauseModel, documents: list[LabelledDocument], segments_of: list[list[Segment]],
                     probabilities: list[torch.Tensor], rules: list[dict], tail: bool,
                     widen: bool = False) -> dict[str, list[dict]]:
    """{source: lines} from one pass of the model's probabilities, with or without the tail
    (and the wider spans)."""
    c = model.config
    model_lines: list[dict] = []
    for doc, segments, p in zip(documents, segments_of, probabilities):
        found = document_findings(segments, p, model.presence(p), c.categories, c.emitted, c.floor, model.version,
                                  model.tail if tail else (), model.widen if widen else ())
        model_lines += [{"document": doc.name, "category": f.category, "text": f.text, "probability": f.confidence}
                        for f in found]
    return {"model": model_lines, "union": model_lines + rules}


def score(scorer: ModuleType, names: list[str], lines: list[dict]) -> tuple[dict, dict[str, tuple[int, int]]]:
    """The metric's summary plus recall at threshold 0 and presence macro-F1 (at 0.5), and per
    category (answers, missed at 0)."""
    gold, categories, aliases = scorer.load_gold(str(CUAD), names)
    predictions: dict = {}
    for line in lines:
        key = (aliases.get(Path(line["document"]).stem.lower()), scorer.norm_cat(line["category"]))
        if key[1] in categories and line["text"]:
            texts = predictions.setdefault(key, {})
            texts[line["text"]] = max(float(line["probability"]), texts.get(line["text"], 0.0))
    summary = scorer.summarise(*scorer.curve(gold, predictions))
    summary["recall_at_0"] = scorer.pr_at(scorer.prepare(gold, predictions), 0.0)[1]
    summary["presence_macro_f1"] = scorer.presence(gold, predictions, categories, 0.5)[0]
    missed = {}
    for category in categories:
        questions = scorer.prepare(gold, predictions, category)
        answers = sum(n for n, _ in questions)
        found = sum(len(frozenset().union(*[hit for p, hit in cands if p > 0])) for _, cands in questions if cands)
        missed[category] = (answers, answers - found)
    return summary, missed


def model_and_contracts(description: str, fit_help: str, widening: bool = False) -> tuple[argparse.Namespace, ClauseModel,
                                                                   list[LabelledDocument], set[str]]:
    """The command line the model benchmarks share (--checkpoint, --fit, --device), then the
    model (int8 on a CPU, as the gpu worker runs it), every CUAD contract and the validation names."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--fit", action="store_true", help=fit_help)
    if widening:
        parser.add_argument("--fit-widening", action="store_true",
                            help="fit the wider spans' weights on the calibration contracts first")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")
    model = ClauseModel(load_checkpoint(args.checkpoint), pick_device(args.device), int8=True)
    return args, model, load_cuad(CUAD), read_split(SPLIT_FILE)


def main() -> None:
    args, model, documents, validation = model_and_contracts(
        __doc__, "choose the tail on the calibration contracts first", widening=True)
    started = time.perf_counter()
    if args.fit:
        fit_tail(model, args.checkpoint, calibration_documents(documents, validation))
    if args.fit_widening:
        fit_widening(model, args.checkpoint, calibration_documents(documents, validation))
    chosen = [d for d in documents if d.name in validation]
    segments_of = [d.segments() for d in chosen]
    probabilities = [model.probabilities([segments])[0] for segments in segments_of]
    rules = rule_lines(chosen, segments_of)
    print(f"{len(chosen)} validation contracts; model {model.version} ({model.precision}); "
          f"{time.perf_counter() - started:.0f} s of model and rules")

    scorer = scorer_module()
    names = [d.name for d in chosen]
    print("\n| predictions | AUPR | P@80R | P@90R | recall at 0 | lines per contract |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    missed_by: dict[str, dict[str, tuple[int, int]]] = {}
    for tail, widen in ((False, False), (True, False), (True, True)):
        for source, lines in prediction_lines(model, chosen, segments_of, probabilities, rules, tail, widen).items():
            label = f"{source}, {'with' if tail else 'without'} the tail" + (" and wider spans" if widen else "")
            summary, missed_by[label] = score(scorer, names, lines)
            print(f"| {label} | {summary['aupr']:.3f} | {summary['prec_at_80_recall']:.3f} | "
                  f"{summary['prec_at_90_recall']:.3f} | {summary['recall_at_0']:.3f} | {len(lines) / len(chosen):.0f} |")
    before, after = missed_by["union, without the tail"], missed_by["union, with the tail"]
    print("\n| category | snippets | missed at 0 without the tail | with it |")
    print("| --- | ---: | ---: | ---: |")
    for category, (answers, missed) in sorted(before.items(), key=lambda kv: -kv[1][1]):
        if missed:
            print(f"| {category} | {answers} | {missed} | {after[category][1]} |")
    print("\ntail sizes: " + ", ".join(f"{c} {k}" for c, k in zip(model.config.categories, as_sizes(model.network.tail_size)) if k))


if __name__ == "__main__":
    main()
