"""How accurate are the rules and key terms on CUAD, and how sure should each kind of evidence be?

`score` runs segmentation, the rule pack and the key-term extractors over the held-out
validation contracts (docs/validation_split.txt), writes predictions.jsonl and scores it with
CUAD's own metric (shared/tools/cuad_score.py: AUPR, P@80R, presence F1 per category).
`calibrate` runs the same over the training contracts (every contract not in the validation
list) and writes pipelines/rules/calibration.yaml: the measured precision of each rule and
key-term evidence kind, which becomes its confidence.  Tune and calibrate on train only.

The split is fixed: 20% of the contracts in files.csv, drawn with SEED, written once to
docs/validation_split.txt (PDF file names, one a line) for every benchmark to reuse.

    python ops/benchmarks/rules_accuracy.py calibrate
    python ops/benchmarks/rules_accuracy.py score [--split validation|train] [--out out/rules]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import random
import subprocess
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pipelines.datamodel import Finding, PageText, document_text  # noqa: E402
from pipelines.rules.engine import apply_rules  # noqa: E402
from pipelines.rules.keyterms import extract_key_terms  # noqa: E402
from pipelines.rules.pack import CALIBRATION_FILE, DEFAULT_PACK_PATH, RulePack, load_rule_pack  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SCORER = REPO.parent / "shared" / "tools" / "cuad_score.py"
SPLIT_FILE = REPO / "docs" / "validation_split.txt"
SEED = 20261101
VALIDATION_SHARE = 0.2
PRESENCE_THRESHOLD = 0.5
PRIOR_WEIGHT = 4  # calibration shrinks a measured precision toward the hand-set prior
KEY_CATEGORIES = ("Document Name", "Parties", "Agreement Date", "Effective Date", "Governing Law")


def contracts(cuad: Path) -> list[dict[str, str]]:
    """files.csv rows, sorted by name so the split does not depend on file order."""
    with open(cuad / "files.csv", newline="", encoding="utf-8") as f:
        return sorted(csv.DictReader(f), key=lambda row: row["master_clauses_filename"])


def validation_names(cuad: Path) -> set[str]:
    """PDF names of the validation contracts, drawing and writing the split the first time."""
    if not SPLIT_FILE.exists():
        rows = contracts(cuad)
        random.Random(SEED).shuffle(rows)
        chosen = sorted(Path(r["pdf"]).name for r in rows[: round(len(rows) * VALIDATION_SHARE)])
        SPLIT_FILE.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    return {line.strip() for line in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()}


def split_rows(cuad: Path, split: str) -> list[dict[str, str]]:
    held_out = validation_names(cuad)
    return [r for r in contracts(cuad) if (Path(r["pdf"]).name in held_out) == (split == "validation")]


def analyse_file(args: tuple[str, str, str, bool]) -> list[dict]:
    """Findings for one contract text, as scorer prediction rows (runs in a worker process)."""
    txt_path, pdf_name, pack_path, calibrated = args
    pack = _pack(pack_path, calibrated)
    raw = Path(txt_path).read_text(encoding="utf-8")
    pages = [PageText(number=1, text=raw, source="plain")]
    text, _ = document_text(pages)
    segments = segment_document(pages)
    findings: list[Finding] = apply_rules(pack, segments) + extract_key_terms(text, segments, pack)
    return [
        {"document": pdf_name, "category": f.category, "text": f.text, "probability": f.confidence,
         "start": f.start, "end": f.end, "page": f.page, "source": f.source, "note": f.note,
         "value": f.value}
        for f in findings
    ]


_PACKS: dict[tuple[str, bool], RulePack] = {}


def _pack(path: str, calibrated: bool) -> RulePack:
    if (path, calibrated) not in _PACKS:
        _PACKS[path, calibrated] = load_rule_pack(path, calibrated)
    return _PACKS[path, calibrated]


def predict(cuad: Path, rows: list[dict[str, str]], pack_path: Path, jobs: int,
            calibrated: bool = True) -> list[dict]:
    load_rule_pack(pack_path)  # a bad pack fails here, once, not in every worker
    work = [(str(cuad / r["txt"]), Path(r["pdf"]).name, str(pack_path), calibrated) for r in rows]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [p for found in pool.map(analyse_file, work, chunksize=4) for p in found]


def _scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cuad_score", SCORER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def calibrate(cuad: Path, pack_path: Path, jobs: int) -> None:
    """Measure each evidence kind's precision on the training split and write calibration.yaml."""
    rows = split_rows(cuad, "train")
    scorer = _scorer()
    gold, _, aliases = scorer.load_gold(str(cuad), [Path(r["pdf"]).name for r in rows])
    pack = load_rule_pack(pack_path, calibrated=False)
    priors = {rule.id: rule.confidence for rule in pack.rules} | pack.key_terms
    speaks_for_contract = set(pack.key_terms) | {rule.id for rule in pack.rules if rule.presence}
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    fired_in: dict[str, set[tuple[str, str]]] = {evidence_id: set() for evidence_id in priors}
    for p in predict(cuad, rows, pack_path, jobs, calibrated=False):
        key = (aliases[Path(p["document"]).stem.lower()], scorer.norm_cat(p["category"]))
        answers = gold.get(key, [])
        parties = key[1] == "parties"
        matched = any(scorer.jaccard(a, p["text"]) >= scorer.IOU or (parties and a in p["text"]) for a in answers)
        totals[p["note"]] += 1
        hits[p["note"]] += matched
        fired_in[p["note"]].add(key)
    evidence = {}
    for evidence_id in sorted(priors):
        n, k = totals[evidence_id], hits[evidence_id]
        precision = (k + PRIOR_WEIGHT * priors[evidence_id]) / (n + PRIOR_WEIGHT)
        evidence[evidence_id] = {"hits": k, "total": n, "precision": round(precision, 3)}
        if evidence_id in speaks_for_contract:  # also how often the contracts where it fires have the category
            documents = fired_in[evidence_id]
            present = sum(1 for key in documents if gold.get(key))
            rate = (present + PRIOR_WEIGHT * priors[evidence_id]) / (len(documents) + PRIOR_WEIGHT)
            evidence[evidence_id] |= {"documents": len(documents), "present": present, "presence": round(rate, 3)}
    out = pack_path.with_name(CALIBRATION_FILE)
    header = (
        "# Generated by ops/benchmarks/rules_accuracy.py calibrate; do not edit.\n"
        "# precision = (hits + 4 * prior) / (total + 4), measured on the CUAD training split\n"
        "# (contracts not in docs/validation_split.txt); for key terms and rules marked presence also\n"
        "# presence ="
        " (contracts where the evidence fired that have the category + 4 * prior) / (those contracts + 4).\n"
        "# CUAD: CC BY 4.0, The Atticus Project.\n"
    )
    body = yaml.safe_dump({"pack_version": pack.version, "split": f"train ({len(rows)} contracts)",
                           "evidence": evidence}, sort_keys=False, allow_unicode=True)
    out.write_text(header + body, encoding="utf-8")
    print(f"wrote {out}: {len(evidence)} evidence kinds from {len(rows)} training contracts")


