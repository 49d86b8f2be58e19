"""How accurate is the expert model on CUAD's validation contracts, alone and beside the rules?

On the contracts of docs/validation_split.txt (never seen in training), each txt/ file is
segmented as one plain page and three prediction files are written and scored with CUAD's
own metric (shared/tools/cuad_score.py --docs):

  model.jsonl   ClauseModel.predict_many (sparse top-k: the product)
  rules.jsonl   pipelines.rules.analyse_segments (rule pack + key terms)
  union.jsonl   both (aggregation merges them in the product; a plain union here)

`--modes sparse dense linear` also scores dense (every expert on every segment) and the
linear baseline; `--all-categories` makes the model emit the key-term categories too, to see
whether it beats the key-term extractors on any (ModelConfig.emitted records the outcome).
The presence threshold sweep shows how presence F1 depends on --presence-threshold.

    python ops/benchmarks/model_accuracy.py [--checkpoint PATH] [--device cpu|cuda] [--modes sparse dense linear]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from models.candidates import document_findings  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.corpus import LabelledDocument, load_cuad, read_split  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.runtime import pick_device  # noqa: E402
from models.training import SPLIT_FILE  # noqa: E402
from pipelines.datamodel import Finding, Segment  # noqa: E402
from pipelines.rules import analyse_segments  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SCORER = REPO.parent / "shared" / "tools" / "cuad_score.py"
DOCUMENTS_PER_CALL = 8  # documents batched together, as the gpu worker batches waiting documents
PRESENCE_SWEEP = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def rows(document: str, findings: list[Finding]) -> list[dict]:
    return [{"document": document, "category": f.category, "text": f.text, "probability": f.confidence,
             "start": f.start, "end": f.end, "source": f.source} for f in findings]


def model_rows(model: ClauseModel, documents: list[LabelledDocument], segments: list[list[Segment]], mode: str,
               all_categories: bool) -> tuple[list[dict], float]:
    """Predictions of one mode and the seconds it took (backbone included)."""
    c = model.config
    emitted = c.categories if all_categories else c.emitted
    out: list[dict] = []
    started = time.perf_counter()
    for i in range(0, len(documents), DOCUMENTS_PER_CALL):
        batch = segments[i : i + DOCUMENTS_PER_CALL]
        for doc, segs, p in zip(documents[i : i + DOCUMENTS_PER_CALL], batch,
                                model.probabilities(batch, mode=mode)):
            found = document_findings(segs, p, model.presence(p), c.categories, emitted, c.floor, model.version,
                                      model.tail)
            out += rows(doc.name, found)
    return out, time.perf_counter() - started


def write(path: Path, predictions: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for p in predictions:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")


def score(predictions: Path, docs: Path, threshold: float) -> dict:
    """cuad_score.py's JSON result (per category included) for one predictions file."""
    result = predictions.with_suffix(".scores.json")
    subprocess.run([sys.executable, str(SCORER), "--gold", str(CUAD), "--pred", str(predictions), "--docs", str(docs),
                    "--per-category", "--presence-threshold", str(threshold), "--json", str(result)],
                   check=True, stdout=subprocess.DEVNULL)
    return json.loads(result.read_text(encoding="utf-8"))


def presence_sweep(predictions: Path, names: list[str]) -> dict[float, float]:
    """Presence macro-F1 at several thresholds, with the scorer's own functions."""
    spec = importlib.util.spec_from_file_location("cuad_score", SCORER)
    scorer: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    gold, cats, aliases = scorer.load_gold(str(CUAD), names)
    pred, _, _ = scorer.load_pred(str(predictions), aliases, cats)
    return {t: scorer.presence(gold, pred, cats, t)[0] for t in PRESENCE_SWEEP}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    parser.add_argument("--modes", nargs="+", default=["sparse"], choices=["sparse", "dense", "linear"])
    parser.add_argument("--int8", action="store_true", help="int8 backbone on CPU (the gpu worker's CPU default)")
    parser.add_argument("--all-categories", action="store_true", help="emit key-term categories from the model too")
    parser.add_argument("--presence-threshold", type=float, default=0.5)
    parser.add_argument("--out", type=Path, default=REPO / "out" / "model_accuracy")
    args = parser.parse_args()
    if not args.cuad.is_dir():
        sys.exit(f"CUAD data not found at {args.cuad}")

    validation = read_split(SPLIT_FILE)
    documents = [d for d in load_cuad(args.cuad) if d.name in validation]
    segments = [d.segments() for d in documents]
    args.out.mkdir(parents=True, exist_ok=True)
    docs = args.out / "validation_docs.txt"
    docs.write_text("\n".join(d.name for d in documents) + "\n", encoding="utf-8")
    model = ClauseModel(load_checkpoint(args.checkpoint), pick_device(args.device), int8=args.int8)
    n_segments = sum(len(s) for s in segments)
    print(f"{len(documents)} validation contracts, {n_segments} segments; model {model.version} on {model.device} "
          f"({model.precision})")

    files: dict[str, Path] = {}
    for mode in args.modes:
        predictions, seconds = model_rows(model, documents, segments, mode, args.all_categories)
        name = "model" if mode == "sparse" else f"model_{mode}"
        files[name] = args.out / f"{name}.jsonl"
        write(files[name], predictions)
        print(f"  {name}: {len(predictions)} candidates, {n_segments / seconds:.0f} segments/s")
    rules = [r for doc, segs in zip(documents, segments) for r in rows(doc.name, analyse_segments(doc.text, segs))]
    files["rules"] = args.out / "rules.jsonl"
    write(files["rules"], rules)
    if "model" in files:
        files["union"] = args.out / "union.jsonl"
        write(files["union"], [json.loads(line) for name in ("model", "rules")
                               for line in files[name].read_text(encoding="utf-8").splitlines()])

    results = {name: score(path, docs, args.presence_threshold) for name, path in files.items()}
    print(f"\nvalidation split, presence threshold {args.presence_threshold}")
    print("| predictions | AUPR | P@80R | P@90R | presence macro-F1 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, r in results.items():
        print(f"| {name} | {r['aupr']:.3f} | {r['prec_at_80_recall']:.3f} | {r['prec_at_90_recall']:.3f} | "
              f"{r['presence_macro_f1']:.3f} |")
    names = list(results)
    print("\n| category | " + " | ".join(f"{n} AUPR | {n} F1" for n in names) + " |")
    print("| --- |" + " ---: |" * (2 * len(names)))
    for category in results[names[0]]["per_category"]:
        cells = []
        for n in names:
            v = results[n]["per_category"].get(category, {})
            cells += [f"{v.get('aupr', 0):.3f}", f"{v.get('presence_f1') or 0:.3f}"]
        print(f"| {category} | " + " | ".join(cells) + " |")
    for name in ("model", "union"):
        if name in files:
            sweep = presence_sweep(files[name], [d.name for d in documents])
            print(f"\npresence macro-F1 of {name} by threshold: "
                  + ", ".join(f"{t}: {f:.3f}" for t, f in sweep.items()))
    (args.out / "summary.json").write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
