"""Do the risk levels triage?  The product's levels beside the levels CUAD's experts imply.

A general counsel reads the level first, so the levels must spread contracts out and agree
with what an expert reading would conclude.  The expert side runs CUAD's annotations of each
validation contract (every snippet a finding at confidence 1.0, the normalized answers as
key-term values, the contract type read from the text) through the same playbook and
aggregation as the product.  The product side re-assesses a finished `clausemill audit` batch
with the current code: the rules analyser is run again on each document's stored text and
segments, and the model's stored findings are reused, so playbook changes need no new audit.

    clausemill audit <validation PDFs> -o out/val          # once (CLAUSEMILL_DATA_DIR=DIR)
    python ops/benchmarks/risk_levels.py --data-dir DIR [--batch ID] [--playbook FILE]

Prints the level distribution of both, the agreement of the levels (exact, and Cohen's kappa)
and the Spearman rank correlation of the scores.  CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pipelines.aggregate import aggregate_document  # noqa: E402
from pipelines.categories import CUAD_CATEGORIES  # noqa: E402
from pipelines.datamodel import DocumentStatus, Finding  # noqa: E402
from pipelines.playbook import load_playbook  # noqa: E402
from pipelines.playbook.severity import RISK_LEVELS  # noqa: E402
from pipelines.settings import Settings  # noqa: E402
from pipelines.contract_type import classify_contract  # noqa: E402
from pipelines.terms import CONTRACT_TYPE, VALUE_NOTE  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"
SPLIT_FILE = REPO / "docs" / "validation_split.txt"
ANSWERED = {  # key terms whose CUAD answer is the value a playbook check reads
    "Governing Law": "Governing Law-Answer",
    "Renewal Term": "Renewal Term-Answer",
    "Notice Period To Terminate Renewal": "Notice Period To Terminate Renewal- Answer",
}


def expert_findings() -> dict[str, list[Finding]]:
    """Per validation PDF, CUAD's snippets and answers as findings an analyser could have made."""
    names = {line.strip() for line in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()}
    with open(CUAD / "files.csv", newline="", encoding="utf-8") as f:
        files = {Path(r["pdf"]).name: r for r in csv.DictReader(f) if Path(r["pdf"]).name in names}
    with open(CUAD / "master_clauses.csv", newline="", encoding="utf-8") as f:
        answers = {r["Filename"]: r for r in csv.DictReader(f)}
    found: dict[str, list[Finding]] = defaultdict(list)
    with open(CUAD / "spans.jsonl", encoding="utf-8") as f:
        for line in f:
            span = json.loads(line)
            pdf = Path(span["filename"]).name
            if pdf in files and span["category"] in CUAD_CATEGORIES:
                found[pdf].append(Finding(span["category"], span["text"], span["start"], span["end"], 1, 1.0,
                                          "expert", "cuad"))
    for pdf, row in files.items():
        text = (CUAD / row["txt"]).read_text(encoding="utf-8")
        kind = classify_contract(text)
        found[pdf].append(Finding(CONTRACT_TYPE, "", 0, 0, 1, kind.confidence, "expert", "cuad",
                                  value=kind.type.value, note=VALUE_NOTE))
        answer_row = answers[row["master_clauses_filename"]]
        for category, column in ANSWERED.items():
            if answer_row[column].strip():
                found[pdf].append(Finding(category, answer_row[column], 0, 0, 1, 1.0, "expert", "cuad",
                                          value=answer_row[column].strip(), note=VALUE_NOTE))
    return found


def product_findings(data_dir: Path, batch_id: str | None) -> dict[str, list[Finding]]:
    """Per document of the batch (the latest when none is named), fresh rule findings on its
    stored text plus the model's stored findings."""
    from sqlalchemy import select

    from pipelines.steps import rules_analyser
    from storage import repository, schema
    from storage.database import session_scope

    url = Settings(data_dir=data_dir).effective_database_url
    found: dict[str, list[Finding]] = {}
    with session_scope(url, write=False) as session:
        if batch_id is None:
            batch_id = session.scalars(select(schema.Batch.id).order_by(schema.Batch.created_at.desc())).first()
        documents = session.scalars(select(schema.Document).where(schema.Document.batch_id == batch_id)).all()
        for d in documents:
            if d.status is not DocumentStatus.DONE:
                continue
            text, segments = repository.load_text(session, d.id), repository.load_segments(session, d.id)
            found[Path(d.path).name] = rules_analyser(text, segments) + repository.load_findings(session, d.id, ["model"])
    return found


def spearman(a: list[float], b: list[float]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 0.0


def kappa(a: list[str], b: list[str]) -> float:
    observed = sum(x == y for x, y in zip(a, b)) / len(a)
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[level] * cb[level] for level in RISK_LEVELS) / len(a) ** 2
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True, help="CLAUSEMILL_DATA_DIR of the audit")
    parser.add_argument("--batch", help="batch id (default: the latest batch there)")
    parser.add_argument("--playbook", type=Path)
    args = parser.parse_args()
    playbook = load_playbook(args.playbook)
    expert = expert_findings()
    product = product_findings(args.data_dir, args.batch)
    shared = sorted(set(expert) & set(product))
    if not shared:
        sys.exit("no validation contract is among the batch's done documents")
    assessed = {
        side: {pdf: aggregate_document(findings[pdf], playbook) for pdf in shared}
        for side, findings in (("product", product), ("expert", expert))
    }
    print(f"\n{len(shared)} validation contracts, playbook {playbook.label}\n")
    print("| level | product | CUAD experts |")
    print("| --- | ---: | ---: |")
    counts = {side: Counter(a.risk_level for a in docs.values()) for side, docs in assessed.items()}
    for level in RISK_LEVELS:
        print(f"| {level} | {counts['product'][level]} ({counts['product'][level] / len(shared):.0%}) "
              f"| {counts['expert'][level]} ({counts['expert'][level] / len(shared):.0%}) |")
    levels = {side: [docs[pdf].risk_level for pdf in shared] for side, docs in assessed.items()}
    scores = {side: [docs[pdf].risk_score for pdf in shared] for side, docs in assessed.items()}
    exact = sum(x == y for x, y in zip(levels["product"], levels["expert"])) / len(shared)
    print(f"\nlevels agree on {exact:.0%} of contracts (Cohen's kappa {kappa(levels['product'], levels['expert']):.2f});"
          f" Spearman rank correlation of the scores {spearman(scores['product'], scores['expert']):.2f}")


if __name__ == "__main__":
    main()