def score(cuad: Path, pack_path: Path, split: str, out: Path, jobs: int, threshold: float) -> None:
    """Predict on a split, score with cuad_score.py and print the per-category table."""
    rows = split_rows(cuad, split)
    out.mkdir(parents=True, exist_ok=True)
    predictions = out / "predictions.jsonl"
    with open(predictions, "w", encoding="utf-8") as f:
        for p in predict(cuad, rows, pack_path, jobs):
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    docs = out / f"{split}_docs.txt"
    docs.write_text("\n".join(Path(r["pdf"]).name for r in rows) + "\n", encoding="utf-8")
    result_path = out / "scores.json"
    subprocess.run(
        [sys.executable, str(SCORER), "--gold", str(cuad), "--pred", str(predictions), "--docs", str(docs),
         "--per-category", "--presence-threshold", str(threshold), "--json", str(result_path)],
        check=True, stdout=subprocess.DEVNULL,
    )
    result = json.loads(result_path.read_text(encoding="utf-8"))
    predicted = {json.loads(line)["category"].lower() for line in predictions.open(encoding="utf-8")}
    print(f"{split}: {result['documents']} contracts, presence threshold {threshold}")
    print("| category | AUPR | P@80R | P@90R | presence F1 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    per = result["per_category"]
    ordered = [c.lower() for c in KEY_CATEGORIES] + sorted(c for c in per if c not in
                                                            {k.lower() for k in KEY_CATEGORIES})
    for category in ordered:
        if category not in per or category not in predicted:
            continue
        v = per[category]
        print(f"| {category} | {v['aupr']:.3f} | {v['prec_at_80_recall']:.3f} | "
              f"{v['prec_at_90_recall']:.3f} | {v['presence_f1'] or 0:.3f} |")
    print(f"overall AUPR {result['aupr']:.3f}, presence macro-F1 {result['presence_macro_f1']:.3f} "
          "(over all 41 categories, uncovered ones counting as misses)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["score", "calibrate"])
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--pack", type=Path, default=DEFAULT_PACK_PATH)
    parser.add_argument("--split", choices=["validation", "train"], default="validation")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "rules_accuracy")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--presence-threshold", type=float, default=PRESENCE_THRESHOLD)
    args = parser.parse_args()
    if args.command == "calibrate":
        calibrate(args.cuad, args.pack, args.jobs)
    else:
        score(args.cuad, args.pack, args.split, args.out, args.jobs, args.presence_threshold)


if __name__ == "__main__":
    main()
