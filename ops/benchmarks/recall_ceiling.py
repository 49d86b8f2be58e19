"""How much of CUAD can the candidates reach at all?  The ranked tail's recall, measured.

CUAD's precision at 90% recall is 0 for predictions that never recall 90%, so the recall at
threshold 0 (every candidate kept) is a ceiling on that metric.  From one run of the model
over the validation contracts this scores, with and without the ranked tail (models/tail.py),
the model alone and the model beside the rules and key terms (a plain union, as
model_accuracy.py does): AUPR, P@80R, P@90R, recall at threshold 0, and prediction lines per
contract (predictions.jsonl must stay usable); then, per category, the snippets no candidate
reaches.

    python ops/benchmarks/recall_ceiling.py [--checkpoint PATH]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from models.candidates import document_findings  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.corpus import LabelledDocument, load_cuad, read_split  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.runtime import pick_device  # noqa: E402
from models.tail import as_sizes  # noqa: E402
from models.training import SPLIT_FILE  # noqa: E402
from pipelines.datamodel import Segment  # noqa: E402
from pipelines.rules import analyse_segments  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SCORER = REPO.parent / "shared" / "tools" / "cuad_score.py"


def scorer_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cuad_score", SCORER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prediction_lines(model: ClauseModel, documents: list[LabelledDocument], segments_of: list[list[Segment]],
                     probabilities: list[torch.Tensor], rule_lines: list[dict], tail: bool,
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
    return {"model": model_lines, "union": model_lines + rule_lines}


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


def model_and_contracts(description: str) -> tuple[argparse.Namespace, ClauseModel, list[LabelledDocument], set[str]]:
    """The command line the model benchmarks share (--checkpoint, --device), then the
    model (int8 on a CPU, as the gpu worker runs it), every CUAD contract and the validation names."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")
    model = ClauseModel(load_checkpoint(args.checkpoint), pick_device(args.device), int8=True)
    return args, model, load_cuad(CUAD), read_split(SPLIT_FILE)


def main() -> None:
    _, model, documents, validation = model_and_contracts(__doc__)
    started = time.perf_counter()
    chosen = [d for d in documents if d.name in validation]
    segments_of = [d.segments() for d in chosen]
    probabilities = [model.probabilities([segments])[0] for segments in segments_of]
    rule_lines = [{"document": d.name, "category": f.category, "text": f.text, "probability": f.confidence}
                  for d, segments in zip(chosen, segments_of) for f in analyse_segments(d.text, segments)]
    print(f"{len(chosen)} validation contracts; model {model.version} ({model.precision}); "
          f"{time.perf_counter() - started:.0f} s of model and rules")

    scorer = scorer_module()
    names = [d.name for d in chosen]
    print("\n| predictions | AUPR | P@80R | P@90R | recall at 0 | lines per contract |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    missed_by: dict[str, dict[str, tuple[int, int]]] = {}
    for tail, widen in ((False, False), (True, False), (True, True)):
        for source, lines in prediction_lines(model, chosen, segments_of, probabilities, rule_lines, tail, widen).items():
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
